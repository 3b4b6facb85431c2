import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { manualClock } from '../../src/platform/clock.ts';
import { type Browser, get, post, signIn } from '../dashboard/support.ts';
import { assertError, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { deliverNow } from '../support/deliver.ts';
import { statementWith } from '../support/statement-with.ts';
import { ingestDemo } from './support.ts';

/**
 * Manual matching of outbound lines (docs/adr/0076) on real PostgreSQL: a person matches a statement
 * debit no rule took to the unanswered lines it paid (POST /reconciliation/matches {entry,
 * outboundLines}); the lines are cleared with evidence `rule: manual`, the actor and the reason, the
 * amounts must agree exactly (422 amounts_differ), neither side is used twice, and DELETE puts the
 * lines back to pending and into the exceptions queue. The same through the dashboard's form. The
 * documents follow (docs/adr/0079): every line cleared, by hand, by the bank or both, is `executed`
 * with `payment.executed`, and the undo takes it back to `sent` with `payment.sent`.
 */
const clock = manualClock(new Date('2026-11-18T09:00:00Z'));
let t: TestApp;
let db: pg.Client;
let s: Awaited<ReturnType<typeof provisionAndLogin>>;
before(async () => {
  t = await startTestApp({ clock });
  db = new pg.Client({ connectionString: t.databaseUrl });
  await db.connect();
  s = await provisionAndLogin(t);
});
after(async () => {
  await db.end();
  await t.close();
});

const PAYEE = 'FI5542345670000081';
const key = () => ({ 'x-api-key': s.apiKey });

const ingest = (content: string) => ingestDemo(t, s, content);

type Candidate = { ref: string; entry?: { documentId: string; entryIndex: number } };
async function unanswered() {
  const res = await t.request({
    method: 'GET',
    url: `/reconciliation/exceptions?companyId=${s.companyId}&kind=unanswered-outbound`,
    headers: key(),
  });
  assert.equal(res.statusCode, 200, res.body);
  return (res.json() as { items: Array<{ subject: { endToEndId: string }; candidates: Candidate[] }> }).items;
}

async function submit(messageId: string, lines: Array<[string, string]>) {
  const payment = structuredClone(s.firstPayment.body.payment) as {
    messageId: string;
    payments: Array<{ executionDate: string; transactions: Array<Record<string, unknown>> }>;
  };
  payment.messageId = messageId;
  const block = payment.payments[0]!;
  const template = block.transactions[0]!;
  block.transactions = lines.map(([e2e, amount]) => {
    const tx = structuredClone(template) as Record<string, unknown> & { creditor: { account: { iban: string } } };
    tx['endToEndId'] = e2e;
    tx['amount'] = amount;
    tx.creditor.account.iban = PAYEE;
    return tx;
  });
  const res = await t.request({
    method: 'POST',
    url: '/journal/payments',
    headers: { ...key(), 'idempotency-key': messageId },
    payload: { companyId: s.companyId, bankKey: 'demo', environment: 'test', payment },
  });
  assert.equal(res.statusCode, 201, res.body);
  const documentId = (res.json() as { id: string }).id;
  await deliverNow(t.ctx, { platformId: s.platformId, companyId: s.companyId }, documentId);
  return documentId;
}

const match = (payload: Record<string, unknown>, headers: Record<string, string> = key()) =>
  t.request({
    method: 'POST',
    url: '/reconciliation/matches',
    headers,
    payload: { companyId: s.companyId, reason: 'the bank booked both under its own reference', ...payload },
  });

async function line(documentId: string, index: number) {
  const r = await db.query(
    `SELECT state, evidence, open_until FROM payment_lines WHERE document_id = $1 AND line_index = $2`,
    [documentId, index],
  );
  return r.rows[0] as { state: string; evidence: Record<string, unknown> | null; open_until: Date | null };
}

test('a statement debit matched by hand to the two lines it paid, refused when the amounts differ, then undone', async () => {
  const documentId = await submit('MANUAL-LINES-1', [
    ['ML-1', '10.00'],
    ['ML-2', '15.00'],
    ['ML-3', '5.00'],
  ]);
  const windowBefore = (await line(documentId, 0)).open_until!.toISOString();
  clock.advance(46 * 86_400_000);
  const statement = await ingest(
    statementWith('ML-STMT', 1, [
      { amount: '3.50', direction: 'DBIT', ref: 'ML-FEE', day: '2027-01-02' },
      { amount: '25.00', direction: 'DBIT', e2e: 'BANK-OWN-1', iban: PAYEE, ref: 'ML-B-1', day: '2027-01-02' },
      { amount: '9.00', direction: 'DBIT', iban: PAYEE, ref: 'ML-B-2', day: '2027-01-02' },
    ]),
  );
  const queue = await unanswered();
  assert.deepEqual(
    queue.map((i) => i.subject.endToEndId),
    ['ML-1', 'ML-2', 'ML-3'],
  );
  // The candidates name the entry a match takes: the 25.00 debit is the statement's second entry.
  const entry = { documentId: statement, entryIndex: 1 };
  assert.ok(queue[0]!.candidates.some((c) => c.entry?.documentId === statement && c.entry.entryIndex === 1));

  const short = await match({ entry, outboundLines: [{ documentId, index: 0 }] });
  assertError(short, 422, 'amounts_differ');
  assert.deepEqual(short.json().error.details, { entryAmount: '25.00', linesAmount: '10.00', currency: 'EUR' });
  assertError(await match({ entry, outboundLines: [] }), 400, 'validation_failed');
  assertError(await match({ entry }), 400, 'validation_failed');
  assertError(
    await match({ entry, outboundLines: [{ documentId, index: 0 }], incomingPaymentId: 'inc_x' }),
    400,
    'validation_failed',
  );
  assertError(
    await match({ entry: { documentId: statement, entryIndex: 9 }, outboundLines: [{ documentId, index: 0 }] }),
    404,
    'not_found',
  );
  // Another company's key sees neither the entry nor the lines.
  const other = await provisionAndLogin(t);
  const foreign = await t.request({
    method: 'POST',
    url: '/reconciliation/matches',
    headers: { 'x-api-key': other.apiKey },
    payload: { companyId: other.companyId, entry, outboundLines: [{ documentId, index: 0 }], reason: 'mine' },
  });
  assertError(foreign, 404, 'not_found');

  const done = await match({
    entry,
    outboundLines: [
      { documentId, index: 0 },
      { documentId, index: 1 },
    ],
  });
  assert.equal(done.statusCode, 201, done.body);
  const [m] = (done.json() as { matches: Array<Record<string, unknown>> }).matches;
  assert.deepEqual(m, {
    id: m!.id,
    rule: 'manual',
    manual: true,
    amount: '25.00',
    amountDelta: '0.00',
    entry,
    outboundLines: [
      { documentId, index: 0 },
      { documentId, index: 1 },
    ],
    actorUserId: null,
    reason: 'the bank booked both under its own reference',
    createdAt: clock.now().toISOString(),
    unmatchedAt: null,
    unmatchReason: null,
  });
  assert.match(String(m!.id), /^mat_/);
  for (const [index, amount] of [
    [0, '10.00'],
    [1, '15.00'],
  ] as const) {
    const l = await line(documentId, index);
    assert.equal(l.state, 'cleared');
    assert.equal(l.open_until, null);
    assert.match(String(l.evidence!['actor']), /^key \S+$/);
    assert.deepEqual(
      { ...l.evidence, summary: undefined },
      {
        source: 'manual',
        rule: 'manual',
        manual: true,
        matchId: m!.id,
        actor: l.evidence!['actor'],
        actorUserId: null,
        reason: 'the bank booked both under its own reference',
        documentId: statement,
        entryIndex: 1,
        bankRef: 'ML-B-1',
        bookingDate: '2027-01-02',
        amount,
        daysDelta: l.evidence!['daysDelta'],
        summary: undefined,
      },
    );
  }
  assert.equal((await line(documentId, 2)).state, 'pending');
  assert.deepEqual(
    (await unanswered()).map((i) => i.subject.endToEndId),
    ['ML-3'],
  );
  // Neither side twice: the entry is taken, and a cleared line is not pending.
  assertError(await match({ entry, outboundLines: [{ documentId, index: 2 }] }), 409, 'conflict');
  assertError(
    await match({ entry: { documentId: statement, entryIndex: 2 }, outboundLines: [{ documentId, index: 0 }] }),
    409,
    'conflict',
  );
  // A fee is no payment of these lines either way, and neither is a credit: only the amounts decide.
  const audit = await db.query(
    `SELECT type, metadata FROM activity_events WHERE company_id = $1 AND type LIKE 'reconciliation.%' ORDER BY seq`,
    [s.companyId],
  );
  assert.deepEqual(
    audit.rows.map((r) => [r.type, r.metadata.matchId, r.metadata.actor]),
    [['reconciliation.manual_match', m!.id, (await line(documentId, 0)).evidence!['actor']]],
  );
  const outbox = await db.query(
    `SELECT payload FROM outbox_events WHERE company_id = $1 AND type = 'reconciliation.manual_match'`,
    [s.companyId],
  );
  assert.deepEqual(outbox.rows[0].payload.data.entry, entry);

  const undo = await t.request({
    method: 'DELETE',
    url: `/reconciliation/matches/${m!.id}?companyId=${s.companyId}`,
    headers: key(),
    payload: { reason: 'wrong payment run' },
  });
  assert.equal(undo.statusCode, 200, undo.body);
  assert.equal(undo.json().unmatchReason, 'wrong payment run');
  assert.equal(undo.json().unmatchedAt, clock.now().toISOString());
  for (const index of [0, 1]) {
    const l = await line(documentId, index);
    assert.equal(l.state, 'pending');
    assert.equal(l.evidence, null);
  }
  assert.equal((await line(documentId, 0)).open_until!.toISOString(), windowBefore);
  assert.deepEqual(
    (await unanswered()).map((i) => i.subject.endToEndId),
    ['ML-1', 'ML-2', 'ML-3'],
  );
  const entryRow = await db.query(
    `SELECT matched_document_id FROM unmatched_entries WHERE document_id = $1 AND entry_index = 1`,
    [statement],
  );
  assert.equal(entryRow.rows[0].matched_document_id, null);
  const again = await t.request({
    method: 'DELETE',
    url: `/reconciliation/matches/${m!.id}?companyId=${s.companyId}`,
    headers: key(),
    payload: { reason: 'twice' },
  });
  assertError(again, 409, 'conflict');
  const trail = await db.query(
    `SELECT type FROM activity_events WHERE company_id = $1 AND type LIKE 'reconciliation.%' ORDER BY seq`,
    [s.companyId],
  );
  assert.deepEqual(
    trail.rows.map((r) => r.type),
    ['reconciliation.manual_match', 'reconciliation.unmatched'],
  );
});

test('Exceptions page: an unanswered line has a match form over its candidate debits; the form clears it', async () => {
  const browser: Browser = await signIn(t, s.dashboardLogin.email, s.dashboardLogin.password);
  const page = await get(t, browser, '/dashboard/exceptions?kind=unanswered-outbound');
  assert.equal(page.statusCode, 200, page.body);
  const [, documentId] = /name="outboundLine" value="([^":]+):0"/.exec(page.body) ?? [];
  assert.ok(documentId, 'the first line has a form');
  const statement = (
    await db.query(`SELECT document_id FROM unmatched_entries WHERE company_id = $1 AND bank_ref = 'ML-B-1'`, [
      s.companyId,
    ])
  ).rows[0].document_id as string;
  assert.ok(page.body.includes(`name="entry" value="${statement}:1" required`), 'the 25.00 debit as a choice');
  const refused = await post(t, browser, '/dashboard/exceptions/match', {
    outboundLine: `${documentId}:0`,
    entry: `${statement}:1`,
    reason: 'only the first',
  });
  assert.equal(refused.statusCode, 422);
  assert.match(refused.body, /role="alert">the outbound lines do not add up to the statement entry/);
  const done = await post(t, browser, '/dashboard/exceptions/match', {
    outboundLine: `${documentId}:2`,
    entry: `${statement}:2`,
    reason: 'wrong amount on purpose',
  });
  assert.equal(done.statusCode, 422, 'the 9.00 debit does not pay the 5.00 line');
  // Pay ML-3 (5.00) by a debit of exactly that.
  const second = (
    await db.query(`SELECT count(*)::int AS n FROM unmatched_entries WHERE company_id = $1`, [s.companyId])
  ).rows[0].n as number;
  const fiver = await ingest(
    statementWith('ML-STMT-2', 2, [
      { amount: '5.00', direction: 'DBIT', iban: PAYEE, ref: 'ML-B-3', day: '2027-01-03' },
    ]),
  );
  assert.equal(
    (await db.query(`SELECT count(*)::int AS n FROM unmatched_entries WHERE company_id = $1`, [s.companyId])).rows[0].n,
    second + 1,
  );
  const ok = await post(t, browser, '/dashboard/exceptions/match', {
    outboundLine: `${documentId}:2`,
    entry: `${fiver}:0`,
    reason: 'booked a day late under the bank reference',
  });
  assert.equal(ok.statusCode, 200, ok.body);
  assert.match(ok.body, new RegExp(`role="status">Matched entry ${fiver} #0 to ${documentId} line 2 \\(5.00\\)`));
  const l = await line(documentId, 2);
  assert.equal(l.state, 'cleared');
  assert.equal(l.evidence!['actor'], `user ${l.evidence!['actorUserId']}`);
  const who = await db.query(
    `SELECT u.email FROM activity_events a JOIN users u ON u.id = a.actor_user_id
      WHERE a.company_id = $1 AND a.type = 'reconciliation.manual_match' ORDER BY a.seq DESC LIMIT 1`,
    [s.companyId],
  );
  assert.equal(who.rows[0].email, s.dashboardLogin.email);
});

