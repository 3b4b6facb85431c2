import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseBankFile } from '../parse-bank-file.ts';
import type { StatusReportResult } from '../types.ts';

const report = (ns: string, body: string) =>
  `<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:${ns}"><CstmrPmtStsRpt><GrpHdr><MsgId>R1</MsgId><CreDtTm>2025-03-14T10:00:00</CreDtTm></GrpHdr>${body}</CstmrPmtStsRpt></Document>`;

const tx = (e2e: string, sts: string, reason = '') =>
  `<TxInfAndSts><StsId>S-${e2e}</StsId><OrgnlInstrId>I-${e2e}</OrgnlInstrId><OrgnlEndToEndId>${e2e}</OrgnlEndToEndId><TxSts>${sts}</TxSts>${reason}<OrgnlTxRef><Amt><InstdAmt Ccy="EUR">12.5</InstdAmt></Amt></OrgnlTxRef></TxInfAndSts>`;

function parsed(xml: string): StatusReportResult {
  const r = parseBankFile(xml);
  assert.ok(r.ok && r.kind === 'status-report', r.ok ? r.kind : r.error.message);
  return r;
}

describe('pain.002', () => {
  test('group, payment-group and transaction statuses with reasons and descriptions (.03)', () => {
    const reason =
      '<StsRsnInf><Rsn><Cd>AM04</Cd></Rsn><AddtlInf>no money</AddtlInf><AddtlInf>try later</AddtlInf></StsRsnInf>';
    const body = `<OrgnlGrpInfAndSts><OrgnlMsgId>PAIN-1</OrgnlMsgId><OrgnlMsgNmId>pain.001.001.03</OrgnlMsgNmId><OrgnlNbOfTxs>3</OrgnlNbOfTxs><GrpSts>PART</GrpSts></OrgnlGrpInfAndSts>
      <OrgnlPmtInfAndSts><OrgnlPmtInfId>P1</OrgnlPmtInfId><PmtInfSts>PART</PmtInfSts>${tx('E1', 'ACSC')}${tx('E2', 'RJCT', reason)}${tx('E3', 'PDNG')}</OrgnlPmtInfAndSts>`;
    const r = parsed(report('pain.002.001.03', body));
    const rep = r.report;
    assert.equal(r.sourceFormat, 'pain.002.001.03');
    assert.deepEqual(
      [rep.originalMessageId, rep.originalTxCount, rep.groupStatusCode, rep.groupStatus],
      ['PAIN-1', 3, 'PART', 'partially_accepted'],
    );
    assert.deepEqual(
      rep.acceptedTransactions.map((t) => [t.endToEndId, t.statusCode, t.status, t.originalAmount, t.currency]),
      [['E1', 'ACSC', 'executed', '12.50', 'EUR']],
    );
    assert.deepEqual(rep.rejectedTransactions[0]?.reasons, [
      { code: 'AM04', proprietary: null, description: 'Insufficient funds', additionalInfo: ['no money', 'try later'] },
    ]);
    assert.equal(rep.pendingTransactions[0]?.endToEndId, 'E3');
    assert.equal(rep.paymentGroups[0]?.paymentInfoId, 'P1');
    assert.equal(rep.rejectedTransactions[0]?.bankRef, 'S-E2');
  });

  test('a group-level rejection applies to transactions without their own status; unknown codes keep their raw value', () => {
    const body = `<OrgnlGrpInfAndSts><OrgnlMsgId>PAIN-2</OrgnlMsgId><GrpSts>RJCT</GrpSts><StsRsnInf><Rsn><Cd>ZZ99</Cd></Rsn></StsRsnInf></OrgnlGrpInfAndSts>
      <OrgnlPmtInfAndSts><OrgnlPmtInfId>P1</OrgnlPmtInfId><TxInfAndSts><OrgnlEndToEndId>E9</OrgnlEndToEndId></TxInfAndSts></OrgnlPmtInfAndSts>`;
    const rep = parsed(report('pain.002.001.10', body)).report;
    assert.deepEqual(rep.groupReasons, [{ code: 'ZZ99', proprietary: null, description: null, additionalInfo: [] }]);
    assert.equal(rep.rejectedTransactions[0]?.endToEndId, 'E9');
  });

  test('.02 keeps transactions directly under the message', () => {
    const body = `<OrgnlGrpInfAndSts><OrgnlMsgId>PAIN-3</OrgnlMsgId><GrpSts>ACCP</GrpSts></OrgnlGrpInfAndSts>${tx('E1', 'ACCP')}`;
    const rep = parsed(report('pain.002.001.02', body)).report;
    assert.equal(rep.acceptedTransactions.length, 1);
    assert.equal(rep.paymentGroups[0]?.paymentInfoId, null);
  });

  test('EBICS customer protocols and namespace-less reports without status are refused', () => {
    const hac = parseBankFile(
      report('pain.002.001.03', '<OrgnlGrpInfAndSts><OrgnlMsgId>EBICS</OrgnlMsgId></OrgnlGrpInfAndSts>'),
    );
    assert.ok(!hac.ok && hac.error.code === 'unrecognised_format');
    const bare = parseBankFile(
      '<Document><CstmrPmtStsRpt><GrpHdr><MsgId>X</MsgId></GrpHdr></CstmrPmtStsRpt></Document>',
    );
    assert.ok(!bare.ok && bare.error.code === 'unrecognised_format');
  });
});
