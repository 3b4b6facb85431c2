import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { sweepOverdue } from '../../src/app/receivables/overdue.ts';
import { dispatchOutbox } from '../../src/app/webhooks/dispatch.ts';
import { manualClock } from '../../src/platform/clock.ts';
import { provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { credits, expect, expected, incoming, ingest, type Sandbox } from './support.ts';

/**
 * Receivables events on real PostgreSQL (docs/adr/0075): `incoming_payment.received` once per new
 * credit (a camt.052 and the camt.053 that repeats it give one), `expected_payment.overdue` once per
 * expected payment whose window passed with an open amount, whether the sweeper or a reader moved it,
 * and the webhook filter (bankKey, minAmount) applied to both.
 */
const clock = manualClock(new Date('2026-12-05T10:00:00Z'));
let t: TestApp;
let db: pg.Client;
before(async () => {
  t = await startTestApp({ clock });
  db = new pg.Client({ connectionString: t.databaseUrl });
  await db.connect();
});
after(async () => {
  await db.end();
  await t.close();
});

type Payload = { id: string; type: string; data: Record<string, unknown> };
async function outbox(s: Sandbox, type: string): Promise<Payload[]> {
  const res = await db.query(`SELECT id, payload FROM outbox_events WHERE company_id = $1 AND type = $2 ORDER BY id`, [
    s.companyId,
    type,
  ]);
  for (const r of res.rows) assert.equal(r.payload.id, r.id);
  return res.rows.map((r) => r.payload as Payload);
}
async function audit(s: Sandbox, type: string) {
  const res = await db.query(`SELECT metadata FROM activity_events WHERE company_id = $1 AND type = $2 ORDER BY seq`, [
    s.companyId,
    type,
  ]);
  return res.rows.map((r) => r.metadata as Record<string, unknown>);
}

test('incoming_payment.received: one per new credit, once when a camt.052 and then the camt.053 repeat it', async () => {
  const s = await provisionAndLogin(t);
  const first = [
    { amount: '10.00', ref: 'EV-1', e2e: 'E2E-EV-1', iban: 'DE89370400440532013000', text: 'invoice 1' },
    { amount: '20.00', ref: 'EV-2' },
  ];
  await ingest(t, s, credits('EV-052', first, '052'));
  // An open expected payment for the third credit: the matching path returns ids, and still one event each.
  const exp = await expect(t, s, { amount: '30.00', counterparty: { iban: 'SE4550000000058398257466' } });
  await ingest(t, s, credits('EV-053', [...first, { amount: '30.00', ref: 'EV-3', iban: 'SE4550000000058398257466' }]));
  const items = await incoming(t, s);
  assert.equal(items.length, 3);
  const events = await outbox(s, 'incoming_payment.received');
  assert.equal(events.length, 3);
  assert.deepEqual(events.map((e) => e.data.incomingPaymentId).sort(), items.map((i) => i.id).sort());
  const ten = events.find((e) => e.data.amount === '10.00')!;
  const row = items.find((i) => i.amount === '10.00')!;
  assert.deepEqual(ten.data, {
    incomingPaymentId: row.id,
    status: 'unmatched',
    amount: '10.00',
    currency: 'EUR',
    bookingDate: '2026-11-20',
    valueDate: '2026-11-20',
    counterparty: { name: 'Payer Oy', iban: 'DE89370400440532013000' },
    reference: null,
    endToEndId: 'E2E-EV-1',
    remittance: 'invoice 1',
    entry: { documentId: row.entry.documentId, entryIndex: 0, bankRef: 'EV-1' },
    bankKey: null,
    environment: 'production',
  });
  assert.equal(ten.type, 'incoming_payment.received');
  // The third credit matched: its received event and its matched event, one each.
  const thirty = items.find((i) => i.amount === '30.00')!;
  assert.equal(thirty.status, 'matched');
  const matched = await outbox(s, 'incoming_payment.matched');
  assert.deepEqual(
    matched.map((m) => m.data.incomingPaymentId),
    [thirty.id],
  );
  assert.equal((await expected(t, s, exp.id)).status, 'reconciled');
  assert.deepEqual(
    (await audit(s, 'incoming_payment.received')).map((m) => m.received),
    [2, 1],
  );
});

test('expected_payment.overdue: the sweeper moves what passed its window with an open amount, once', async () => {
  clock.set(new Date('2026-12-05T10:00:00Z'));
  const s = await provisionAndLogin(t);
  const window = { dateFrom: '2026-12-01', dateTo: '2026-12-06' };
  const open = await expect(t, s, { amount: '40.00', ...window });
  const partial = await expect(t, s, { amount: '100.00', ...window, reference: { type: 'SCOR', generate: true } });
  const paid = await expect(t, s, { amount: '60.00', ...window, counterparty: { iban: 'DE89370400440532013000' } });
  const later = await expect(t, s, { amount: '70.00', dateFrom: '2026-12-01', dateTo: '2026-12-20' });
  await ingest(
    t,
    s,
    credits('OD-053', [
      { amount: '30.00', ref: 'OD-1', scor: partial.reference!.value, day: '2026-12-04' },
      { amount: '60.00', ref: 'OD-2', iban: 'DE89370400440532013000', day: '2026-12-04' },
    ]),
  );
  assert.equal((await expected(t, s, partial.id)).status, 'partially-reconciled');
  // Nothing passed yet.
  assert.equal(await sweepOverdue(t.ctx), 0);
  clock.set(new Date('2026-12-07T00:05:00Z'));
  assert.equal(await sweepOverdue(t.ctx), 2);
  assert.equal(await sweepOverdue(t.ctx), 0, 'a second sweep moves nothing');
  const events = await outbox(s, 'expected_payment.overdue');
  const byId = new Map(events.map((e) => [e.data.expectedPaymentId, e.data]));
  assert.equal(events.length, 2);
  assert.deepEqual(byId.get(open.id), {
    expectedPaymentId: open.id,
    direction: 'credit',
    status: 'overdue',
    previousStatus: 'unreconciled',
    amount: '40.00',
    expectedAmount: '40.00',
    matchedAmount: '0.00',
    currency: 'EUR',
    dateFrom: '2026-12-01',
    dateTo: '2026-12-06',
    reference: null,
    counterparty: { name: null, iban: null },
  });
  const p = byId.get(partial.id)!;
  assert.deepEqual(
    [p.previousStatus, p.amount, p.matchedAmount, p.reference],
    ['partially-reconciled', '70.00', '30.00', partial.reference!.value],
  );
  for (const [e, status] of [
    [open, 'overdue'],
    [partial, 'overdue'],
    [paid, 'reconciled'],
    [later, 'unreconciled'],
  ] as const)
    assert.equal((await expected(t, s, e.id)).status, status, e.id);
  assert.deepEqual(await audit(s, 'expected_payment.overdue'), [{ expectedPaymentIds: [open.id, partial.id].sort() }]);
  // Reading again emits nothing more.
  assert.equal((await outbox(s, 'expected_payment.overdue')).length, 2);
  // Undoing the match of the one that was paid, after its window: overdue now, told once.
  const [match] = (await expected(t, s, paid.id)).matches as unknown as Array<{ id: string }>;
  const undone = await t.request({
    method: 'DELETE',
    url: `/reconciliation/matches/${match!.id}?companyId=${s.companyId}`,
    headers: { 'x-api-key': s.apiKey },
    payload: { reason: 'paid another invoice' },
  });
  assert.equal(undone.statusCode, 200, undone.body);
  assert.equal((await expected(t, s, paid.id)).status, 'overdue');
  const after = (await outbox(s, 'expected_payment.overdue')).filter((e) => e.data.expectedPaymentId === paid.id);
  assert.deepEqual(
    after.map((e) => [e.data.previousStatus, e.data.amount]),
    [['reconciled', '60.00']],
  );
  assert.equal(await sweepOverdue(t.ctx), 0);
});

test('expected_payment.overdue: a reader that moves it first tells it, and the sweep after it does not again', async () => {
  clock.set(new Date('2026-12-05T10:00:00Z'));
  const s = await provisionAndLogin(t);
  const e = await expect(t, s, { amount: '12.00', dateFrom: '2026-12-01', dateTo: '2026-12-06' });
  clock.set(new Date('2026-12-08T09:00:00Z'));
  const list = await t.request({
    method: 'GET',
    url: `/expected-payments?companyId=${s.companyId}&status=overdue`,
    headers: { 'x-api-key': s.apiKey },
  });
  assert.equal(list.statusCode, 200, list.body);
  assert.deepEqual(
    (list.json() as { items: { id: string }[] }).items.map((i) => i.id),
    [e.id],
  );
  assert.equal(await sweepOverdue(t.ctx), 0);
  assert.equal((await outbox(s, 'expected_payment.overdue')).length, 1);
  // Created with its window passed already: overdue from the start, with its event.
  const past = await expect(t, s, { amount: '13.00', dateFrom: '2026-12-01', dateTo: '2026-12-02' });
  assert.equal(past.status, 'overdue');
  const events = await outbox(s, 'expected_payment.overdue');
  assert.deepEqual(events.map((x) => x.data.expectedPaymentId).sort(), [e.id, past.id].sort());
});

test('webhook filter: minAmount compares the credit and the open amount, bankKey the statement bank', async () => {
  clock.set(new Date('2026-12-05T10:00:00Z'));
  const s = await provisionAndLogin(t);
  const hook = async (
    filterPredicate: Record<string, unknown>,
    eventTypes = ['incoming_payment.received', 'expected_payment.overdue'],
  ) => {
    const res = await t.request({
      method: 'POST',
      url: '/webhooks',
      headers: { 'x-api-key': s.apiKey },
      payload: {
        companyId: s.companyId,
        url: 'https://hooks.example.test/in',
        eventTypes,
        filterPredicate,
      },
    });
    assert.equal(res.statusCode, 201, res.body);
    return (res.json() as { endpoint: { id: string } }).endpoint.id;
  };
  const big = await hook({ minAmount: 25 });
  const bank = await hook({ bankKey: 'demo' });
  const otherBank = await hook({ bankKey: 'other' }, ['incoming_payment.matched']);
  const matchedOfBank = await hook({ bankKey: 'demo' }, ['incoming_payment.matched']);
  await expect(t, s, { amount: '25.00', counterparty: { iban: 'DE89370400440532013000' } });
  await expect(t, s, { amount: '26.00', dateFrom: '2026-12-01', dateTo: '2026-12-06' });
  await expect(t, s, { amount: '24.00', dateFrom: '2026-12-01', dateTo: '2026-12-06' });
  const content = credits('WH-053', [
    { amount: '25.00', ref: 'WH-1', iban: 'DE89370400440532013000' },
    { amount: '24.99', ref: 'WH-2' },
  ]);
  const res = await t.request({
    method: 'POST',
    url: '/journal/ingest',
    headers: { 'x-api-key': s.apiKey },
    payload: { companyId: s.companyId, content, bankKey: 'demo' },
  });
  assert.equal(res.statusCode, 201, res.body);
  clock.set(new Date('2026-12-07T10:00:00Z'));
  await sweepOverdue(t.ctx);
  while ((await dispatchOutbox(t.ctx)) > 0);
  const deliveries = async (endpointId: string) => {
    const rows = await db.query(
      `SELECT d.event_type, o.payload->'data'->>'amount' AS amount FROM webhook_deliveries d
         JOIN outbox_events o ON o.id = d.event_id WHERE d.endpoint_id = $1 ORDER BY d.event_type, amount`,
      [endpointId],
    );
    return rows.rows.map((r) => `${r.event_type} ${r.amount}`);
  };
  assert.deepEqual(await deliveries(big), ['expected_payment.overdue 26.00', 'incoming_payment.received 25.00']);
  // An expected payment concerns no bank: an endpoint that asks for one bank's events does not get it.
  assert.deepEqual(await deliveries(bank), ['incoming_payment.received 24.99', 'incoming_payment.received 25.00']);
  // incoming_payment.matched names the statement's bank too.
  assert.deepEqual(await deliveries(matchedOfBank), ['incoming_payment.matched 25.00']);
  assert.deepEqual(await deliveries(otherBank), []);
});

test('the overdue sweep finds its companies through expected_payments_due_idx (migration 0037)', async () => {
  await db.query('BEGIN');
  await db.query('SET LOCAL enable_seqscan = off');
  const plan = await db.query(
    `EXPLAIN SELECT DISTINCT platform_id, company_id FROM expected_payments
      WHERE status IN ('unreconciled', 'partially-reconciled') AND date_to < '2026-12-07'::date LIMIT 100`,
  );
  await db.query('ROLLBACK');
  assert.match(plan.rows.map((r) => r['QUERY PLAN']).join('\n'), /expected_payments_due_idx/);
});
