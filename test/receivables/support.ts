import assert from 'node:assert/strict';
import type { provisionAndLogin, TestApp } from '../harness.ts';

/** Receivables tests' statements and requests (a camt with credits, expected payments, reads). */

export type Sandbox = Awaited<ReturnType<typeof provisionAndLogin>>;
export type Credit = {
  amount: string;
  ref?: string;
  e2e?: string;
  iban?: string;
  scor?: string;
  text?: string;
  day?: string;
};

/** A camt.053 (or camt.052) of account FI2112345600000785 with these booked credits. */
export function credits(id: string, entries: Credit[], kind: '053' | '052' = '053'): string {
  const rows = entries.map((e) => {
    const day = e.day ?? '2026-11-20';
    return `<Ntry><Amt Ccy="EUR">${e.amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts>
<BookgDt><Dt>${day}</Dt></BookgDt><ValDt><Dt>${day}</Dt></ValDt>${e.ref ? `<AcctSvcrRef>${e.ref}</AcctSvcrRef>` : ''}
<BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn></BkTxCd>
<NtryDtls><TxDtls><Refs>${e.e2e ? `<EndToEndId>${e.e2e}</EndToEndId>` : ''}</Refs>
<RltdPties><Dbtr><Nm>Payer Oy</Nm></Dbtr>${e.iban ? `<DbtrAcct><Id><IBAN>${e.iban}</IBAN></Id></DbtrAcct>` : ''}</RltdPties>
${e.text || e.scor ? `<RmtInf>${e.text ? `<Ustrd>${e.text}</Ustrd>` : ''}${e.scor ? `<Strd><CdtrRefInf><Tp><CdOrPrtry><Cd>SCOR</Cd></CdOrPrtry></Tp><Ref>${e.scor}</Ref></CdtrRefInf></Strd>` : ''}</RmtInf>` : ''}</TxDtls></NtryDtls></Ntry>`;
  });
  const [root, stmt] = kind === '053' ? ['BkToCstmrStmt', 'Stmt'] : ['BkToCstmrAcctRpt', 'Rpt'];
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.${kind}.001.02"><${root}>
<GrpHdr><MsgId>${id}-MSG</MsgId><CreDtTm>2026-11-21T06:00:00Z</CreDtTm></GrpHdr>
<${stmt}><Id>${id}</Id><ElctrncSeqNb>1</ElctrncSeqNb><CreDtTm>2026-11-21T06:00:00Z</CreDtTm>
<Acct><Id><IBAN>FI2112345600000785</IBAN></Id><Ccy>EUR</Ccy></Acct>
${rows.join('\n')}
</${stmt}></${root}></Document>`;
}

export async function ingest(t: TestApp, s: Sandbox, content: string) {
  const res = await t.request({
    method: 'POST',
    url: '/journal/ingest',
    headers: { 'x-api-key': s.apiKey },
    payload: { companyId: s.companyId, content },
  });
  assert.equal(res.statusCode, 201, res.body);
}

/** A statement journaled as the demo bank's test environment sent it; its document id. */
export async function ingestDemo(t: TestApp, s: Sandbox, content: string): Promise<string> {
  const res = await t.request({
    method: 'POST',
    url: '/journal/ingest',
    headers: { 'x-api-key': s.apiKey },
    payload: { companyId: s.companyId, content, bankKey: 'demo', environment: 'test' },
  });
  assert.equal(res.statusCode, 201, res.body);
  return (res.json() as { id: string }).id;
}

export async function expect(t: TestApp, s: Sandbox, body: Record<string, unknown>) {
  const res = await t.request({
    method: 'POST',
    url: '/expected-payments',
    headers: { 'x-api-key': s.apiKey },
    payload: { companyId: s.companyId, currency: 'EUR', dateFrom: '2026-11-15', dateTo: '2027-01-31', ...body },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json() as { id: string; status: string; openAmount: string; reference: { value: string } | null };
}

export async function expected(t: TestApp, s: Sandbox, id: string) {
  const res = await t.request({
    method: 'GET',
    url: `/expected-payments/${id}?companyId=${s.companyId}`,
    headers: { 'x-api-key': s.apiKey },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as {
    status: string;
    openAmount: string;
    matchedAmount: string;
    matches: Array<{ rule: string; amount: string; amountDelta: string; daysDelta: number; incomingPaymentId: string }>;
  };
}

export async function incoming(t: TestApp, s: Sandbox) {
  const res = await t.request({
    method: 'GET',
    url: `/incoming-payments?companyId=${s.companyId}`,
    headers: { 'x-api-key': s.apiKey },
  });
  assert.equal(res.statusCode, 200, res.body);
  return (
    res.json() as {
      items: Array<{ id: string; status: string; amount: string; openAmount: string; entry: { documentId: string } }>;
    }
  ).items;
}
