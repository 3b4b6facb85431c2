/**
 * Part of `npm run bench:http`: GET /journal/documents, first page at the default limit, over
 * 100,000 documents of one company (issue 5 target: p99 at most 20 ms), at 1 and 32 connections.
 * The server runs in a child process on an embedded PostgreSQL (or DATABASE_URL); the documents are
 * seeded in SQL (INSERT ... SELECT generate_series), then VACUUM ANALYZE, as a settled table is.
 * The run prints the plan of the page query, to show it walks journal_documents_page_idx.
 */
import { spawn } from 'node:child_process';
import autocannon from 'autocannon';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 8);
const DOCUMENTS = Number(process.env.BENCH_DOCUMENTS ?? 100_000);

async function serve(): Promise<void> {
  const { sql } = await import('drizzle-orm');
  const { startBenchApp } = await import('./support/bench-app.ts');
  const bench = await startBenchApp();
  const { app, ctx } = bench;
  const provision = async () =>
    (await app.inject({ method: 'POST', url: '/sandbox/provision', payload: {} })).json() as {
      apiKey: string;
      companyId: string;
      platformId: string;
    };
  const company = await provision();
  // A neighbour with documents of its own, so the company condition has something to exclude.
  const neighbour = await provision();

  const seed = async (scope: { platformId: string; companyId: string }, count: number, tag: string) => {
    await ctx.db.execute(sql`
      INSERT INTO journal_documents (id, platform_id, company_id, journal_no, direction, type, source_format, bank_key,
        environment, status, message_id, import_source, transaction_count, totals, payment_type, summary,
        delivery_mode, delivery_status, collected, created_at, updated_at, expires_at)
      SELECT 'doc_' || ${tag} || lpad(g::text, 9, '0'), ${scope.platformId}, ${scope.companyId}, 'OUT-' || g,
        'outbound', 'pain.001', 'pain.001.001.03', 'demo', 'test',
        (ARRAY['converted','sent','executed','rejected'])[1 + g % 4], 'MSG-' || ${tag} || '-' || g, 'api',
        1 + g % 5, jsonb_build_array(jsonb_build_object('currency', 'EUR', 'amount', (1 + g % 9999)::text || '.50')),
        'SEPA', (1 + g % 5)::text || ' payments to Supplier ' || (g % 977)::text, 'host-to-host', 'queued',
        g % 3 = 0, timestamptz '2025-01-01T00:00:00Z' + g * interval '250 milliseconds',
        timestamptz '2025-01-01T00:00:00Z' + g * interval '250 milliseconds',
        timestamptz '2035-01-01T00:00:00Z'
      FROM generate_series(1, ${count}) AS g`);
    await ctx.db.execute(sql`INSERT INTO journal_counters (company_id, direction, last_no)
      VALUES (${scope.companyId}, 'outbound', ${count})
      ON CONFLICT (company_id, direction) DO UPDATE SET last_no = excluded.last_no`);
  };
  const started = Date.now();
  await seed(company, DOCUMENTS, 'a');
  await seed(neighbour, Math.floor(DOCUMENTS / 2), 'b');
  await ctx.db.execute(sql`VACUUM ANALYZE journal_documents`);
  const seededMs = Date.now() - started;
  const plan = await ctx.db.execute<{ 'QUERY PLAN': string }>(sql`EXPLAIN ANALYZE
    SELECT id FROM journal_documents WHERE company_id = ${company.companyId} AND platform_id = ${company.platformId}
    ORDER BY created_at DESC NULLS LAST, id DESC NULLS LAST LIMIT 51`);

  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  process.stdout.write(
    `${JSON.stringify({ port, apiKey: company.apiKey, companyId: company.companyId, seededMs, plan: plan.rows.map((r) => r['QUERY PLAN']) })}\n`,
  );
  process.stdin.resume();
  process.stdin.on('end', async () => {
    await bench.close();
    process.exit(0);
  });
}

type Row = { name: string; connections: number; rps: number; p50: number; p99: number; errors: number };

async function measure(name: string, url: string, connections: number, headers: Record<string, string>) {
  const result = await autocannon({ url, connections, duration: DURATION_S, headers });
  return {
    name,
    connections,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors,
  } satisfies Row;
}

/** Filters, the 500-row list and text search, at the concurrency each is meant for. */
async function otherRows(base: string, headers: Record<string, string>): Promise<Row[]> {
  return [
    await measure('GET /journal/documents?status=executed,rejected', `${base}&status=executed,rejected`, 32, headers),
    await measure(
      'GET /journal/list first page (default limit 500)',
      base.replace('/journal/documents', '/journal/list'),
      32,
      headers,
    ),
    // Text search has no trigram index: each request reads the company's rows (docs/journal-reads.md).
    await measure('GET /journal/documents?q=supplier%2097 (text search)', `${base}&q=supplier%2097`, 1, headers),
  ];
}

async function main(): Promise<void> {
  const child = spawn(process.execPath, [import.meta.filename, '--serve'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const server: { port: number; apiKey: string; companyId: string; seededMs: number; plan: string[] } =
    await new Promise((resolve, reject) => {
      let buffer = '';
      child.stdout.on('data', (chunk: Buffer) => {
        buffer += chunk.toString();
        const line = buffer.split('\n')[0];
        if (buffer.includes('\n') && line) resolve(JSON.parse(line));
      });
      child.on('exit', (code) => reject(new Error(`server exited with ${code}`)));
    });
  const base = `http://127.0.0.1:${server.port}/journal/documents?companyId=${server.companyId}`;
  const headers = { 'x-api-key': server.apiKey };
  // Warm-up: connections, prepared plans and the buffer cache.
  await autocannon({ url: base, connections: 4, duration: 2, headers });
  const rows: Row[] = [];
  for (const connections of [1, 32]) {
    rows.push(await measure('GET /journal/documents first page (default limit 50)', base, connections, headers));
  }
  // BENCH_ROWS=first-page measures the first-page rows only (the issue-5 target).
  if (process.env.BENCH_ROWS !== 'first-page') rows.push(...(await otherRows(base, headers)));
  child.stdin.end();
  process.stdout.write(
    `\nGET /journal/documents over ${DOCUMENTS.toLocaleString('en')} documents of one company (+${(DOCUMENTS / 2).toLocaleString('en')} of another), seeded in ${server.seededMs} ms; ${DURATION_S} s per row\n`,
  );
  process.stdout.write(`\nPage query plan:\n${server.plan.map((l) => `    ${l}`).join('\n')}\n\n`);
  process.stdout.write(
    '| route | connections | req/s | p50 ms | p99 ms | non-2xx/errors |\n|---|---|---|---|---|---|\n',
  );
  for (const r of rows)
    process.stdout.write(`| ${r.name} | ${r.connections} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.errors} |\n`);
}

if (process.argv.includes('--serve')) await serve();
else await main();