/** The document's status, its payment events (type, endToEndId) and its status audit (from, to, actor, matchId). */
async function documentTrail(documentId: string) {
  const status = (await db.query(`SELECT status FROM journal_documents WHERE id = $1`, [documentId])).rows[0].status;
  const events = await db.query(
    `SELECT type, payload FROM outbox_events WHERE company_id = $1 AND type LIKE 'payment.%'
        AND payload->'data'->>'documentId' = $2 ORDER BY created_at, id`,
    [s.companyId, documentId],
  );
  const audit = await db.query(
    `SELECT metadata, actor_user_id FROM activity_events
      WHERE company_id = $1 AND type = 'payment.status_changed' AND metadata->>'documentId' = $2 ORDER BY seq`,
    [s.companyId, documentId],
  );
  return {
    status: status as string,
    events: events.rows.map((r) => [r.type, r.payload.data.status, r.payload.data.endToEndId ?? null]),
    audit: audit.rows.map((r) => [
      r.metadata.from,
      r.metadata.to,
      r.metadata.matchId ?? null,
      r.metadata.actor ?? null,
    ]),
  };
}

// Each act a second after the last, so the events sort by their time.
const unmatch = (id: string, reason: string) => {
  clock.advance(1000);
  return t.request({
    method: 'DELETE',
    url: `/reconciliation/matches/${id}?companyId=${s.companyId}`,
    headers: key(),
    payload: { reason },
  });
};

