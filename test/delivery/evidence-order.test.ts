import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { deliveredFileOf, demoCamt053, demoPain002 } from '../../src/domain/demo-bank/index.ts';
import { provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { deliverNow } from '../support/deliver.ts';

/**
 * Bank evidence arrives in any order. Each case submits a payment to the demo bank, delivers it (only
 * a delivered host-to-host payment takes its bank's evidence) and ingests real pain.002 / camt.053
 * files through POST /journal/ingest in a chosen order.
 */
let t: TestApp;
let sandbox: Awaited<ReturnType<typeof provisionAndLogin>>;
let template: Record<string, unknown>;

before(async () => {
  t = await startTestApp();
  sandbox = await provisionAndLogin(t);
  template = sandbox.firstPayment.body.payment;
});
after(() => t.close());

const key = () => ({ 'x-api-key': sandbox.apiKey });

async function submit(messageId: string, remittance = 'Invoice') {
  const payment = structuredClone(template) as {
    messageId: string;
    payments: Array<{ transactions: Array<Record<string, unknown>> }>;
  };
  payment.messageId = messageId;
  payment.payments[0]!.transactions[0]!['endToEndId'] = `E2E-${messageId}`;
  payment.payments[0]!.transactions[0]!['remittance'] = { unstructured: remittance };
  const res = await t.request({
    method: 'POST',
    url: '/journal/payments',
    headers: { ...key(), 'idempotency-key': messageId },
    payload: { companyId: sandbox.companyId, bankKey: 'demo', environment: 'test', payment },
  });
  assert.equal(res.statusCode, 201, res.body);
  const id = (res.json() as { id: string }).id;
  await deliverNow(t.ctx, { platformId: sandbox.platformId, companyId: sandbox.companyId }, id);
  return { id, payment };
}

async function ingest(content: string) {
  const res = await t.request({
    method: 'POST',
    url: '/journal/ingest',
    headers: key(),
    payload: { companyId: sandbox.companyId, content, bankKey: 'demo', environment: 'test' },
  });
  assert.ok([200, 201].includes(res.statusCode), res.body);
}

async function lines(id: string) {
  const res = await t.request({
    method: 'GET',
    url: `/journal/documents/${id}/payments?companyId=${sandbox.companyId}`,
    headers: key(),
  });
  return res.json() as {
    status: string;
    payments: Array<{ recon: { state: string; evidence: Record<string, unknown> } }>;
  };
}

const statement = (payment: unknown, n: number) =>
  demoCamt053(
    deliveredFileOf(payment, 'pain.001.001.09'),
    { messageId: `STM-${n}`, statementId: `S-${n}`, sequence: n },
    '2026-11-23T10:00:00Z',
  );
const status = (payment: unknown, n: number) =>
  demoPain002(deliveredFileOf(payment, 'pain.001.001.09'), `STS-${n}`, '2026-11-23T09:00:00Z');

test('statement before the status report: the booking clears the line; the later ACSC changes nothing', async () => {
  const { id, payment } = await submit('ORDER-1');
  await ingest(statement(payment, 1));
  let view = await lines(id);
  assert.equal(view.status, 'executed');
  assert.equal(view.payments[0]!.recon.state, 'cleared');
  assert.equal(view.payments[0]!.recon.evidence['source'], 'camt.053');
  await ingest(status(payment, 1));
  view = await lines(id);
  assert.equal(view.status, 'executed');
  assert.equal(view.payments[0]!.recon.evidence['source'], 'camt.053');
});

test('a late rejection after booking marks the line rejected with its reason; the document stays executed', async () => {
  const { id, payment } = await submit('ORDER-2');
  await ingest(statement(payment, 2));
  // The bank later reports the transaction rejected (e.g. returned by the creditor bank).
  const rejected = structuredClone(payment) as { payments: Array<{ transactions: Array<Record<string, unknown>> }> };
  rejected.payments[0]!.transactions[0]!['remittance'] = { unstructured: 'REJECT:AC04' };
  await ingest(status(rejected, 2));
  const view = await lines(id);
  assert.equal(view.status, 'executed');
  assert.equal(view.payments[0]!.recon.state, 'rejected');
  assert.equal(view.payments[0]!.recon.evidence['reason'], 'AC04');
  assert.equal(view.payments[0]!.recon.evidence['lateRejection'], true);
});

test('a reversal on a later statement rejects the booked line with the return evidence', async () => {
  const { id, payment } = await submit('ORDER-3');
  await ingest(statement(payment, 3));
  assert.equal((await lines(id)).payments[0]!.recon.state, 'cleared');
  const booked = statement(payment, 4);
  // The same entry, reversed: a credit with RvslInd, as banks report returns.
  const reversal = booked
    .replace('<CdtDbtInd>DBIT</CdtDbtInd><Sts>', '<CdtDbtInd>CRDT</CdtDbtInd><RvslInd>true</RvslInd><Sts>')
    .replace(
      '<Amt Ccy="EUR">125.50</Amt><CdtDbtInd>DBIT</CdtDbtInd><RltdPties>',
      '<Amt Ccy="EUR">125.50</Amt><CdtDbtInd>CRDT</CdtDbtInd><RltdPties>',
    );
  await ingest(reversal);
  const view = await lines(id);
  assert.equal(view.payments[0]!.recon.state, 'rejected');
  assert.equal(view.payments[0]!.recon.evidence['reversal'], true);
  assert.match(String(view.payments[0]!.recon.evidence['summary']), /^returned/);
});

test('an ambiguous booking never matches silently: both lines stay pending with the reason', async () => {
  const a = await submit('TWIN-A');
  const b = await submit('TWIN-B');
  // One booking that names neither end-to-end id, with the amount and creditor IBAN both lines share.
  const twin = statement(a.payment, 5)
    .replace(/<EndToEndId>[^<]*<\/EndToEndId>/, '')
    .replace(/<InstrId>[^<]*<\/InstrId>/, '')
    .replace(/<MsgId>TWIN-A<\/MsgId>/, '<MsgId>OTHER</MsgId>')
    .replace(/<PmtInfId>[^<]*<\/PmtInfId>/, '');
  await ingest(twin);
  for (const id of [a.id, b.id]) {
    const line = (await lines(id)).payments[0]!;
    assert.equal(line.recon.state, 'pending');
    assert.equal(line.recon.evidence['reason'], 'ambiguous');
  }
});
