/**
 * The Receivables and Exceptions pages through inject (docs/adr/0075): expected payments against
 * what was received, overdue first, with a server-drawn SVG chart per currency; the exceptions queue
 * with each subject beside its candidates and a match form that goes through the manual-match use
 * case (the audit names the signed-in person). The same journey in Chromium: exceptions-browser.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { credits, expect, incoming, ingest } from '../receivables/support.ts';
import { type Browser, get, post, signIn } from './support.ts';

let t: TestApp;
let db: pg.Client;
let s: Awaited<ReturnType<typeof provisionAndLogin>>;
let browser: Browser;
before(async () => {
  t = await startTestApp();
  db = new pg.Client({ connectionString: t.databaseUrl });
  await db.connect();
  s = await provisionAndLogin(t);
  browser = await signIn(t, s.dashboardLogin.email, s.dashboardLogin.password);
});
after(async () => {
  await db.end();
  await t.close();
});

const today = new Date().toISOString().slice(0, 10);
const daysFromToday = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);

test('Receivables: overdue first, expected against received, and an SVG bar per day and series', async () => {
  const overdue = await expect(t, s, { amount: '15.00', dateFrom: daysFromToday(-10), dateTo: daysFromToday(-2) });
  const open = await expect(t, s, {
    amount: '42.00',
    dateFrom: daysFromToday(-3),
    dateTo: daysFromToday(3),
    counterparty: { iban: 'DE89370400440532013000' },
  });
  await ingest(
    t,
    s,
    credits('RCV-PAGE', [{ amount: '42.00', ref: 'RCV-P-1', iban: 'DE89370400440532013000', day: today }]),
  );
  const page = await get(t, browser, '/dashboard/receivables');
  assert.equal(page.statusCode, 200, page.body);
  const body = page.body;
  assert.ok(body.indexOf(overdue.id) < body.indexOf(open.id), 'overdue first');
  assert.match(body, /<nav aria-label="Dashboard">[\s\S]*href="\/dashboard\/receivables" aria-current="page"/);
  const chart = /<svg id="receivables-EUR"[\s\S]*?<\/svg>/.exec(body)?.[0];
  assert.ok(chart, 'the EUR chart');
  // 45 days, two bars each, plus the legend's two swatches.
  assert.equal((chart.match(/<rect /g) ?? []).length, 45 * 2 + 2);
  assert.match(chart, new RegExp(`<title>${daysFromToday(3)}: expected 42.00 EUR</title>`));
  assert.match(chart, new RegExp(`<title>${today}: received 42.00 EUR</title>`));
  assert.match(chart, new RegExp(`<title>${daysFromToday(-2)}: expected 15.00 EUR</title>`));
  assert.doesNotMatch(chart, /style=|<script/);
  const row = new RegExp(
    `<code>${open.id}</code></td><td class="num">42.00 EUR</td>\\s*<td class="num">42.00</td><td class="num">0.00</td>`,
  );
  assert.match(body, row, 'expected against received');
});

test('Exceptions: the subject beside its candidates, matched with a reason through the form, then gone', async () => {
  const e = await expect(t, s, { amount: '99.00', remittanceContains: 'PO-31337' });
  await ingest(t, s, credits('EXC-PAGE', [{ amount: '98.00', ref: 'EXC-P-1', text: 'order 31337' }]));
  const credit = (await incoming(t, s)).find((i) => i.amount === '98.00')!;
  assert.equal(credit.status, 'unmatched');
  const page = await get(t, browser, '/dashboard/exceptions?kind=unmatched-incoming');
  assert.equal(page.statusCode, 200, page.body);
  assert.match(page.body, new RegExp(`<h3>Credits nothing matched: ${credit.id}</h3>`));
  assert.match(page.body, new RegExp(`name="expected:${e.id}"><label for="pick-\\d+-\\d+">Match to ${e.id}</label>`));
  const refused = await post(t, browser, '/dashboard/exceptions/match', { incomingPaymentId: credit.id, reason: 'x' });
  assert.equal(refused.statusCode, 400);
  assert.match(refused.body, /role="alert">expectedPaymentIds: at least one/);
  const done = await post(t, browser, '/dashboard/exceptions/match', {
    incomingPaymentId: credit.id,
    [`expected:${e.id}`]: 'on',
    reason: 'the customer wrote the order number without its prefix',
  });
  assert.equal(done.statusCode, 200, done.body);
  assert.match(done.body, new RegExp(`role="status">Matched ${credit.id} to ${e.id} \\(98.00\\)`));
  assert.doesNotMatch(done.body, new RegExp(`<h3>[^<]*${credit.id}</h3>`));
  const audit = await db.query(
    `SELECT a.actor_user_id, u.email, a.metadata->>'reason' AS reason FROM activity_events a
       JOIN users u ON u.id = a.actor_user_id WHERE a.company_id = $1 AND a.type = 'reconciliation.manual_match'`,
    [s.companyId],
  );
  assert.deepEqual(
    audit.rows.map((r) => [r.email, r.reason]),
    [[s.dashboardLogin.email, 'the customer wrote the order number without its prefix']],
  );
});
