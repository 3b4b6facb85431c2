/**
 * Every list route, with each filter, read from indexes that match its order and filters: each
 * statement a request sends is explained with sequential scans disabled, and the test fails on a
 * sequential scan that remains over a table holding a company's rows (no index can serve the
 * statement) or on a sort of more rows than a page (the index does not give the page's order). The
 * company is generated (COPY) large enough for the text search to take both of its paths, and the
 * search answers are checked against a plain scan of the same text.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { generateJournal } from '../../bench/support/journal-generator.ts';
import { SEARCH_WALK, searchTail } from '../../src/db/repositories/journal-pages.ts';
import { body, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { explain, findings, indexConditions, recordStatements } from '../support/query-plans.ts';

const COMPANY_ROWS = new Set([
  'journal_documents',
  'journal_document_counts',
  'payment_lines',
  'activity_events',
  'account_statements',
  'bank_accounts',
  'webhook_endpoints',
  'webhook_deliveries',
  'companies',
  'api_keys',
  'users',
  'connections',
]);
/**
 * A statement may sort more rows than any page holds (the largest is 1,000) and read as many as a
 * text search walks (SEARCH_WALK index entries) plus its page, never the company's documents.
 */
const LIMITS = { maxSorted: 2000, maxExamined: SEARCH_WALK + 2000 };
const DOCUMENTS = SEARCH_WALK + 10_000;

let t: TestApp;
let a: Awaited<ReturnType<typeof provisionAndLogin>>;
let client: pg.Client;
let endpointId: string;
/** What the last checkPlans request's statements gave the trigram index (docs/adr/0050). */
let trigramConditions: string[] = [];

before(async () => {
  t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
  a = await provisionAndLogin(t);
  const b = await provisionAndLogin(t);
  client = new pg.Client({ connectionString: t.databaseUrl });
  await client.connect();
  await generateJournal(client, b, { documents: 5000, tag: 'b', rebuildIndexes: true });
  await generateJournal(client, a, { documents: DOCUMENTS, tag: 'a', rebuildIndexes: true });
  await client.query('VACUUM ANALYZE');
  const created = await t.request({
    method: 'POST',
    url: '/webhooks',
    headers: { 'x-api-key': a.apiKey },
    payload: { companyId: a.companyId, url: 'https://hooks.example.test/in' },
  });
  assert.equal(created.statusCode, 201, created.body);
  endpointId = body<{ endpoint: { id: string } }>(created).endpoint.id;
});
after(async () => {
  await client?.end();
  await t?.close();
});

const key = () => ({ 'x-api-key': a.apiKey });
const session = () => ({ 'x-session-token': a.sessionToken });

