/**
 * The kept per-company counts (the statement triggers of src/db/functions/080, docs/adr/0035) against a count of
 * the documents themselves, after every kind of writer: the submit statement, ingest, COPY, status
 * and collected updates, deletes, folds (also two at once) and a company's removal. And the searched
 * text follows an update.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { generateJournal } from '../../bench/support/journal-generator.ts';
import { foldAllCounts, foldCompanyCounts } from '../../src/db/repositories/journal-counts.ts';
import { body, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { seedInbound } from './read-fixtures.ts';

let t: TestApp;
let a: Awaited<ReturnType<typeof provisionAndLogin>>;
let b: Awaited<ReturnType<typeof provisionAndLogin>>;
let client: pg.Client;
const scopeA = () => ({ platformId: a.platformId, companyId: a.companyId });

before(async () => {
  t = await startTestApp();
  a = await provisionAndLogin(t);
  b = await provisionAndLogin(t);
  client = new pg.Client({ connectionString: t.databaseUrl });
  await client.connect();
});
after(async () => {
  await client?.end();
  await t?.close();
});

/** Kept counts and counted documents, per company and key, both as sorted text lines. */
async function keptAndCounted(): Promise<{ kept: string[]; counted: string[] }> {
  const line = `platform_id || ' ' || company_id || ' ' || direction || ' ' || type || ' ' || status || ' ' || collected`;
  const kept = await client.query<{ k: string }>(
    `SELECT ${line} || ' ' || sum(n) AS k FROM journal_document_counts
      GROUP BY platform_id, company_id, direction, type, status, collected HAVING sum(n) <> 0 ORDER BY 1`,
  );
  const counted = await client.query<{ k: string }>(
    `SELECT ${line} || ' ' || count(*) AS k FROM journal_documents
      GROUP BY platform_id, company_id, direction, type, status, collected ORDER BY 1`,
  );
  return { kept: kept.rows.map((r) => r.k), counted: counted.rows.map((r) => r.k) };
}

async function assertKeptCounts(when: string) {
  const { kept, counted } = await keptAndCounted();
  assert.ok(counted.length > 0, when);
  assert.deepEqual(kept, counted, when);
}

test('the kept counts equal the documents after every writer', async () => {
  const submitted = await t.request({
    method: 'POST',
    url: '/journal/payments',
    headers: a.firstPayment.headers,
    payload: a.firstPayment.body,
  });
  assert.equal(submitted.statusCode, 201, submitted.body);
  await seedInbound(t, scopeA());
  await assertKeptCounts('submit and ingest');

  await generateJournal(client, a, { documents: 3000, tag: 'a' });
  await generateJournal(client, b, { documents: 1000, tag: 'b' });
  await assertKeptCounts('COPY');

  // Updates that move documents between keys, one that moves none, and a multi-row export.
  await t.ctx.db.execute(sql`UPDATE journal_documents SET status = 'executed'
    WHERE company_id = ${a.companyId} AND status IN ('sent', 'converted')`);
  await t.ctx.db.execute(sql`UPDATE journal_documents SET updated_at = now() WHERE company_id = ${a.companyId}`);
  const uncollected = await client.query<{ journal_no: string }>(
    `SELECT journal_no FROM journal_documents WHERE company_id = $1 AND NOT collected LIMIT 200`,
    [a.companyId],
  );
  const exported = await t.request({
    method: 'POST',
    url: '/journal/export',
    headers: { 'x-api-key': a.apiKey },
    payload: { companyId: a.companyId, journalNos: uncollected.rows.map((r) => r.journal_no) },
  });
  assert.equal(exported.statusCode, 200, exported.body);
  await assertKeptCounts('updates and export');

  await t.ctx.db.execute(sql`DELETE FROM journal_documents WHERE company_id = ${b.companyId} AND type = 'pain.002'`);
  await assertKeptCounts('delete');

  const rowsBefore = await client.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM journal_document_counts WHERE company_id = $1',
    [a.companyId],
  );
  // Two folds at once: each takes the rows the other does not hold; the sums stay.
  await Promise.all([foldCompanyCounts(t.ctx.db, scopeA()), foldCompanyCounts(t.ctx.db, scopeA())]);
  await assertKeptCounts('two folds at once');
  await foldCompanyCounts(t.ctx.db, scopeA());
  const rowsAfter = await client.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM journal_document_counts WHERE company_id = $1',
    [a.companyId],
  );
  const keys = (await keptAndCounted()).kept.filter((k) => k.includes(a.companyId)).length;
  assert.ok(rowsBefore.rows[0]!.n > keys, 'deltas piled up before the fold');
  assert.equal(rowsAfter.rows[0]!.n, keys, 'one row per key after it');

  // The company goes (its documents cascade); the sweep drops its rows.
  await t.ctx.db.execute(sql`DELETE FROM companies WHERE id = ${b.companyId}`);
  await foldAllCounts(t.ctx.db);
  const left = await client.query('SELECT 1 FROM journal_document_counts WHERE company_id = $1', [b.companyId]);
  assert.equal(left.rowCount, 0);
  await assertKeptCounts('company removed and swept');

  // The routes read them: total and uncollected of the list.
  const list = body<{ total: number; uncollected: number; countsExact: boolean }>(
    await t.request({
      method: 'GET',
      url: `/journal/list?companyId=${a.companyId}&limit=1`,
      headers: { 'x-api-key': a.apiKey },
    }),
  );
  const counted = await client.query<{ total: number; uncollected: number }>(
    `SELECT count(*)::int AS total, (count(*) FILTER (WHERE NOT collected))::int AS uncollected
       FROM journal_documents WHERE company_id = $1`,
    [a.companyId],
  );
  assert.deepEqual(
    { total: list.total, uncollected: list.uncollected, countsExact: list.countsExact },
    { ...counted.rows[0], countsExact: true },
  );
});

test('the searched text follows the row: an updated summary is found by its new text', async () => {
  const [doc] = (
    await client.query<{ id: string }>(
      `SELECT id FROM journal_documents WHERE company_id = $1 AND direction = 'outbound' LIMIT 1`,
      [a.companyId],
    )
  ).rows;
  await client.query(`UPDATE journal_documents SET summary = 'A summary nobody else has' WHERE id = $1`, [doc!.id]);
  // Setting search_text directly is overwritten by the trigger.
  await client.query(`UPDATE journal_documents SET search_text = 'forged' WHERE id = $1`, [doc!.id]);
  const found = body<{ items: Array<{ id: string }>; total: number; totalExact: boolean }>(
    await t.request({
      method: 'GET',
      url: `/journal/documents?companyId=${a.companyId}&q=${encodeURIComponent('SUMMARY NOBODY ELSE')}`,
      headers: { 'x-api-key': a.apiKey },
    }),
  );
  assert.deepEqual(
    found.items.map((d) => d.id),
    [doc!.id],
  );
  assert.equal(found.total, 1);
  assert.equal(found.totalExact, true);
  const forged = await client.query('SELECT 1 FROM journal_documents WHERE search_text = $1', ['forged']);
  assert.equal(forged.rowCount, 0);
});
