/**
 * The first page's hot path (docs/adr/0053: counts and page in one named statement, rows mapped to the
 * view without Date objects) answers what the general path answers: the same JSON for every document,
 * key for key, the same order, cursor and total, including a company with no document at all.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { generateJournal } from '../../bench/support/journal-generator.ts';
import { pageItemView } from '../../src/app/journal/document-view.ts';
import { summaryView } from '../../src/app/journal/read-documents.ts';
import { metaRowOf, pageRows } from '../../src/db/repositories/journal-pages.ts';
import { walkPageWithTotal } from '../../src/db/repositories/journal-walk-page.ts';
import { body, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';

let t: TestApp;
let a: Awaited<ReturnType<typeof provisionAndLogin>>;
let empty: Awaited<ReturnType<typeof provisionAndLogin>>;
let client: pg.Client;
const DOCUMENTS = 600;

before(async () => {
  t = await startTestApp();
  a = await provisionAndLogin(t);
  empty = await provisionAndLogin(t);
  client = new pg.Client({ connectionString: t.databaseUrl });
  await client.connect();
  await generateJournal(client, a, { documents: DOCUMENTS, tag: 'v' });
  // A real submitted payment too: a bank key with a profile name, idempotency key, delivery mode.
  const payment = await t.request({
    method: 'POST',
    url: '/journal/payments',
    headers: { 'x-api-key': a.apiKey, 'idempotency-key': 'page-item-view' },
    payload: a.firstPayment.body,
  });
  assert.equal(payment.statusCode, 201, payment.body);
  // Collected and expiring documents, at microsecond precision (the view keeps milliseconds, cut).
  await client.query(
    `UPDATE journal_documents SET collected = true, collected_at = '2026-01-02T03:04:05.678999Z',
            expires_at = '2030-12-31T23:59:59.999999Z'
      WHERE id IN (SELECT id FROM journal_documents WHERE company_id = $1 ORDER BY id LIMIT 7)`,
    [a.companyId],
  );
});
after(async () => {
  await client?.end();
  await t?.close();
});

type Page = { items: Array<{ id: string }>; nextCursor: string | null; total: number; totalExact: boolean };

test('every row maps to the same JSON as documentView of the general row', async () => {
  const scope = { platformId: a.platformId, companyId: a.companyId };
  const rows = await pageRows(t.ctx.db, scope, { kind: 'walk' }, {}, undefined, 1000);
  assert.equal(rows.length, DOCUMENTS + 1);
  assert.ok(rows.some((r) => r.collected_at !== null));
  assert.ok(rows.some((r) => r.expires_at !== null));
  assert.ok(rows.some((r) => r.delivery_status !== null));
  assert.ok(rows.some((r) => r.bank_key !== null && pageItemView(r).bankName !== r.bank_key));
  for (const row of rows) assert.equal(JSON.stringify(pageItemView(row)), JSON.stringify(summaryView(metaRowOf(row))));
});

test('the one-statement walk gives the general walk’s pages and the kept counts’ total', async () => {
  const scope = { platformId: a.platformId, companyId: a.companyId };
  let key: { sortKey: string; id: string } | undefined;
  let pages = 0;
  for (;;) {
    const walk = await walkPageWithTotal(t.ctx.db, scope, key, 101);
    const general = await pageRows(t.ctx.db, scope, { kind: 'walk' }, {}, key, 101);
    assert.deepEqual(
      walk.rows.map((r) => r.id),
      general.map((r) => r.id),
    );
    assert.equal(walk.total, DOCUMENTS + 1);
    assert.ok(walk.countRows >= walk.countKeys && walk.countKeys > 0);
    pages++;
    if (walk.rows.length < 101) break;
    const last = walk.rows[99]!;
    key = { sortKey: last.sort_key, id: last.id };
  }
  assert.equal(pages, Math.ceil((DOCUMENTS + 1) / 100));
  const none = await walkPageWithTotal(
    t.ctx.db,
    { platformId: empty.platformId, companyId: empty.companyId },
    undefined,
    51,
  );
  assert.deepEqual(none, { rows: [], unchanged: false, version: '', total: 0, countRows: 0, countKeys: 0 });
  // Given the page's version, the statement answers the counts and the version, no row.
  const page = await walkPageWithTotal(t.ctx.db, scope, undefined, 51);
  const again = await walkPageWithTotal(t.ctx.db, scope, undefined, 51, page.version);
  assert.deepEqual(again, { ...page, rows: [], unchanged: true });
  const stale = await walkPageWithTotal(t.ctx.db, scope, undefined, 51, 'another version');
  assert.deepEqual(stale, page);
});

test('GET /journal/documents pages through every document, newest first, with the exact total', async () => {
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const res = await t.request({
      method: 'GET',
      url: `/journal/documents?companyId=${a.companyId}&limit=250${cursor ? `&cursor=${cursor}` : ''}`,
      headers: { 'x-api-key': a.apiKey },
    });
    assert.equal(res.statusCode, 200, res.body);
    const page = body<Page>(res);
    assert.equal(page.total, DOCUMENTS + 1);
    assert.equal(page.totalExact, true);
    seen.push(...page.items.map((d) => d.id));
    cursor = page.nextCursor;
  } while (cursor);
  const expected = await client.query<{ id: string }>(
    'SELECT id FROM journal_documents WHERE company_id = $1 ORDER BY created_at DESC, id DESC',
    [a.companyId],
  );
  assert.deepEqual(
    seen,
    expected.rows.map((r) => r.id),
  );
  const res = await t.request({
    method: 'GET',
    url: `/journal/documents?companyId=${empty.companyId}`,
    headers: { 'x-api-key': empty.apiKey },
  });
  assert.deepEqual(body(res), { items: [], nextCursor: null, total: 0, totalExact: true });
});

async function firstPage(query = ''): Promise<{ text: string; page: Page }> {
  const res = await t.request({
    method: 'GET',
    url: `/journal/documents?companyId=${a.companyId}${query}`,
    headers: { 'x-api-key': a.apiKey },
  });
  assert.equal(res.statusCode, 200, res.body);
  return { text: res.body, page: body<Page>(res) };
}

test('the kept first page is the general path’s answer and follows every change at once', async () => {
  // Every status named: a key filter, so the general path (no kept JSON) makes the same page.
  const everyStatus = async () => {
    const found = await client.query<{ status: string }>(
      'SELECT DISTINCT status FROM journal_documents WHERE company_id = $1',
      [a.companyId],
    );
    return `&status=${found.rows.map((r) => r.status).join(',')}`;
  };
  const general = await firstPage(await everyStatus());
  const first = await firstPage();
  const again = await firstPage();
  assert.equal(first.text, JSON.stringify(general.page));
  assert.equal(again.text, first.text);

  // An update that changes no counted column (the counts' rows stay as they were) is seen.
  const newest = first.page.items[0]!.id;
  await client.query(`UPDATE journal_documents SET summary = 'changed while kept' WHERE id = $1`, [newest]);
  const updated = await firstPage();
  assert.equal((updated.page.items[0] as { summary?: string }).summary, 'changed while kept');
  // A document submitted is on the next first page, and in its total.
  const submitted = await t.request({
    method: 'POST',
    url: '/journal/payments',
    headers: { 'x-api-key': a.apiKey, 'idempotency-key': 'page-item-view-2' },
    payload: { ...a.firstPayment.body, payment: { ...a.firstPayment.body.payment, messageId: 'KEPT-PAGE-2' } },
  });
  assert.equal(submitted.statusCode, 201, submitted.body);
  const after = await firstPage();
  assert.equal(after.page.items[0]!.id, body<{ id: string }>(submitted).id);
  assert.equal(after.page.total, updated.page.total + 1);
  // A document deleted (retention) leaves it.
  await client.query('DELETE FROM journal_documents WHERE id = $1', [after.page.items[0]!.id]);
  const removed = await firstPage();
  assert.equal(removed.text, JSON.stringify((await firstPage(await everyStatus())).page));
  assert.equal(removed.page.items[0]!.id, newest);
  assert.equal(removed.page.total, updated.page.total);
});
