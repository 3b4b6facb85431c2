import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertError, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { statementWith } from '../support/statement-with.ts';
import { credits, expect, expected, incoming, ingest, ingestDemo } from './support.ts';

/**
 * Direction on real PostgreSQL (docs/adr/0076, 0077): an expected payment of direction `debit` is never
 * matched to a credit, neither when the statement arrives after it (the statement path) nor when it
 * is created after the credit (the late path), nor by hand; a credit expected payment is matched by
 * credits only, never by a debit entry however well its reference and amount fit. A debit expected
 * payment is matched by the statement debit that fits it (docs/adr/0077), both ways in one statement.
 */
let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(async () => {
  await t.close();
});

const PAYER = 'DE89370400440532013000';

test('a debit expected payment takes no credit: not from the statement, not late, not by hand', async () => {
  const s = await provisionAndLogin(t);
  // Statement path: the debit expected payment exists first; the credit fits it by account and amount.
  const debit = await expect(t, s, { direction: 'debit', amount: '40.00', counterparty: { iban: PAYER } });
  await ingest(t, s, credits('DIR-1', [{ amount: '40.00', ref: 'DIR-1-1', iban: PAYER }]));
  const [credit] = await incoming(t, s);
  assert.equal(credit!.status, 'unmatched');
  assert.equal((await expected(t, s, debit.id)).status, 'unreconciled');
  // Late path: a debit expected payment created after the credit it would fit.
  const late = await expect(t, s, { direction: 'debit', amount: '40.00', counterparty: { iban: PAYER } });
  assert.equal(late.status, 'unreconciled');
  assert.equal(late.openAmount, '40.00');
  assert.equal((await incoming(t, s))[0]!.status, 'unmatched');
  // The exceptions queue offers no debit expected payment for the credit.
  const queue = await t.request({
    method: 'GET',
    url: `/reconciliation/exceptions?companyId=${s.companyId}&kind=unmatched-incoming`,
    headers: { 'x-api-key': s.apiKey },
  });
  assert.equal(queue.statusCode, 200, queue.body);
  const items = (queue.json() as { items: Array<{ candidates: Array<{ ref: string }> }> }).items;
  assert.equal(items.length, 1);
  assert.deepEqual(items[0]!.candidates, []);
  const manual = await t.request({
    method: 'POST',
    url: '/reconciliation/matches',
    headers: { 'x-api-key': s.apiKey },
    payload: { companyId: s.companyId, incomingPaymentId: credit!.id, expectedPaymentIds: [debit.id], reason: 'try' },
  });
  assertError(manual, 409, 'conflict');
  assert.match(manual.json().error.message, /expects a debit/);
  // The same credit does match a credit expected payment (late path), so direction alone decided.
  const creditExpected = await expect(t, s, { amount: '40.00', counterparty: { iban: PAYER } });
  assert.equal(creditExpected.status, 'reconciled');
  assert.equal((await expected(t, s, debit.id)).status, 'unreconciled');
  assert.equal((await expected(t, s, late.id)).status, 'unreconciled');
});

test('a credit expected payment takes no debit entry, however well it fits', async () => {
  const s = await provisionAndLogin(t);
  const e = await expect(t, s, { amount: '55.00', counterparty: { iban: PAYER }, remittanceContains: 'INV-5500' });
  // Statement path: a debit of the same amount, account and invoice number.
  await ingest(
    t,
    s,
    statementWith('DIR-2', 1, [
      { amount: '55.00', direction: 'DBIT', iban: PAYER, text: 'INV-5500', ref: 'DIR-2-1', day: '2026-11-20' },
    ]),
  );
  assert.deepEqual(await incoming(t, s), []);
  assert.equal((await expected(t, s, e.id)).status, 'unreconciled');
  // Late path: another credit expected payment created after the debit arrived.
  const late = await expect(t, s, { amount: '55.00', counterparty: { iban: PAYER }, remittanceContains: 'INV-5500' });
  assert.equal(late.status, 'unreconciled');
  // A credit of the same amount is matched: both are credit payments fitting it, so it is ambiguous.
  await ingest(t, s, credits('DIR-3', [{ amount: '55.00', ref: 'DIR-3-1', iban: PAYER }]));
  const [credit] = await incoming(t, s);
  assert.equal(credit!.status, 'unmatched', 'two credit expected payments fit: ambiguous, for a person');
});

test('one statement, a credit and a debit of the same amount and account: each expected payment takes its own', async () => {
  const s = await provisionAndLogin(t);
  const taken = await expect(t, s, { direction: 'debit', amount: '60.00', counterparty: { iban: PAYER } });
  const received = await expect(t, s, { amount: '60.00', counterparty: { iban: PAYER } });
  const doc = await ingestDemo(
    t,
    s,
    statementWith('DIR-4', 1, [
      { amount: '60.00', direction: 'CRDT', iban: PAYER, ref: 'DIR-4-0', day: '2026-11-20' },
      { amount: '60.00', direction: 'DBIT', iban: PAYER, ref: 'DIR-4-1', day: '2026-11-20' },
    ]),
  );
  const [credit] = await incoming(t, s);
  assert.equal(credit!.status, 'matched');
  const debitSide = await expected(t, s, taken.id);
  assert.equal(debitSide.status, 'reconciled');
  const debitMatch = debitSide.matches[0] as unknown as Record<string, unknown>;
  assert.deepEqual(
    [debitMatch['entry'], debitMatch['incomingPaymentId']],
    [{ documentId: doc, entryIndex: 1 }, undefined],
  );
  const creditSide = await expected(t, s, received.id);
  assert.equal(creditSide.status, 'reconciled');
  assert.deepEqual(
    creditSide.matches.map((m) => m.incomingPaymentId),
    [credit!.id],
  );
  // By hand, a statement debit for a credit expected payment: debit-expected.test.ts (409, expects a credit).
});
