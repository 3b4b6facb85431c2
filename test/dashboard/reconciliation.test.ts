/**
 * The reconciliation page's unmatched statement entries (docs/adr/0047): what a reconciled statement
 * left unmatched, newest first, paged, escaped, the company's own only.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { type Entry, statementWith } from '../support/statement-with.ts';
import { type Browser, get, signIn } from './support.ts';

let t: TestApp;
let sandbox: Awaited<ReturnType<typeof provisionAndLogin>>;
let browser: Browser;
let statement: { id: string; journalNo: string };

before(async () => {
  t = await startTestApp();
  sandbox = await provisionAndLogin(t);
  browser = await signIn(t, sandbox.dashboardLogin.email, sandbox.dashboardLogin.password);
  // 52 booked debits that no payment line explains; the last one's payee carries markup.
  const entries: Entry[] = Array.from({ length: 52 }, (_, i) => ({
    amount: `${i + 1}.00`,
    direction: 'DBIT',
    ref: `PG-REF-${i}`,
    name: i === 51 ? 'Evil &lt;script&gt;alert(1)&lt;/script&gt; Oy' : `Payee ${i}`,
    iban: 'FI5542345670000081',
    text: `Invoice ${i}`,
  }));
  const res = await t.request({
    method: 'POST',
    url: '/journal/ingest',
    headers: { 'x-api-key': sandbox.apiKey },
    payload: { companyId: sandbox.companyId, content: statementWith('PG-S1', 1, entries), environment: 'test' },
  });
  assert.equal(res.statusCode, 201, res.body);
  statement = res.json() as { id: string; journalNo: string };
});
after(() => t.close());

/** The unmatched entries' section of the page: its heading, then its rows. */
function section(body: string): { heading: string; rows: string[]; pager: string } {
  const at = body.indexOf('<h2 id="unmatched">');
  assert.ok(at >= 0, 'no unmatched entries section');
  const part = body.slice(at, body.indexOf('<h2>', at + 1));
  return {
    heading: /<h2 id="unmatched">([^<]*)<\/h2>/.exec(part)![1]!,
    rows: [...part.matchAll(/<tr><td>[\s\S]*?<\/tr>/g)].map((m) => m[0]),
    pager: /<p class="pager">([\s\S]*?)<\/p>/.exec(part)?.[1] ?? '',
  };
}

test('the newest 50 entries first, each with date, amount, counterparty, references and its statement; escaped', async () => {
  const page = await get(t, browser, '/dashboard/reconciliation');
  assert.equal(page.statusCode, 200);
  const { heading, rows, pager } = section(page.body);
  assert.equal(heading, 'Unmatched statement entries (52)');
  assert.equal(rows.length, 50);
  assert.equal(
    rows[0],
    `<tr><td>2026-11-20</td><td>debit</td><td class="num">52.00 EUR</td>
<td>Evil &lt;script&gt;alert(1)&lt;/script&gt; Oy<br><span class="muted">FI5542345670000081</span></td>
<td><div>ref PG-REF-51</div><div class="muted">Invoice 51</div></td>
<td><a href="/dashboard/journal/${statement.id}">${statement.journalNo}</a></td></tr>`,
  );
  assert.equal(page.body.includes('<script>alert(1)'), false);
  assert.match(rows[49]!, /ref PG-REF-2</);
  const next = /<a rel="next" href="([^"]+)#unmatched">Older entries<\/a>/.exec(pager)?.[1];
  assert.ok(next, pager);

  const second = await get(t, browser, next.replaceAll('&amp;', '&'));
  assert.equal(second.statusCode, 200);
  const older = section(second.body);
  assert.deepEqual(
    older.rows.map((r) => /ref (PG-REF-\d+)/.exec(r)?.[1]),
    ['PG-REF-1', 'PG-REF-0'],
  );
  assert.match(older.pager, /<a href="\/dashboard\/reconciliation#unmatched">Newest entries<\/a>/);
  assert.equal(older.pager.includes('Older entries'), false);
});

test("another company's page lists none of them", async () => {
  const other = await provisionAndLogin(t);
  const own = await signIn(t, other.dashboardLogin.email, other.dashboardLogin.password);
  const page = await get(t, own, '/dashboard/reconciliation');
  const { heading, rows } = section(page.body);
  assert.equal(heading, 'Unmatched statement entries (0)');
  assert.equal(rows.length, 0);
  assert.match(page.body, /Every booked debit and return of your statements matched a payment\./);
});

test('a forged entries cursor is a 400 page', async () => {
  const page = await get(t, browser, `/dashboard/reconciliation?entries=${Buffer.from('x').toString('base64url')}`);
  assert.equal(page.statusCode, 400);
  assert.match(page.body, /invalid cursor/);
});
