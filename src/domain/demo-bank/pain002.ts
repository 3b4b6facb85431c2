import { formatMinor, parseAmount } from '../money/money.ts';
import type { DeliveredFile } from './types.ts';
import { verdictFor } from './verdict.ts';
import { esc } from './xml.ts';

/** Short descriptions for the reason codes the demo bank is most often asked for. */
const REASONS: Record<string, string> = {
  AC01: 'Incorrect account number',
  AC04: 'Closed account number',
  AC06: 'Blocked account',
  AM04: 'Insufficient funds',
  AM05: 'Duplication',
  BE04: 'Missing creditor address',
  MS03: 'Reason not specified',
  RC01: 'Bank identifier incorrect',
};

/**
 * A pain.002.001.10 status report for a delivered file: ACSC for every accepted transaction, RJCT with
 * the requested reason for the others; group and payment-information status ACSC, PART or RJCT.
 */
export function demoPain002(file: DeliveredFile, reportId: string, createdAt: string): string {
  let accepted = 0;
  let rejected = 0;
  let count = 0;
  let sum = 0n;
  let exponent = 2;
  const blocks: string[] = [];
  for (const payment of file.payments) {
    let blockAccepted = 0;
    const txs: string[] = [];
    for (const tx of payment.transactions) {
      const parsed = parseAmount(tx.amount, tx.currency);
      if (parsed.ok) {
        sum += parsed.minor;
        exponent = parsed.exponent;
      }
      count++;
      const verdict = verdictFor(tx);
      if (verdict.accepted) {
        accepted++;
        blockAccepted++;
      } else rejected++;
      const reason = verdict.accepted
        ? ''
        : `<StsRsnInf><Rsn><Cd>${esc(verdict.code)}</Cd></Rsn><AddtlInf>${esc(REASONS[verdict.code] ?? 'Rejected by the demo bank on request')}</AddtlInf></StsRsnInf>`;
      txs.push(
        `<TxInfAndSts>${tx.instructionId ? `<OrgnlInstrId>${esc(tx.instructionId)}</OrgnlInstrId>` : ''}<OrgnlEndToEndId>${esc(tx.endToEndId)}</OrgnlEndToEndId><TxSts>${verdict.accepted ? 'ACSC' : 'RJCT'}</TxSts>${reason}<OrgnlTxRef><Amt><InstdAmt Ccy="${esc(tx.currency)}">${esc(tx.amount)}</InstdAmt></Amt></OrgnlTxRef></TxInfAndSts>`,
      );
    }
    const status = groupStatus(blockAccepted, payment.transactions.length - blockAccepted);
    blocks.push(
      `<OrgnlPmtInfAndSts><OrgnlPmtInfId>${esc(payment.paymentInfoId)}</OrgnlPmtInfId><PmtInfSts>${status}</PmtInfSts>${txs.join('')}</OrgnlPmtInfAndSts>`,
    );
  }
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.10"><CstmrPmtStsRpt>' +
    `<GrpHdr><MsgId>${esc(reportId)}</MsgId><CreDtTm>${esc(createdAt)}</CreDtTm><InitgPty><Nm>Demo Bank</Nm></InitgPty></GrpHdr>` +
    `<OrgnlGrpInfAndSts><OrgnlMsgId>${esc(file.messageId)}</OrgnlMsgId><OrgnlMsgNmId>${esc(file.painVersion)}</OrgnlMsgNmId>` +
    `<OrgnlNbOfTxs>${count}</OrgnlNbOfTxs><OrgnlCtrlSum>${formatMinor(sum, exponent)}</OrgnlCtrlSum><GrpSts>${groupStatus(accepted, rejected)}</GrpSts></OrgnlGrpInfAndSts>` +
    `${blocks.join('')}</CstmrPmtStsRpt></Document>\n`
  );
}

function groupStatus(accepted: number, rejected: number): string {
  if (rejected === 0) return 'ACSC';
  return accepted === 0 ? 'RJCT' : 'PART';
}
