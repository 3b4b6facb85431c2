import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { camt054Returns, mt940Storno } from '../support/return-files.ts';
import { credits, expect, expected, ingest, type Sandbox } from './support.ts';

/**
 * Reversed incoming payments on real PostgreSQL (issue 39, docs/adr/0076): a statement debit with the
 * reversal indicator (or return information) that points back to a credit, by end-to-end id or failing
 * one by amount and counterparty within 14 days, returns that incoming payment, releases what it had
 * matched (exact sums, statuses through their transitions), keeps the entry as evidence, and emits
 * `incoming_payment.returned` once however many statements repeat the reversal.
 */
let t: TestApp;
let db: pg.Client;
before(async () => {
  t = await startTestApp();
  db = new pg.Client({ connectionString: t.databaseUrl });
  await db.connect();
});
after(async () => {
  await db.end();
  await t.close();
});

const PAYER = 'DE89370400440532013000';

async function incomingOf(s: Sandbox, id: string) {
  const res = await t.request({
    method: 'GET',
    url: `/incoming-payments/${id}?companyId=${s.companyId}`,
    headers: { 'x-api-key': s.apiKey },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as {
    status: string;
    matchedAmount: string;
    openAmount: string;
    matches: unknown[];
    returned: Record<string, unknown> | null;
  };
}
async function outbox(s: Sandbox, type: string) {
  const res = await db.query(`SELECT payload FROM outbox_events WHERE company_id = $1 AND type = $2 ORDER BY id`, [
    s.companyId,
    type,
  ]);
  return res.rows.map((r) => r.payload as { data: Record<string, unknown> });
}
async function audit(s: Sandbox, type: string) {
  const res = await db.query(`SELECT metadata FROM activity_events WHERE company_id = $1 AND type = $2 ORDER BY seq`, [
    s.companyId,
    type,
  ]);
  return res.rows.map((r) => r.metadata as Record<string, unknown>);
}

test('a reversal by end-to-end id returns the matched credit, releases its expected payment, once for two statements', async () => {
  const s = await provisionAndLogin(t);
  const exp = await expect(t, s, { amount: '100.00', counterparty: { iban: PAYER } });
  await ingest(t, s, credits('RV-053', [{ amount: '100.00', ref: 'RV-1', e2e: 'E2E-RV-1', iban: PAYER }]));
  const before = await expected(t, s, exp.id);
  assert.equal(before.status, 'reconciled');
  const creditId = before.matches[0]!.incomingPaymentId;
  const reversal = {
    amount: '100.00',
    day: '2026-11-24',
    ref: 'RV-REV-1',
    e2e: 'E2E-RV-1',
    iban: PAYER,
    reason: 'AC04',
    direction: 'DBIT' as const,
  };
  await ingest(t, s, camt054Returns('RV-054', [reversal]));
  const credit = await incomingOf(s, creditId);
  assert.equal(credit.status, 'returned');
  assert.equal(credit.matchedAmount, '0.00');
  assert.deepEqual(credit.matches, []);
  const matchId = (await db.query(`SELECT id FROM receivable_matches WHERE incoming_payment_id = $1`, [creditId]))
    .rows[0].id as string;
  const documentId = (credit.returned!.entry as { documentId: string }).documentId;
  assert.deepEqual(credit.returned, {
    rule: 'return',
    matchedBy: 'end-to-end-id',
    reason: 'AC04',
    amount: '100.00',
    bookingDate: '2026-11-24',
    entry: { documentId, entryIndex: 0, bankRef: 'RV-REV-1' },
    previousStatus: 'matched',
    released: [{ matchId, expectedPaymentId: exp.id, amount: '100.00' }],
    returnedAt: credit.returned!.returnedAt,
  });
  const after1 = await expected(t, s, exp.id);
  assert.equal(after1.status, 'unreconciled');
  assert.equal(after1.openAmount, '100.00');
  assert.equal(after1.matchedAmount, '0.00');
  assert.deepEqual(after1.matches, []);
  const match = (await db.query(`SELECT unmatched_by, unmatch_reason FROM receivable_matches WHERE id = $1`, [matchId]))
    .rows[0];
  assert.deepEqual(match, { unmatched_by: 'reversal', unmatch_reason: 'returned: AC04' });
  // The entry is explained: no longer listed unmatched.
  const entry = (
    await db.query(`SELECT note, matched_document_id FROM unmatched_entries WHERE company_id = $1`, [s.companyId])
  ).rows;
  assert.equal(entry.length, 1);
  assert.equal(entry[0].note, `reverses ${creditId} (end-to-end-id)`);
  assert.notEqual(entry[0].matched_document_id, null);

  // The day's camt.053 repeats the reversal: nothing moves twice.
  const repeat = camt054Returns('RV-054B', [reversal]);
  await ingest(t, s, repeat);
  const events = await outbox(s, 'incoming_payment.returned');
  assert.equal(events.length, 1);
  assert.deepEqual(events[0]!.data, {
    incomingPaymentId: creditId,
    status: 'returned',
    previousStatus: 'matched',
    amount: '100.00',
    currency: 'EUR',
    endToEndId: 'E2E-RV-1',
    reason: 'AC04',
    matchedBy: 'end-to-end-id',
    entry: { documentId, entryIndex: 0, bankRef: 'RV-REV-1' },
    released: [{ matchId, expectedPaymentId: exp.id, amount: '100.00', status: 'unreconciled' }],
    bankKey: null,
    environment: 'production',
  });
  const trail = await audit(s, 'incoming_payment.returned');
  assert.equal(trail.length, 1);
  const entryId = Number(
    (await db.query(`SELECT id FROM unmatched_entries WHERE company_id = $1`, [s.companyId])).rows[0].id,
  );
  assert.deepEqual(trail[0]!.returned, [
    { incomingPaymentId: creditId, entryId, matchedBy: 'end-to-end-id', reason: 'AC04' },
  ]);
  // A returned credit takes no manual match.
  const manual = await t.request({
    method: 'POST',
    url: '/reconciliation/matches',
    headers: { 'x-api-key': s.apiKey },
    payload: { companyId: s.companyId, incomingPaymentId: creditId, expectedPaymentIds: [exp.id], reason: 'try' },
  });
  assert.equal(manual.statusCode, 409, manual.body);
});

test('a reversal without identifiers finds the credit by amount and counterparty; a partial payment reopens exactly', async () => {
  const s = await provisionAndLogin(t);
  const exp = await expect(t, s, { amount: '100.00', reference: { type: 'SCOR', generate: true } });
  const scor = exp.reference!.value;
  await ingest(
    t,
    s,
    credits('RP-053', [
      { amount: '60.00', ref: 'RP-1', scor, iban: 'SE4550000000058398257466' },
      { amount: '40.00', ref: 'RP-2', scor, iban: PAYER },
    ]),
  );
  const before = await expected(t, s, exp.id);
  assert.equal(before.status, 'reconciled');
  assert.equal(before.matches.length, 2);
  const forty = before.matches.find((m) => m.amount === '40.00')!.incomingPaymentId;
  const sixty = before.matches.find((m) => m.amount === '60.00')!.incomingPaymentId;
  await ingest(
    t,
    s,
    camt054Returns('RP-054', [{ amount: '40.00', day: '2026-11-27', ref: 'RP-REV', iban: PAYER, direction: 'DBIT' }]),
  );
  const credit = await incomingOf(s, forty);
  assert.equal(credit.status, 'returned');
  assert.equal(credit.returned!.matchedBy, 'amount-counterparty');
  assert.equal(credit.returned!.reason, 'reversal');
  assert.equal((await incomingOf(s, sixty)).status, 'matched');
  const after1 = await expected(t, s, exp.id);
  assert.equal(after1.status, 'partially-reconciled');
  assert.equal(after1.openAmount, '40.00');
  assert.equal(after1.matchedAmount, '60.00');
  assert.deepEqual(
    after1.matches.map((m) => m.incomingPaymentId),
    [sixty],
  );
  // Outside the 14 days, or another account: no credit is taken.
  await ingest(
    t,
    s,
    camt054Returns('RP-054B', [
      { amount: '60.00', day: '2026-12-20', ref: 'RP-REV-2', iban: 'SE4550000000058398257466', direction: 'DBIT' },
      { amount: '60.00', day: '2026-11-27', ref: 'RP-REV-3', iban: 'FI2112345600000785', direction: 'DBIT' },
    ]),
  );
  assert.equal((await incomingOf(s, sixty)).status, 'matched');
  assert.equal((await outbox(s, 'incoming_payment.returned')).length, 1);
});

test('two equal credits of one payer: a reversal without identifiers is ambiguous and returns neither', async () => {
  const s = await provisionAndLogin(t);
  await ingest(
    t,
    s,
    credits('RA-053', [
      { amount: '25.00', ref: 'RA-1', iban: PAYER },
      { amount: '25.00', ref: 'RA-2', iban: PAYER },
    ]),
  );
  await ingest(
    t,
    s,
    camt054Returns('RA-054', [{ amount: '25.00', day: '2026-11-22', ref: 'RA-REV', iban: PAYER, direction: 'DBIT' }]),
  );
  const statuses = (await db.query(`SELECT status FROM incoming_payments WHERE company_id = $1`, [s.companyId])).rows;
  assert.deepEqual(
    statuses.map((r) => r.status),
    ['unmatched', 'unmatched'],
  );
  const entry = (
    await db.query(`SELECT note, matched_document_id FROM unmatched_entries WHERE company_id = $1`, [s.companyId])
  ).rows[0];
  assert.match(entry.note, /^ambiguous reversal \(amount-counterparty\): inc_\S+, inc_\S+$/);
  assert.equal(entry.matched_document_id, null);
  assert.equal((await outbox(s, 'incoming_payment.returned')).length, 0);
});

test('a reversal naming an end-to-end id that is none of our credits takes no credit by amount', async () => {
  const s = await provisionAndLogin(t);
  await ingest(t, s, credits('RN-053', [{ amount: '30.00', ref: 'RN-1', e2e: 'E2E-OURS', iban: PAYER }]));
  await ingest(
    t,
    s,
    camt054Returns('RN-054', [
      { amount: '30.00', day: '2026-11-22', ref: 'RN-REV', e2e: 'E2E-THEIRS', iban: PAYER, direction: 'DBIT' },
    ]),
  );
  const rows = (await db.query(`SELECT status FROM incoming_payments WHERE company_id = $1`, [s.companyId])).rows;
  assert.deepEqual(rows, [{ status: 'unmatched' }]);
});

test('an MT940 storno of a credit (RC) returns it by amount and counterparty', async () => {
  const s = await provisionAndLogin(t);
  await ingest(t, s, credits('RM-053', [{ amount: '12.00', ref: 'RM-1', iban: PAYER, day: '2026-11-20' }]));
  // The storno of a debit is RD (money back: an outbound return, docs/adr/0070); of a credit, RC.
  const storno = mt940Storno('RM-940', { amount: '12.00', day: '2026-11-23', iban: PAYER, bankRef: 'RM-REV' }).replace(
    'RD12,00',
    'RC12,00',
  );
  assert.match(storno, /:61:\d{10}RC12,00/);
  await ingest(t, s, storno);
  const rows = (
    await db.query(`SELECT id, status, return_evidence FROM incoming_payments WHERE company_id = $1`, [s.companyId])
  ).rows;
  assert.equal(rows.length, 1);
  assert.equal(rows[0].status, 'returned');
  assert.equal(rows[0].return_evidence.matchedBy, 'amount-counterparty');
  assert.equal(rows[0].return_evidence.reason, 'reversal');
  assert.equal(rows[0].return_evidence.bookingDate, '2026-11-23');
  const [event] = await outbox(s, 'incoming_payment.returned');
  assert.equal(event!.data.incomingPaymentId, rows[0].id);
});
