import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { credits, expect, incoming, ingest } from './support.ts';

/**
 * An expected payment created after its credit arrived (docs/adr/0075): matched when it is created
 * (or changed), by the same rules and with the same evidence as a statement's credits, and an
 * ambiguous candidate set still matches nothing.
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

type Created = {
  id: string;
  status: string;
  openAmount: string;
  matches: Array<{ rule: string; amount: string; amountDelta: string; daysDelta: number; incomingPaymentId: string }>;
};

test('a new expected payment matches the credits already received, rule by rule, and an ambiguous set stays', async () => {
  const s = await provisionAndLogin(t);
  const issued = await t.request({
    method: 'POST',
    url: '/references',
    headers: { 'x-api-key': s.apiKey },
    payload: { companyId: s.companyId, type: 'SCOR', base: '539007547034' },
  });
  const rf = (issued.json() as { value: string }).value;
  const other = await t.request({
    method: 'POST',
    url: '/references',
    headers: { 'x-api-key': s.apiKey },
    payload: { companyId: s.companyId, type: 'SCOR', base: '4455667' },
  });
  const rf2 = (other.json() as { value: string }).value;
  // Two expected payments that both fit the 66.00 credit: it arrives ambiguous.
  const amb = [
    await expect(t, s, { amount: '66.00', counterparty: { iban: 'SE4550000000058398257466' } }),
    await expect(t, s, { amount: '66.00', counterparty: { iban: 'SE4550000000058398257466' } }),
  ];
  await ingest(
    t,
    s,
    credits('LATE-053', [
      { amount: '100.00', ref: 'L-1', scor: 'RF18 5390 0754 7034' },
      { amount: '50.00', ref: 'L-2', iban: 'DE89370400440532013000' },
      { amount: '75.50', ref: 'L-3', text: 'Payment for invoice INV-7788 thanks' },
      { amount: '66.00', ref: 'L-4', iban: 'SE4550000000058398257466' },
      { amount: '20.00', ref: 'L-5', iban: 'NO9386011117947' },
      { amount: '40.00', ref: 'L-6', e2e: 'ORDER-5521' },
      { amount: '12.00', ref: 'L-7', scor: rf2 },
    ]),
  );
  const credit = async (amount: string) => (await incoming(t, s)).find((i) => i.amount === amount)!;
  await t.request({
    method: 'PUT',
    url: '/reconciliation/settings',
    headers: { 'x-api-key': s.apiKey },
    payload: { companyId: s.companyId, toleranceAmount: '0.50', tolerancePercent: '0', windowDays: 5 },
  });

  const cases: Array<[Record<string, unknown>, string, string, string, string]> = [
    [{ amount: '100.00', reference: { type: 'SCOR', value: rf } }, '100.00', 'structured-reference', '100.00', '0.00'],
    [{ amount: '40.00', remittanceContains: 'ORDER-5521' }, '40.00', 'end-to-end-id', '40.00', '0.00'],
    [
      { amount: '50.00', counterparty: { iban: 'DE89370400440532013000' } },
      '50.00',
      'amount-counterparty',
      '50.00',
      '0.00',
    ],
    [{ amount: '76.00', remittanceContains: 'INV-7788' }, '75.50', 'tolerance-remittance', '75.50', '-0.50'],
  ];
  for (const [body, creditAmount, rule, amount, delta] of cases) {
    const c = await credit(creditAmount);
    const created = (await expect(t, s, body)) as unknown as Created;
    assert.equal(created.status, 'reconciled', rule);
    assert.equal(created.openAmount, '0.00', rule);
    assert.deepEqual(
      created.matches.map((m) => [m.rule, m.amount, m.amountDelta, m.daysDelta, m.incomingPaymentId]),
      [[rule, amount, delta, 0, c.id]],
    );
    assert.equal((await credit(creditAmount)).status, 'matched', rule);
  }

  // A reference names the credit whatever the window says (rule 1 has none); the days are its evidence.
  const far = (await expect(t, s, {
    amount: '12.00',
    reference: { type: 'SCOR', value: rf2 },
    dateFrom: '2027-01-01',
    dateTo: '2027-01-31',
  })) as unknown as Created;
  assert.deepEqual(
    far.matches.map((m) => [m.rule, m.amount, m.daysDelta, m.incomingPaymentId]),
    [['structured-reference', '12.00', -42, (await credit('12.00')).id]],
  );

  // A third candidate for the ambiguous credit: still ambiguous, nothing matched, the credit left for a person.
  const third = (await expect(t, s, {
    amount: '66.00',
    counterparty: { iban: 'SE4550000000058398257466' },
  })) as unknown as Created;
  assert.deepEqual([third.status, third.matches.length], ['unreconciled', 0]);
  const ambiguous = await db.query(`SELECT status, review_note FROM incoming_payments WHERE id = $1`, [
    (await credit('66.00')).id,
  ]);
  assert.equal(ambiguous.rows[0].status, 'unmatched');
  assert.match(
    ambiguous.rows[0].review_note,
    new RegExp(`amount-counterparty.*${amb[0]!.id}.*${amb[1]!.id}.*${third.id}`),
  );

  // Outside its window it does not match; moved over the credit's date by PATCH, it does.
  const late = (await expect(t, s, {
    amount: '20.00',
    counterparty: { iban: 'NO9386011117947' },
    dateFrom: '2027-01-10',
  })) as unknown as Created;
  assert.deepEqual([late.status, late.matches.length], ['unreconciled', 0]);
  const moved = await t.request({
    method: 'PATCH',
    url: `/expected-payments/${late.id}`,
    headers: { 'x-api-key': s.apiKey },
    payload: { companyId: s.companyId, dateFrom: '2026-11-18' },
  });
  assert.equal(moved.statusCode, 200, moved.body);
  const patched = moved.json() as Created;
  assert.equal(patched.status, 'reconciled');
  assert.deepEqual(
    patched.matches.map((m) => [m.rule, m.amount, m.incomingPaymentId]),
    [['amount-counterparty', '20.00', (await credit('20.00')).id]],
  );

  // The same events and audit as a statement's matching, the audit naming what set it off.
  const events = await db.query(
    `SELECT type, count(*)::int AS n FROM outbox_events WHERE company_id = $1
        AND type IN ('incoming_payment.matched', 'expected_payment.reconciled') GROUP BY type ORDER BY type`,
    [s.companyId],
  );
  assert.deepEqual(
    events.rows.map((r) => [r.type, r.n]),
    [
      ['expected_payment.reconciled', 6],
      ['incoming_payment.matched', 6],
    ],
  );
  const audit = await db.query(
    `SELECT metadata FROM activity_events WHERE company_id = $1 AND type = 'reconciliation.matched'
        AND metadata->>'trigger' = 'expected-payment' ORDER BY seq`,
    [s.companyId],
  );
  assert.equal(audit.rows.length, 7);
  assert.deepEqual(
    audit.rows.map((r) => r.metadata.matched),
    [1, 1, 1, 1, 1, 0, 1],
  );
});