/** GETs the route, then explains every statement it sent; answers the parsed body. */
async function checkPlans(url: string, headers: Record<string, string>): Promise<Record<string, unknown>> {
  const recording = recordStatements(t.ctx.db.$client);
  const res = await t.request({ method: 'GET', url, headers });
  const statements = recording.stop();
  assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
  let explained = 0;
  trigramConditions = [];
  for (const statement of statements) {
    if (!/^\s*(SELECT|WITH|\()/i.test(statement.text)) continue;
    const nodes = await explain(client, statement);
    trigramConditions.push(...indexConditions(nodes, 'journal_documents_search_idx'));
    const found = findings(nodes, COMPANY_ROWS, LIMITS);
    assert.deepEqual(found, [], `${url}\n${statement.text}\n${JSON.stringify(found)}`);
    explained++;
  }
  assert.ok(explained > 0, `${url} sent no statement to explain`);
  return res.json() as Record<string, unknown>;
}

test('the check itself fails on a statement that walks the company or sorts it', async () => {
  const walk = `SELECT id FROM journal_documents WHERE company_id = $1 AND summary LIKE '%no such text%'
    ORDER BY created_at DESC NULLS LAST, id DESC NULLS LAST LIMIT 50`;
  const sorted = `SELECT id FROM journal_documents WHERE company_id = $1 ORDER BY updated_at DESC LIMIT 50`;
  const walked = findings(await explain(client, { text: walk, values: [a.companyId] }), COMPANY_ROWS, LIMITS);
  assert.deepEqual(
    walked.map((f) => f.node),
    ['rows examined'],
  );
  const sorts = findings(await explain(client, { text: sorted, values: [a.companyId] }), COMPANY_ROWS, LIMITS);
  assert.ok(
    sorts.some((f) => f.node === 'Sort'),
    JSON.stringify(sorts),
  );
});

const documents = (query: string) => `/journal/documents?companyId=${a.companyId}${query}`;

test('GET /journal/documents: first page, every filter, dates, text and the next page', async () => {
  const first = await checkPlans(documents(''), key());
  assert.equal(first.total, DOCUMENTS);
  assert.equal(first.totalExact, true);
  await checkPlans(documents(`&cursor=${first.nextCursor}`), key());
  for (const filter of [
    '&status=rejected',
    '&status=executed,rejected',
    '&status=pending-approval',
    '&direction=inbound',
    '&direction=outbound&collected=false',
    '&type=camt.053',
    '&collected=false',
    '&dateFrom=2020-01-01&dateTo=2020-01-31',
    `&dateFrom=${new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10)}`,
    '&type=camt.053&dateFrom=2020-01-01',
    '&status=rejected&collected=true&dateTo=2100-12-31',
  ]) {
    const page = await checkPlans(documents(filter), key());
    if (page.nextCursor) await checkPlans(documents(`${filter}&cursor=${page.nextCursor}`), key());
  }
});

/** The same text searched by a plain scan of the fields the contract names (no index, no search_text). */
async function scanned(text: string): Promise<string[]> {
  const result = await client.query<{ id: string }>(
    `SELECT id FROM journal_documents
      WHERE company_id = $1
        AND concat_ws(E'\\x1f', summary, message_id, journal_no, bank_key, status, type,
              (SELECT string_agg((t->>'currency') || ' ' || (t->>'amount'), E'\\x1f') FROM jsonb_array_elements(totals) AS t))
            ILIKE '%' || replace(replace(replace($2, '\\', '\\\\'), '%', '\\%'), '_', '\\_') || '%'
      ORDER BY created_at DESC, id DESC`,
    [a.companyId, text],
  );
  return result.rows.map((r) => r.id);
}

test('text search: frequent text (walk) and rare text (trigram index) give the scan’s answers, newest first', async () => {
  // Frequent: a supplier; rare: one message id (the walk's budget passes before it is found).
  const oldest = await client.query<{ message_id: string }>(
    `SELECT message_id FROM journal_documents WHERE company_id = $1 AND direction = 'outbound'
      ORDER BY created_at, id LIMIT 1`,
    [a.companyId],
  );
  const messageId = oldest.rows[0]!.message_id;
  // 'zzz executed' matches nothing, and its tail ('executed') nearly every document: the whole text
  // goes to the trigram index instead.
  for (const text of ['Supplier 97 ', 'EXECUTED', messageId, 'no such text at all', '100%_', 'zzz executed']) {
    const expected = await scanned(text);
    const seen: string[] = [];
    let cursor: unknown = null;
    let total: unknown;
    do {
      const page = await checkPlans(
        documents(`&limit=1000&q=${encodeURIComponent(text)}${cursor ? `&cursor=${cursor}` : ''}`),
        key(),
      );
      seen.push(...(page.items as Array<{ id: string }>).map((d) => d.id));
      total ??= { count: page.total, exact: page.totalExact };
      cursor = page.nextCursor;
    } while (cursor && seen.length < 3000);
    if (expected.length <= 3000) assert.deepEqual(seen, expected, text);
    else assert.deepEqual(seen.slice(0, 3000), expected.slice(0, 3000), text);
    const { count, exact } = total as { count: number; exact: boolean };
    if (exact) assert.equal(count, expected.length, text);
    // An estimate from a sample: within a factor of two of the truth for frequent text.
    else
      assert.ok(count > expected.length / 2 && count < expected.length * 2, `${text}: ${count} vs ${expected.length}`);
    if (text === messageId) {
      // Rare text: the trigram index is given its tail only (the head's trigrams are in every id).
      const tail = searchTail(text)!.toLowerCase();
      assert.ok(tail.length < text.length, tail);
      assert.deepEqual(trigramConditions, [`(search_text ~~ '%${tail}%'::text)`], text);
    }
    // A common tail: its candidates pass TAIL_CANDIDATES, and the whole text is given to the index.
    if (text === 'zzz executed')
      assert.ok(trigramConditions.includes(`(search_text ~~ '%${text}%'::text)`), JSON.stringify(trigramConditions));
  }
});

test('GET /journal/list, /journal/reconciliation and /journal/events: pages and filters', async () => {
  const list = await checkPlans(`/journal/list?companyId=${a.companyId}`, key());
  assert.equal(list.total, DOCUMENTS);
  await checkPlans(`/journal/list?companyId=${a.companyId}&cursor=${list.nextCursor}`, key());
  await checkPlans(`/journal/list?companyId=${a.companyId}&uncollectedOnly=true`, key());
  await checkPlans(`/journal/list?companyId=${a.companyId}&direction=inbound&type=pain.002`, key());
  const recon = await checkPlans(`/journal/reconciliation?companyId=${a.companyId}`, key());
  await checkPlans(`/journal/reconciliation?companyId=${a.companyId}&cursor=${recon.nextCursor}`, key());
  const events = await checkPlans(`/journal/events?companyId=${a.companyId}&limit=500`, key());
  await checkPlans(`/journal/events?companyId=${a.companyId}&limit=500&cursor=${events.nextCursor}`, key());
  await checkPlans(`/journal/events?companyId=${a.companyId}&limit=500&since=1000`, key());
});

test('accounts, webhooks and their deliveries, platform companies, keys and admins', async () => {
  await checkPlans(`/accounts?companyId=${a.companyId}`, session());
  await checkPlans(`/webhooks?companyId=${a.companyId}`, key());
  await checkPlans(`/webhooks/${endpointId}/deliveries?companyId=${a.companyId}`, key());
  await checkPlans(`/platforms/${a.platformId}/companies`, session());
  await checkPlans(`/platforms/${a.platformId}/api-keys`, session());
  await checkPlans(`/platforms/${a.platformId}/admins`, session());
});