/** A person matches entry `entryIndex` of `statement` to line `index` of `documentId`: the match's id. */
async function matchOne(statement: string, entryIndex: number, documentId: string, index: number) {
  clock.advance(1000);
  const res = await match({ entry: { documentId: statement, entryIndex }, outboundLines: [{ documentId, index }] });
  assert.equal(res.statusCode, 201, res.body);
  return (res.json() as { matches: Array<{ id: string }> }).matches[0]!.id;
}

test('a run whose every line a person matched becomes executed with payment.executed; the undo takes it back to sent', async () => {
  const documentId = await submit('MANUAL-DOC-1', [
    ['MD-1', '11.00'],
    ['MD-2', '12.00'],
  ]);
  const before = await documentTrail(documentId);
  assert.equal(before.status, 'sent');
  clock.advance(46 * 86_400_000);
  const statement = await ingest(
    statementWith('MD-STMT', 3, [
      { amount: '11.00', direction: 'DBIT', iban: PAYEE, ref: 'MD-B-1', day: '2027-02-20' },
      { amount: '12.00', direction: 'DBIT', iban: PAYEE, ref: 'MD-B-2', day: '2027-02-20' },
    ]),
  );
  const first = await matchOne(statement, 0, documentId, 0);
  // One line of two: the run is not done, nothing is told of it.
  assert.deepEqual(await documentTrail(documentId), before);
  const second = await matchOne(statement, 1, documentId, 1);
  const actor = (await line(documentId, 1)).evidence!['actor'] as string;
  const done = await documentTrail(documentId);
  assert.equal(done.status, 'executed');
  assert.deepEqual(done.events, [...before.events, ['payment.executed', 'executed', 'MD-2']]);
  assert.deepEqual(done.audit, [...before.audit, ['sent', 'executed', second, actor]]);
  const doc = await t.request({
    method: 'GET',
    url: `/journal/documents/${documentId}?companyId=${s.companyId}`,
    headers: key(),
  });
  assert.equal(doc.json().status, 'executed');
  assert.deepEqual(
    (await unanswered()).filter((i) => i.subject.endToEndId.startsWith('MD-')),
    [],
  );

  // The first match undone: that line is pending again, in the queue, and the run is sent again.
  const undo = await unmatch(first, 'the 11.00 was a fee');
  assert.equal(undo.statusCode, 200, undo.body);
  const back = await documentTrail(documentId);
  assert.equal(back.status, 'sent');
  assert.deepEqual(back.events, [...done.events, ['payment.sent', 'sent', 'MD-1']]);
  assert.deepEqual(back.audit, [...done.audit, ['executed', 'sent', first, actor]]);
  assert.equal((await line(documentId, 0)).state, 'pending');
  assert.equal((await line(documentId, 1)).state, 'cleared');
  assert.deepEqual(
    (await unanswered()).filter((i) => i.subject.endToEndId.startsWith('MD-')).map((i) => i.subject.endToEndId),
    ['MD-1'],
  );
  // Matched again, executed again; the other undone then: sent, and both lines back in the queue.
  await matchOne(statement, 0, documentId, 0);
  assert.equal((await documentTrail(documentId)).status, 'executed');
  assert.equal((await unmatch(second, 'booked twice by mistake')).statusCode, 200);
  assert.equal((await documentTrail(documentId)).status, 'sent');
  assert.deepEqual(
    (await unanswered()).filter((i) => i.subject.endToEndId.startsWith('MD-')).map((i) => i.subject.endToEndId),
    ['MD-2'],
  );
});

