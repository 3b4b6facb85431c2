import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { manualClock } from '../../src/platform/clock.ts';
import { get as getPage, post as postForm, signIn } from '../dashboard/support.ts';
import { assertError, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { type Entry, statementWith } from '../support/statement-with.ts';
import { expect, ingestDemo, type Sandbox } from './support.ts';

/**
 * Debit expected payments (docs/adr/0077) on real PostgreSQL: money the company expects to be taken (a
 * supplier's direct debit, a loan instalment, a tax) is matched to the statement debits no outbound
 * line took, by the receivables' rules in their order (structured reference, end-to-end id, amount and
 * counterparty, tolerance with the remittance), 1:N and N:1 with exact open amounts, once however many
 * statements repeat the entry, late (the expected payment after the debit), and by hand, with the match
 * naming the statement entry instead of an incoming payment.
 */
const clock = manualClock(new Date('2026-11-21T09:00:00Z'));
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

const SUPPLIER = 'DE89370400440532013000';
const TAX = 'FI5542345670000081';
const BANK = 'SE4550000000058398257466';
const OTHER = 'FR1420041010050500013M02606';

type MatchView = {
  id: string;
  rule: string;
  manual: boolean;
  amount: string;
  amountDelta: string;
  daysDelta: number;
  incomingPaymentId?: string;
  entry?: { documentId: string; entryIndex: number | null };
  expectedPaymentId: string;
  actorUserId: string | null;
  reason: string | null;
};
type ExpectedView = { id: string; status: string; openAmount: string; matchedAmount: string; matches: MatchView[] };

const debit = (e: Omit<Entry, 'direction'>): Entry => ({ direction: 'DBIT', day: '2026-11-20', ...e });

async function get(s: Sandbox, id: string): Promise<ExpectedView> {
  const res = await t.request({
    method: 'GET',
    url: `/expected-payments/${id}?companyId=${s.companyId}`,
    headers: { 'x-api-key': s.apiKey },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as ExpectedView;
}

const expectDebit = async (s: Sandbox, body: Record<string, unknown>) =>
  (await expect(t, s, { direction: 'debit', ...body })) as unknown as ExpectedView;

async function entries(s: Sandbox) {
  const r = await db.query(
    `SELECT document_id, entry_index, amount, matched_minor::text AS matched, matched_document_id, note
       FROM unmatched_entries WHERE company_id = $1 ORDER BY id`,
    [s.companyId],
  );
  return r.rows as Array<{
    document_id: string;
    entry_index: number;
    amount: string;
    matched: string;
    matched_document_id: string | null;
    note: string | null;
  }>;
}

async function settings(s: Sandbox, body: Record<string, unknown>) {
  const res = await t.request({
    method: 'PUT',
    url: '/reconciliation/settings',
    headers: { 'x-api-key': s.apiKey },
    payload: { companyId: s.companyId, ...body },
  });
  assert.equal(res.statusCode, 200, res.body);
}

const outboxCount = async (s: Sandbox, type: string) =>
  (
    await db.query(`SELECT payload FROM outbox_events WHERE company_id = $1 AND type = $2`, [s.companyId, type])
  ).rows.map((r) => r.payload.data as Record<string, unknown>);

test('each rule matches a statement debit to a debit expected payment, naming the entry; a bare amount matches nothing', async () => {
  const s = await provisionAndLogin(t);
  await settings(s, { toleranceAmount: '1.00', tolerancePercent: '0', windowDays: 5 });
  const byRef = await expectDebit(s, {
    amount: '120.00',
    reference: { type: 'SCOR', value: 'RF18539007547034' },
    counterparty: { iban: SUPPLIER },
  });
  const byE2e = await expectDebit(s, { amount: '250.00', remittanceContains: 'LOAN-2026-11' });
  const byAccount = await expectDebit(s, { amount: '80.00', counterparty: { iban: TAX } });
  const byText = await expectDebit(s, { amount: '45.00', remittanceContains: 'INV-7781' });
  const doc = await ingestDemo(
    t,
    s,
    statementWith('DEB-RULES', 1, [
      // 0: the tax's amount from another account: nothing matches on a bare amount.
      debit({ amount: '80.00', iban: OTHER, ref: 'DEB-R-0' }),
      // 1: the supplier's direct debit quoting the creditor reference (printed in groups).
      debit({ amount: '120.00', iban: SUPPLIER, scor: 'RF18 5390 0754 7034', ref: 'DEB-R-1' }),
      // 2: the loan instalment with the loan number as its end-to-end id.
      debit({ amount: '250.00', iban: BANK, e2e: 'LOAN-2026-11', ref: 'DEB-R-2' }),
      // 3: the tax: amount and account.
      debit({ amount: '80.00', iban: TAX, ref: 'DEB-R-3' }),
      // 4: 0.50 short, within the 1.00 tolerance, the invoice number in the remittance.
      debit({ amount: '44.50', iban: OTHER, text: 'collection INV-7781 Nov', ref: 'DEB-R-4' }),
    ]),
  );
  const cases: Array<[ExpectedView, string, string, string, number]> = [
    [byRef, 'structured-reference', '120.00', '0.00', 1],
    [byE2e, 'end-to-end-id', '250.00', '0.00', 2],
    [byAccount, 'amount-counterparty', '80.00', '0.00', 3],
    [byText, 'tolerance-remittance', '44.50', '-0.50', 4],
  ];
  for (const [e, rule, amount, amountDelta, entryIndex] of cases) {
    const now = await get(s, e.id);
    assert.deepEqual([now.status, now.openAmount], ['reconciled', '0.00'], rule);
    assert.equal(now.matches.length, 1, rule);
    const m = now.matches[0]!;
    assert.deepEqual(
      [m.rule, m.manual, m.amount, m.amountDelta, m.daysDelta, m.entry, m.incomingPaymentId],
      [rule, false, amount, amountDelta, 0, { documentId: doc, entryIndex }, undefined],
      rule,
    );
    assert.match(m.id, /^mat_/);
  }
  // The matched debits left the unmatched list (matched in full); the bare amount stays on it.
  const rows = await entries(s);
  assert.deepEqual(
    rows.map((r) => [r.entry_index, r.matched, r.matched_document_id === null]),
    [
      [0, '0', true],
      [1, '12000', false],
      [2, '25000', false],
      [3, '8000', false],
      [4, '4450', false],
    ],
  );
  assert.match(rows[1]!.note!, new RegExp(`debit expected payment ${byRef.id}`));
  // Events and audit as for credits.
  const reconciled = await outboxCount(s, 'expected_payment.reconciled');
  assert.deepEqual(
    reconciled.map((d) => [d.expectedPaymentId, d.direction]).sort(),
    [byRef.id, byE2e.id, byAccount.id, byText.id].sort().map((id) => [id, 'debit']),
  );
  const audit = await db.query(
    `SELECT metadata FROM activity_events WHERE company_id = $1 AND type = 'reconciliation.matched'`,
    [s.companyId],
  );
  assert.deepEqual(
    audit.rows.map((r) => [r.metadata.direction, r.metadata.matched, r.metadata.ambiguous]),
    [['debit', 4, 0]],
  );
});

test('1:N and N:1 with exact open amounts; two candidates that do not add up are ambiguous', async () => {
  const s = await provisionAndLogin(t);
  // 1:N: one direct debit collects two invoices named in its remittance, their amounts adding up to it.
  const a1 = await expectDebit(s, { amount: '30.00', remittanceContains: 'INV-A1' });
  const a2 = await expectDebit(s, { amount: '20.25', remittanceContains: 'INV-A2' });
  // N:1: a loan instalment of 300.00 taken in two debits quoting its reference.
  const loan = await expectDebit(s, { amount: '300.00', reference: { type: 'SCOR', value: 'RF18539007547034' } });
  // Ambiguous: two expected payments from one account, one debit fitting both.
  const b1 = await expectDebit(s, { amount: '15.00', counterparty: { iban: SUPPLIER } });
  const b2 = await expectDebit(s, { amount: '15.00', counterparty: { iban: SUPPLIER } });
  const first = await ingestDemo(
    t,
    s,
    statementWith('DEB-N-1', 1, [
      debit({ amount: '50.25', iban: OTHER, text: 'INV-A1 INV-A2', ref: 'DEB-N-1-0' }),
      debit({ amount: '100.00', iban: BANK, scor: 'RF18539007547034', ref: 'DEB-N-1-1' }),
      debit({ amount: '15.00', iban: SUPPLIER, ref: 'DEB-N-1-2' }),
    ]),
  );
  for (const [e, amount] of [
    [a1, '30.00'],
    [a2, '20.25'],
  ] as const) {
    const now = await get(s, e.id);
    assert.deepEqual([now.status, now.openAmount, now.matchedAmount], ['reconciled', '0.00', amount]);
    assert.deepEqual(
      now.matches.map((m) => [m.rule, m.amount, m.entry]),
      [['tolerance-remittance', amount, { documentId: first, entryIndex: 0 }]],
    );
  }
  const partial = await get(s, loan.id);
  assert.deepEqual(
    [partial.status, partial.openAmount, partial.matchedAmount],
    ['partially-reconciled', '200.00', '100.00'],
  );
  for (const e of [b1, b2]) assert.equal((await get(s, e.id)).status, 'unreconciled');
  const ambiguous = (await entries(s))[2]!;
  assert.equal(ambiguous.matched_document_id, null);
  assert.equal(ambiguous.note, `ambiguous (amount-counterparty): ${[b1.id, b2.id].sort().join(', ')}`);

  // The second instalment settles the rest exactly (a minute later: the matches in their order).
  clock.advance(60_000);
  const second = await ingestDemo(
    t,
    s,
    statementWith('DEB-N-2', 2, [
      debit({ amount: '200.00', iban: BANK, scor: 'RF18539007547034', ref: 'DEB-N-2-0', day: '2026-11-21' }),
    ]),
  );
  const settled = await get(s, loan.id);
  assert.deepEqual([settled.status, settled.openAmount, settled.matchedAmount], ['reconciled', '0.00', '300.00']);
  assert.deepEqual(
    settled.matches.map((m) => [m.rule, m.amount, m.amountDelta, m.entry]),
    [
      ['structured-reference', '100.00', '-200.00', { documentId: first, entryIndex: 1 }],
      ['structured-reference', '200.00', '0.00', { documentId: second, entryIndex: 0 }],
    ],
  );
  // An overpayment by reference takes what the expected payment takes; the rest of the debit stays open.
  const fee = await expectDebit(s, { amount: '10.00', reference: { type: 'SCOR', value: 'RF712348231' } });
  await ingestDemo(
    t,
    s,
    statementWith('DEB-N-3', 3, [debit({ amount: '12.00', scor: 'RF712348231', ref: 'DEB-N-3-0' })]),
  );
  assert.deepEqual(
    (await get(s, fee.id)).matches.map((m) => [m.amount, m.amountDelta]),
    [['10.00', '2.00']],
  );
  const over = (await entries(s)).at(-1)!;
  assert.deepEqual([over.matched, over.matched_document_id], ['1000', null]);
});

test('the same debit in a camt.052 and then the camt.053 is matched once', async () => {
  const s = await provisionAndLogin(t);
  const tax = await expectDebit(s, { amount: '75.00', counterparty: { iban: TAX } });
  const other = await expectDebit(s, { amount: '33.00', counterparty: { iban: TAX } });
  const intraday = [debit({ amount: '75.00', iban: TAX, ref: 'DEB-ONCE-1' })];
  const report = await ingestDemo(t, s, statementWith('DEB-ONCE-052', 1, intraday, '052'));
  await ingestDemo(
    t,
    s,
    statementWith('DEB-ONCE-053', 1, [...intraday, debit({ amount: '33.00', iban: TAX, ref: 'DEB-ONCE-2' })]),
  );
  const now = await get(s, tax.id);
  assert.deepEqual([now.status, now.matchedAmount], ['reconciled', '75.00']);
  assert.deepEqual(
    now.matches.map((m) => m.entry),
    [{ documentId: report, entryIndex: 0 }],
  );
  assert.equal((await get(s, other.id)).status, 'reconciled');
  const count = await db.query(`SELECT count(*)::int AS n FROM receivable_matches WHERE company_id = $1`, [
    s.companyId,
  ]);
  assert.equal(count.rows[0].n, 2);
  assert.equal((await outboxCount(s, 'expected_payment.reconciled')).length, 2);
});

test('late: a debit expected payment created after its debit arrived is matched at once, through the same rules', async () => {
  const s = await provisionAndLogin(t);
  const doc = await ingestDemo(
    t,
    s,
    statementWith('DEB-LATE', 1, [
      debit({ amount: '61.00', iban: SUPPLIER, ref: 'DEB-L-0' }),
      debit({ amount: '61.00', iban: SUPPLIER, ref: 'DEB-L-1', day: '2026-11-19' }),
      debit({ amount: '18.00', iban: OTHER, text: 'Direct debit INV-9911', ref: 'DEB-L-2' }),
    ]),
  );
  // Nothing was expected when the statement came: every debit is on the unmatched list.
  assert.deepEqual(
    (await entries(s)).map((r) => r.matched),
    ['0', '0', '0'],
  );
  const late = await expectDebit(s, { amount: '18.00', remittanceContains: 'INV-9911' });
  assert.deepEqual([late.status, late.openAmount], ['reconciled', '0.00']);
  assert.deepEqual(
    late.matches.map((m) => [m.rule, m.amount, m.entry]),
    [['tolerance-remittance', '18.00', { documentId: doc, entryIndex: 2 }]],
  );
  // Two debits fit one expected payment by account and amount: each debit has one candidate, so the
  // first in booking order takes it (as for credits); the other stays for the next one.
  const one = await expectDebit(s, { amount: '61.00', counterparty: { iban: SUPPLIER } });
  assert.deepEqual(
    one.matches.map((m) => [m.rule, m.entry]),
    [['amount-counterparty', { documentId: doc, entryIndex: 1 }]],
  );
  const two = await expectDebit(s, { amount: '61.00', counterparty: { iban: SUPPLIER } });
  assert.deepEqual(
    two.matches.map((m) => m.entry),
    [{ documentId: doc, entryIndex: 0 }],
  );
  const audit = await db.query(
    `SELECT metadata FROM activity_events WHERE company_id = $1 AND type = 'reconciliation.matched' ORDER BY seq`,
    [s.companyId],
  );
  assert.deepEqual(
    audit.rows.map((r) => [r.metadata.trigger, r.metadata.expectedPaymentId, r.metadata.direction, r.metadata.matched]),
    [
      ['expected-payment', late.id, 'debit', 1],
      ['expected-payment', one.id, 'debit', 1],
      ['expected-payment', two.id, 'debit', 1],
    ],
  );
  // A credit expected payment created now takes none of the remaining debits (direction).
  const credit = await expect(t, s, { amount: '61.00', counterparty: { iban: SUPPLIER } });
  assert.equal(credit.status, 'unreconciled');
});

test('an overdue debit expected payment: the nearest debits with why, a manual match and its unmatch, audited', async () => {
  // Twenty days on (the session is signed in then): the debits were booked before the window closed.
  clock.advance(20 * 86_400_000);
  const s = await provisionAndLogin(t);
  const session = { 'x-session-token': s.sessionToken };
  const doc = await ingestDemo(
    t,
    s,
    statementWith('DEB-MAN', 1, [
      debit({ amount: '99.00', iban: OTHER, ref: 'DEB-M-0', day: '2026-11-18' }),
      debit({ amount: '7.00', iban: OTHER, ref: 'DEB-M-1', day: '2026-11-18' }),
      { amount: '99.00', direction: 'DBIT', reversal: true, ref: 'DEB-M-2', day: '2026-11-18' },
    ]),
  );
  const e = await expectDebit(s, {
    amount: '100.00',
    reference: { type: 'SCOR', value: 'RF18539007547034' },
    dateFrom: '2026-11-15',
    dateTo: '2026-11-30',
  });
  assert.equal(e.status, 'overdue');
  const creditExpected = await expect(t, s, { amount: '99.00' });

  const queue = await t.request({
    method: 'GET',
    url: `/reconciliation/exceptions?companyId=${s.companyId}&kind=overdue-expected`,
    headers: session,
  });
  assert.equal(queue.statusCode, 200, queue.body);
  type Candidate = {
    ref: string;
    amountDelta: string;
    referenceMatch: boolean;
    why: string;
    entry?: { documentId: string; entryIndex: number };
  };
  const items = (
    queue.json() as {
      items: Array<{ subject: { expectedPaymentId: string; direction: string }; candidates: Candidate[] }>;
    }
  ).items;
  assert.deepEqual(
    items.map((i) => [i.subject.expectedPaymentId, i.subject.direction]),
    [[e.id, 'debit']],
  );
  // The open debits, nearest first; the reversal is no candidate.
  const candidates = items[0]!.candidates;
  assert.deepEqual(
    candidates.map((c) => [c.amountDelta, c.referenceMatch, c.entry]),
    [
      ['-1.00', false, { documentId: doc, entryIndex: 0 }],
      ['-93.00', false, { documentId: doc, entryIndex: 1 }],
    ],
  );
  assert.match(candidates[0]!.ref, /^unmatched-entry:\d+$/);
  assert.match(candidates[0]!.why, /reference RF18539007547034 is not on the debit/);
  assert.match(candidates[0]!.why, /amount differs by -100 minor units/);

  const match = (payload: Record<string, unknown>, headers: Record<string, string> = session) =>
    t.request({
      method: 'POST',
      url: '/reconciliation/matches',
      headers,
      payload: { companyId: s.companyId, reason: 'the supplier took 1.00 less, agreed', ...payload },
    });
  const entry = { documentId: doc, entryIndex: 0 };
  // Refused: a credit expected payment, a reversal, an unknown entry, mixed forms.
  const wrongWay = await match({ entry, expectedPaymentIds: [creditExpected.id] });
  assertError(wrongWay, 409, 'conflict');
  assert.match(wrongWay.json().error.message, /expects a credit/);
  assertError(await match({ entry: { documentId: doc, entryIndex: 2 }, expectedPaymentIds: [e.id] }), 409, 'conflict');
  assertError(await match({ entry: { documentId: doc, entryIndex: 9 }, expectedPaymentIds: [e.id] }), 404, 'not_found');
  assertError(
    await match({ entry, expectedPaymentIds: [e.id], outboundLines: [{ documentId: doc, index: 0 }] }),
    400,
    'validation_failed',
  );

  const made = await match({ entry, expectedPaymentIds: [e.id] });
  assert.equal(made.statusCode, 201, made.body);
  const [m] = (made.json() as { matches: Array<MatchView & { unmatchedAt: string | null }> }).matches;
  assert.deepEqual(
    [
      m!.rule,
      m!.manual,
      m!.amount,
      m!.amountDelta,
      m!.entry,
      m!.expectedPaymentId,
      m!.incomingPaymentId,
      m!.unmatchedAt,
    ],
    ['manual', true, '99.00', '-1.00', entry, e.id, undefined, null],
  );
  assert.ok(m!.actorUserId);
  const matched = await get(s, e.id);
  assert.deepEqual([matched.status, matched.openAmount], ['overdue', '1.00']);
  assert.deepEqual((await entries(s))[0]!.matched, '9900');
  assert.notEqual((await entries(s))[0]!.matched_document_id, null);
  // Used up: the entry has nothing left, and an outbound line match of it is refused too.
  assertError(await match({ entry, expectedPaymentIds: [e.id] }), 409, 'conflict');

  const undone = await t.request({
    method: 'DELETE',
    url: `/reconciliation/matches/${m!.id}?companyId=${s.companyId}`,
    headers: session,
    payload: { reason: 'wrong supplier' },
  });
  assert.equal(undone.statusCode, 200, undone.body);
  assert.equal((undone.json() as { unmatchReason: string }).unmatchReason, 'wrong supplier');
  const back = await get(s, e.id);
  assert.deepEqual([back.status, back.openAmount, back.matches], ['overdue', '100.00', []]);
  const row = (await entries(s))[0]!;
  assert.deepEqual([row.matched, row.matched_document_id, row.note], ['0', null, null]);
  // Both back in the queue: the debit is a candidate again.
  const again = await t.request({
    method: 'GET',
    url: `/reconciliation/exceptions?companyId=${s.companyId}&kind=overdue-expected`,
    headers: session,
  });
  assert.equal(
    (again.json() as { items: Array<{ candidates: Candidate[] }> }).items[0]!.candidates[0]!.entry?.entryIndex,
    0,
  );

  const audit = await db.query(
    `SELECT type, actor_user_id, metadata FROM activity_events
      WHERE company_id = $1 AND type LIKE 'reconciliation.%' ORDER BY seq`,
    [s.companyId],
  );
  assert.deepEqual(
    audit.rows.map((r) => [r.type, r.actor_user_id, r.metadata.reason, r.metadata.entry]),
    [
      ['reconciliation.manual_match', m!.actorUserId, 'the supplier took 1.00 less, agreed', entry],
      ['reconciliation.unmatched', m!.actorUserId, 'wrong supplier', entry],
    ],
  );
  const events = await db.query(
    `SELECT type, payload FROM outbox_events WHERE company_id = $1 AND type LIKE 'reconciliation.%' ORDER BY created_at, id`,
    [s.companyId],
  );
  assert.deepEqual(events.rows.map((r) => r.type).sort(), ['reconciliation.manual_match', 'reconciliation.unmatched']);

  // The dashboard's Exceptions page: the overdue debit expected payment's form chooses among its debits.
  const browser = await signIn(t, s.dashboardLogin.email, s.dashboardLogin.password);
  const page = await getPage(t, browser, '/dashboard/exceptions?kind=overdue-expected');
  assert.equal(page.statusCode, 200, page.body);
  assert.ok(page.body.includes(`name="entry" value="${doc}:0" required`), 'the 99.00 debit as a choice');
  const posted = await postForm(t, browser, '/dashboard/exceptions/match', {
    [`expected:${e.id}`]: 'on',
    entry: `${doc}:1`,
    reason: 'the 7.00 debit was the first part',
  });
  assert.equal(posted.statusCode, 200, posted.body);
  assert.ok(posted.body.includes(`Matched entry ${doc} #1 to ${e.id} (7.00).`), 'the notice names the entry');
  assert.deepEqual(
    (await get(s, e.id)).matches.map((x) => [x.rule, x.amount, x.entry]),
    [['manual', '7.00', { documentId: doc, entryIndex: 1 }]],
  );
});
