import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { assertError, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { type Credit, credits, expect, expected, incoming, ingest } from './support.ts';

/**
 * Receivables on real PostgreSQL (issue 39, docs/adr/0069): references issued and validated through
 * the API, expected payments, every credit of an ingested statement one incoming payment (also when a
 * camt.052 and then the camt.053 bring it), and matching by each rule with exact open amounts.
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

test('references: POST /references issues valid check digits, GET /references/validate checks them', async () => {
  const s = await provisionAndLogin(t);
  const issued = await t.request({
    method: 'POST',
    url: '/references',
    headers: { 'x-api-key': s.apiKey },
    payload: { companyId: s.companyId, type: 'SCOR', base: '539007547034' },
  });
  assert.equal(issued.statusCode, 201, issued.body);
  assert.deepEqual(issued.json(), { type: 'SCOR', value: 'RF18539007547034', printed: 'RF18 5390 0754 7034' });
  for (const type of ['FI', 'OCR', 'KID']) {
    const drawn = await t.request({
      method: 'POST',
      url: '/references',
      headers: { 'x-api-key': s.apiKey },
      payload: { companyId: s.companyId, type },
    });
    assert.equal(drawn.statusCode, 201, drawn.body);
    const value = (drawn.json() as { value: string }).value;
    const check = await t.request({
      method: 'GET',
      url: `/references/validate?type=${type}&value=${value}`,
      headers: { 'x-api-key': s.apiKey },
    });
    assert.deepEqual(check.json(), { valid: true, normalised: value, reason: null });
  }
  const bad = await t.request({
    method: 'GET',
    url: '/references/validate?type=SCOR&value=RF19539007547034',
    headers: { 'x-api-key': s.apiKey },
  });
  assert.equal((bad.json() as { valid: boolean }).valid, false);
  const tooLong = await t.request({
    method: 'POST',
    url: '/references',
    headers: { 'x-api-key': s.apiKey },
    payload: { companyId: s.companyId, type: 'FI', base: '12' },
  });
  assertError(tooLong, 400, 'validation_failed');
});

test('expected payments: validation, a generated reference, archive final, and the CHECK refuses an unknown status', async () => {
  const s = await provisionAndLogin(t);
  const bad = await t.request({
    method: 'POST',
    url: '/expected-payments',
    headers: { 'x-api-key': s.apiKey },
    payload: {
      companyId: s.companyId,
      currency: 'EUR',
      amount: '1.234',
      dateFrom: '2026-11-30',
      dateTo: '2026-11-01',
      reference: { type: 'SCOR', value: 'RF19539007547034' },
    },
  });
  const err = assertError(bad, 400, 'validation_failed');
  const paths = ((err.details?.['issues'] ?? []) as Array<{ path: string }>).map((i) => i.path).sort();
  assert.deepEqual(paths, ['amount', 'dateTo', 'reference.value']);
  const e = await expect(t, s, { amount: '100.00', reference: { type: 'FI', generate: true } });
  assert.equal(e.status, 'unreconciled');
  assert.equal(e.openAmount, '100.00');
  assert.match(e.reference?.value ?? '', /^\d{11}$/);
  const archived = await t.request({
    method: 'POST',
    url: `/expected-payments/${e.id}/archive`,
    headers: { 'x-api-key': s.apiKey },
    payload: { companyId: s.companyId },
  });
  assert.equal((archived.json() as { status: string }).status, 'archived');
  const again = await t.request({
    method: 'POST',
    url: `/expected-payments/${e.id}/archive`,
    headers: { 'x-api-key': s.apiKey },
    payload: { companyId: s.companyId },
  });
  assert.equal(again.statusCode, 200);
  const patched = await t.request({
    method: 'PATCH',
    url: `/expected-payments/${e.id}`,
    headers: { 'x-api-key': s.apiKey },
    payload: { companyId: s.companyId, amount: '5.00' },
  });
  assertError(patched, 409, 'conflict');
  // A window that passed makes it overdue; moving the window on (PATCH, nothing matched) reopens it.
  const late = await expect(t, s, { amount: '20.00', dateFrom: '2026-01-01', dateTo: '2026-01-31' });
  assert.equal(late.status, 'overdue');
  const moved = await t.request({
    method: 'PATCH',
    url: `/expected-payments/${late.id}`,
    headers: { 'x-api-key': s.apiKey },
    payload: { companyId: s.companyId, dateTo: '2099-12-31', amount: '25.00' },
  });
  assert.equal(moved.statusCode, 200, moved.body);
  assert.deepEqual(
    [(moved.json() as { status: string }).status, (moved.json() as { openAmount: string }).openAmount],
    ['unreconciled', '25.00'],
  );
  await assert.rejects(
    db.query(`UPDATE expected_payments SET status = 'paid' WHERE id = $1`, [e.id]),
    (x: { code?: string }) => x.code === '23514',
  );
  const other = await provisionAndLogin(t);
  const foreign = await t.request({
    method: 'GET',
    url: `/expected-payments/${e.id}?companyId=${other.companyId}`,
    headers: { 'x-api-key': other.apiKey },
  });
  assertError(foreign, 404, 'not_found');
});

test('every credit becomes one incoming payment, once, when a camt.052 and then the camt.053 bring it', async () => {
  const s = await provisionAndLogin(t);
  const entries: Credit[] = [
    { amount: '10.00', ref: 'BANK-1', e2e: 'E-1' },
    { amount: '10.00', ref: 'BANK-2', e2e: 'E-2' },
    { amount: '25.50', e2e: 'E-3' },
  ];
  await ingest(t, s, credits('INTRADAY-1', entries, '052'));
  await ingest(t, s, credits('EOD-1', [...entries, { amount: '7.00', ref: 'BANK-4' }]));
  const items = await incoming(t, s);
  assert.deepEqual(items.map((p) => p.amount).sort(), ['10.00', '10.00', '25.50', '7.00']);
  assert.ok(items.every((p) => p.status === 'unmatched'));
});

test('matching: each rule, N:1 with the open amount exact, 1:N, tolerance at and past its bound, ambiguous left alone', async () => {
  const s = await provisionAndLogin(t);
  const settings = await t.request({
    method: 'PUT',
    url: '/reconciliation/settings',
    headers: { 'x-api-key': s.apiKey },
    payload: { companyId: s.companyId, toleranceAmount: '0.50', tolerancePercent: '0', windowDays: 5 },
  });
  assert.equal(settings.statusCode, 200, settings.body);
  const byRef = await expect(t, s, { amount: '300.00', reference: { type: 'SCOR', value: 'RF18 5390 0754 7034' } });
  const byE2e = await expect(t, s, { amount: '40.00', remittanceContains: 'INV-7001' });
  const byParty = await expect(t, s, { amount: '55.25', counterparty: { iban: 'DE89370400440532013000' } });
  const tolAt = await expect(t, s, { amount: '80.00', remittanceContains: 'INV-8001' });
  const tolPast = await expect(t, s, { amount: '90.00', remittanceContains: 'INV-9001' });
  const oneOfTwo = await expect(t, s, { amount: '12.00', reference: { type: 'SCOR', value: 'RF712348231' } });
  const twoOfTwo = await expect(t, s, { amount: '18.00', reference: { type: 'FI', value: '1232' } });
  const amb1 = await expect(t, s, { amount: '66.00', counterparty: { iban: 'SE4550000000058398257466' } });
  const amb2 = await expect(t, s, { amount: '66.00', counterparty: { iban: 'SE4550000000058398257466' } });
  await ingest(
    t,
    s,
    credits('MATCH-1', [
      { amount: '100.00', ref: 'M-1', scor: 'RF18539007547034' },
      { amount: '200.00', ref: 'M-2', scor: 'rf18 5390 0754 7034', day: '2026-11-22' },
      { amount: '40.00', ref: 'M-3', e2e: 'INV-7001' },
      { amount: '55.25', ref: 'M-4', iban: 'DE89370400440532013000' },
      { amount: '79.50', ref: 'M-5', text: 'invoice INV-8001' },
      { amount: '89.49', ref: 'M-6', text: 'invoice INV-9001' },
      { amount: '30.00', ref: 'M-7', text: 'RF712348231 and 1232' },
      { amount: '66.00', ref: 'M-8', iban: 'SE4550000000058398257466' },
      { amount: '55.25', ref: 'M-9' },
    ]),
  );
  const r = await expected(t, s, byRef.id);
  assert.equal(r.status, 'reconciled');
  assert.deepEqual(
    r.matches.map((m) => [m.rule, m.amount, m.amountDelta]).sort((a, b) => Number(a[1]) - Number(b[1])),
    [
      ['structured-reference', '100.00', '-200.00'],
      ['structured-reference', '200.00', '0.00'],
    ],
  );
  assert.equal(r.openAmount, '0.00');
  assert.equal((await expected(t, s, byE2e.id)).matches[0]?.rule, 'end-to-end-id');
  assert.equal((await expected(t, s, byParty.id)).matches[0]?.rule, 'amount-counterparty');
  const at = await expected(t, s, tolAt.id);
  assert.deepEqual(
    [at.status, at.matches[0]?.rule, at.matches[0]?.amountDelta],
    ['reconciled', 'tolerance-remittance', '-0.50'],
  );
  assert.equal((await expected(t, s, tolPast.id)).status, 'unreconciled');
  assert.equal((await expected(t, s, oneOfTwo.id)).matches[0]?.amount, '12.00');
  assert.equal((await expected(t, s, twoOfTwo.id)).matches[0]?.amount, '18.00');
  assert.equal((await expected(t, s, amb1.id)).status, 'unreconciled');
  assert.equal((await expected(t, s, amb2.id)).status, 'unreconciled');
  const items = await incoming(t, s);
  const byAmount = (a: string) => items.filter((p) => p.amount === a).map((p) => p.status);
  assert.deepEqual(byAmount('66.00'), ['unmatched']);
  assert.deepEqual(byAmount('89.49'), ['unmatched']);
  // The bare amount (55.25 with no counterparty or reference) matched nothing.
  assert.deepEqual(byAmount('55.25').sort(), ['matched', 'unmatched']);
  const events = await db.query(
    `SELECT type, count(*)::int AS n FROM outbox_events WHERE company_id = $1 GROUP BY type ORDER BY type`,
    [s.companyId],
  );
  const counts = Object.fromEntries(events.rows.map((row) => [row.type, row.n]));
  assert.equal(counts['expected_payment.reconciled'], 6);
  assert.equal(counts['incoming_payment.matched'], 6);
  // The invariant, in the database: no side's matched sum over its amount.
  const over = await db.query(
    `SELECT count(*)::int AS n FROM expected_payments e
      WHERE company_id = $1 AND matched_minor <> (SELECT coalesce(sum(amount_minor), 0) FROM receivable_matches m
                                                   WHERE m.expected_payment_id = e.id AND m.unmatched_at IS NULL)`,
    [s.companyId],
  );
  assert.equal(over.rows[0].n, 0);
});

test('exceptions queue: nearest candidates with why; manual match and unmatch with the reason and the actor', async () => {
  const s = await provisionAndLogin(t);
  const a = await expect(t, s, { amount: '100.00', reference: { type: 'SCOR', value: 'RF18539007547034' } });
  const b = await expect(t, s, { amount: '50.00', counterparty: { iban: 'DE89370400440532013000' } });
  await ingest(
    t,
    s,
    credits('EXC-1', [{ amount: '99.00', ref: 'X-1', iban: 'FR1420041010050500013M02606', text: 'thanks' }]),
  );
  const queue = async () => {
    const res = await t.request({
      method: 'GET',
      url: `/reconciliation/exceptions?companyId=${s.companyId}&kind=unmatched-incoming`,
      headers: { 'x-session-token': s.sessionToken },
    });
    assert.equal(res.statusCode, 200, res.body);
    return (
      res.json() as {
        items: Array<{
          kind: string;
          subject: { incomingPaymentId: string };
          candidates: Array<{ ref: string; amountDelta: string; referenceMatch: boolean; why: string }>;
        }>;
      }
    ).items;
  };
  const items = await queue();
  assert.equal(items.length, 1);
  const item = items[0]!;
  assert.equal(item.kind, 'unmatched-incoming');
  // Nearest first: 1.00 short of a, 49.00 over b; neither has the reference on the credit.
  assert.deepEqual(
    item.candidates.map((c) => [c.ref, c.amountDelta, c.referenceMatch]),
    [
      [a.id, '-1.00', false],
      [b.id, '49.00', false],
    ],
  );
  const whyA = item.candidates.find((c) => c.ref === a.id)!.why;
  assert.match(whyA, /reference RF18539007547034 is not on the credit/);
  assert.match(whyA, /amount differs by -100 minor units/);

  const incomingId = item.subject.incomingPaymentId;
  const noReason = await t.request({
    method: 'POST',
    url: '/reconciliation/matches',
    headers: { 'x-session-token': s.sessionToken },
    payload: { companyId: s.companyId, incomingPaymentId: incomingId, expectedPaymentIds: [a.id] },
  });
  assertError(noReason, 400, 'validation_failed');
  const made = await t.request({
    method: 'POST',
    url: '/reconciliation/matches',
    headers: { 'x-session-token': s.sessionToken },
    payload: {
      companyId: s.companyId,
      incomingPaymentId: incomingId,
      expectedPaymentIds: [a.id],
      reason: 'customer paid 1.00 short, agreed by phone',
    },
  });
  assert.equal(made.statusCode, 201, made.body);
  const match = (
    made.json() as {
      matches: Array<{ id: string; rule: string; manual: boolean; amount: string; actorUserId: string | null }>;
    }
  ).matches[0]!;
  assert.deepEqual([match.rule, match.manual, match.amount], ['manual', true, '99.00']);
  assert.ok(match.actorUserId);
  const afterMatch = await expected(t, s, a.id);
  assert.deepEqual([afterMatch.status, afterMatch.openAmount], ['partially-reconciled', '1.00']);
  assert.equal((await queue()).length, 0);
  const again = await t.request({
    method: 'POST',
    url: '/reconciliation/matches',
    headers: { 'x-api-key': s.apiKey },
    payload: { companyId: s.companyId, incomingPaymentId: incomingId, expectedPaymentIds: [b.id], reason: 'twice' },
  });
  assertError(again, 409, 'conflict');

  const undone = await t.request({
    method: 'DELETE',
    url: `/reconciliation/matches/${match.id}?companyId=${s.companyId}`,
    headers: { 'x-api-key': s.apiKey },
    payload: { reason: 'wrong invoice' },
  });
  assert.equal(undone.statusCode, 200, undone.body);
  assert.equal((undone.json() as { unmatchReason: string }).unmatchReason, 'wrong invoice');
  const afterUnmatch = await expected(t, s, a.id);
  assert.deepEqual(
    [afterUnmatch.status, afterUnmatch.openAmount, afterUnmatch.matches.length],
    ['unreconciled', '100.00', 0],
  );
  assert.equal((await queue()).length, 1);
  const twice = await t.request({
    method: 'DELETE',
    url: `/reconciliation/matches/${match.id}?companyId=${s.companyId}`,
    headers: { 'x-api-key': s.apiKey },
    payload: { reason: 'again' },
  });
  assertError(twice, 409, 'conflict');

  const audit = await db.query(
    `SELECT type, actor_user_id, metadata->>'reason' AS reason FROM activity_events
      WHERE company_id = $1 AND type LIKE 'reconciliation.%' ORDER BY seq`,
    [s.companyId],
  );
  assert.deepEqual(
    audit.rows.map((r) => [r.type, r.actor_user_id === match.actorUserId, r.reason]),
    [
      ['reconciliation.manual_match', true, 'customer paid 1.00 short, agreed by phone'],
      ['reconciliation.unmatched', false, 'wrong invoice'],
    ],
  );
  const events = await db.query(
    `SELECT type FROM outbox_events WHERE company_id = $1 AND type LIKE 'reconciliation.%' ORDER BY created_at, id`,
    [s.companyId],
  );
  assert.deepEqual(events.rows.map((r) => r.type).sort(), ['reconciliation.manual_match', 'reconciliation.unmatched']);
});

test('property (fixed seed, on PostgreSQL): no sequence of ingests, matches and unmatches lets a matched sum exceed either side', async () => {
  const s = await provisionAndLogin(t);
  let seed = 39;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const exp: string[] = [];
  for (let k = 0; k < 6; k++) {
    exp.push(
      (
        await expect(t, s, {
          amount: `${10 + rnd(40)}.00`,
          reference: { type: 'FI', value: ['1232', '1245', '1258'][rnd(3)]! },
        })
      ).id,
    );
  }
  for (let round = 0; round < 12; round++) {
    const op = rnd(3);
    if (op === 0) {
      await ingest(
        t,
        s,
        credits(`PROP-${round}`, [
          { amount: `${1 + rnd(30)}.00`, ref: `P-${round}-1`, scor: ['1232', '1245', '1258'][rnd(3)]! },
          { amount: `${1 + rnd(30)}.00`, ref: `P-${round}-2`, text: 'misc' },
        ]),
      );
    } else if (op === 1) {
      const open = await db.query(
        `SELECT id FROM incoming_payments WHERE company_id = $1 AND status <> 'matched' ORDER BY id`,
        [s.companyId],
      );
      if (open.rows.length > 0) {
        await t.request({
          method: 'POST',
          url: '/reconciliation/matches',
          headers: { 'x-api-key': s.apiKey },
          payload: {
            companyId: s.companyId,
            incomingPaymentId: open.rows[rnd(open.rows.length)].id,
            expectedPaymentIds: [exp[rnd(exp.length)]!, exp[rnd(exp.length)]!],
            reason: `round ${round}`,
          },
        });
      }
    } else {
      const live = await db.query(
        `SELECT id FROM receivable_matches WHERE company_id = $1 AND unmatched_at IS NULL ORDER BY id`,
        [s.companyId],
      );
      if (live.rows.length > 0) {
        const res = await t.request({
          method: 'DELETE',
          url: `/reconciliation/matches/${live.rows[rnd(live.rows.length)].id}?companyId=${s.companyId}`,
          headers: { 'x-api-key': s.apiKey },
          payload: { reason: `round ${round}` },
        });
        assert.equal(res.statusCode, 200, res.body);
      }
    }
    const bad = await db.query(
      `SELECT
         (SELECT count(*)::int FROM expected_payments e WHERE company_id = $1 AND (matched_minor > amount_max_minor
            OR matched_minor <> (SELECT coalesce(sum(amount_minor), 0) FROM receivable_matches m WHERE m.expected_payment_id = e.id AND m.unmatched_at IS NULL))) AS e,
         (SELECT count(*)::int FROM incoming_payments p WHERE company_id = $1 AND (matched_minor > amount_minor
            OR matched_minor <> (SELECT coalesce(sum(amount_minor), 0) FROM receivable_matches m WHERE m.incoming_payment_id = p.id AND m.unmatched_at IS NULL))) AS p`,
      [s.companyId],
    );
    assert.deepEqual(bad.rows[0], { e: 0, p: 0 }, `round ${round}`);
  }
});