test('the bank books one line, a person the other: executed; the undo leaves the bank line cleared and the run sent', async () => {
  const documentId = await submit('MANUAL-DOC-2', [
    ['MX-1', '21.00'],
    ['MX-2', '22.00'],
    ['MX-3', '23.00'],
  ]);
  // The bank books MX-1 by its end-to-end id and returns MX-3 (AC04) while the lines are in their window.
  await ingest(
    statementWith('MX-STMT-1', 4, [
      { amount: '21.00', direction: 'DBIT', e2e: 'MX-1', iban: PAYEE, ref: 'MX-B-1', day: '2027-02-21' },
      { amount: '23.00', direction: 'CRDT', e2e: 'MX-3', reversal: true, returnReason: 'AC04', ref: 'MX-R-3' },
    ]),
  );
  assert.equal((await line(documentId, 0)).state, 'cleared');
  assert.equal((await line(documentId, 0)).evidence!['rule'], 'end-to-end-id');
  assert.equal((await line(documentId, 2)).state, 'rejected');
  const before = await documentTrail(documentId);
  assert.equal(before.status, 'sent');
  clock.advance(46 * 86_400_000);
  const statement = await ingest(
    statementWith('MX-STMT-2', 5, [
      { amount: '22.00', direction: 'DBIT', iban: PAYEE, ref: 'MX-B-2', day: '2027-04-10' },
    ]),
  );
  const id = await matchOne(statement, 0, documentId, 1);
  const done = await documentTrail(documentId);
  assert.equal(done.status, 'executed', 'cleared by the bank, cleared by a person, returned: every line settled');
  assert.deepEqual(done.events, [...before.events, ['payment.executed', 'executed', 'MX-2']]);

  assert.equal((await unmatch(id, 'not this run')).statusCode, 200);
  const back = await documentTrail(documentId);
  assert.equal(back.status, 'sent');
  assert.deepEqual(back.events, [...done.events, ['payment.sent', 'sent', 'MX-2']]);
  const bank = await line(documentId, 0);
  assert.equal(bank.state, 'cleared');
  assert.equal(bank.evidence!['rule'], 'end-to-end-id');
  assert.equal((await line(documentId, 1)).state, 'pending');
  assert.equal((await line(documentId, 2)).state, 'rejected');
  assert.deepEqual(
    (await unanswered()).filter((i) => i.subject.endToEndId.startsWith('MX-')).map((i) => i.subject.endToEndId),
    ['MX-2'],
  );
});

test('a person first, the bank after: the statement that books the last line makes the run executed', async () => {
  const documentId = await submit('MANUAL-DOC-3', [
    ['MR-1', '31.00'],
    ['MR-2', '32.00'],
  ]);
  // In the answer window, but no rule takes a debit that names neither the line nor its payee: a person does.
  const statement = await ingest(
    statementWith('MR-STMT-1', 6, [{ amount: '31.00', direction: 'DBIT', ref: 'MR-B-1' }]),
  );
  assert.equal((await line(documentId, 0)).state, 'pending');
  await matchOne(statement, 0, documentId, 0);
  const before = await documentTrail(documentId);
  assert.equal(before.status, 'sent');
  clock.advance(1000);
  await ingest(
    statementWith('MR-STMT-2', 7, [{ amount: '32.00', direction: 'DBIT', e2e: 'MR-2', iban: PAYEE, ref: 'MR-B-2' }]),
  );
  assert.equal((await line(documentId, 1)).evidence!['rule'], 'end-to-end-id');
  const done = await documentTrail(documentId);
  assert.equal(done.status, 'executed');
  assert.deepEqual(done.events, [...before.events, ['payment.executed', 'executed', 'MR-2']]);
  // The bank's line is the bank's: a person can undo only their own, and the run is sent again.
  const [m] = (
    await db.query(`SELECT id FROM line_matches WHERE unmatched_at IS NULL AND lines @> $1::jsonb`, [
      JSON.stringify([{ documentId, index: 0 }]),
    ])
  ).rows;
  assert.equal((await unmatch(m.id, 'not ours')).statusCode, 200);
  assert.equal((await documentTrail(documentId)).status, 'sent');
  assert.equal((await line(documentId, 1)).state, 'cleared');
});
