/**
 * Part of `npm run bench:http`: the journal's list routes over a company of 100,000 and one of
 * 1,000,000 documents (BENCH_DOCUMENTS=100000,1000000; issue 29 targets with one client: first page,
 * filtered page and text search p99 at most 20 ms, /journal/list of 500 rows at most 50 ms; at 32
 * connections the first page at least 1,500 requests/s), side by side.
 * Each size runs in its own server child on a fresh embedded PostgreSQL (or a fresh database on the
 * DATABASE_URL server), seeded by the COPY generator (bench/support/journal-generator.ts: documents
 * with lines, events and statements, plus a neighbour company of a tenth of the size), then
 * VACUUM ANALYZE, as a settled table is. The run prints the plans of the page and search queries.
 * The dashboard's journal first page and a document page (issue 27: at most 50 ms at p95 with one
 * user) are timed request by request with the sandbox admin's session cookie; BENCH_ROWS=dashboard
 * runs those rows only.
 * BENCH_KEEP=1 keeps each size's seeded database (a folder under the temp directory, or a database on
 * the server) and reuses it on the next run with BENCH_KEEP=1 (a million documents take minutes to
 * seed); BENCH_ROWS=seed only builds them.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import type pg from 'pg';
import type { BenchApp } from './support/bench-app.ts';
import { firstJsonLine } from './support/child-line.ts';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 8);
const SIZES = (process.env.BENCH_DOCUMENTS ?? '100000,1000000').split(',').map(Number);

type Served = {
  port: number;
  apiKey: string;
  companyId: string;
  /** The sandbox admin's session, as the dashboard's cookie carries it. */
  sessionToken: string;
  /** A real submitted payment of the company (its sealed payload and file decrypt): the document page. */
  documentId: string;
  journalNo: string;
  seededMs: number;
  rareText: string;
  plans: Record<string, string[]>;
};

type Provisioned = {
  apiKey: string;
  companyId: string;
  platformId: string;
  dashboardLogin: { email: string; password: string };
  firstPayment: { body: Record<string, unknown> };
};

/** What a seeded database holds that the measurements need (kept beside a BENCH_KEEP database). */
type Seeded = { company: Provisioned; documentId: string; journalNo: string; rareText: string; seededMs: number };

async function seed(bench: BenchApp, client: pg.PoolClient, documents: number): Promise<Seeded> {
  const { generateJournal } = await import('./support/journal-generator.ts');
  const { app } = bench;
  const provision = async () =>
    (await app.inject({ method: 'POST', url: '/sandbox/provision', payload: {} })).json() as Provisioned;
  const company = await provision();
  // A neighbour with documents of its own, so the company condition has something to exclude.
  const neighbour = await provision();
  const started = Date.now();
  await generateJournal(client, neighbour, { documents: Math.floor(documents / 10), tag: 'b', rebuildIndexes: true });
  await generateJournal(client, company, { documents, tag: 'a', rebuildIndexes: true });
  // The generator's sealed columns are stand-in bytes; the document page needs a real payment.
  const submitted = (
    await app.inject({
      method: 'POST',
      url: '/journal/payments',
      headers: { 'x-api-key': company.apiKey, 'idempotency-key': 'bench-dashboard-document' },
      payload: company.firstPayment.body,
    })
  ).json() as { id: string; journalNo: string };
  await client.query('VACUUM ANALYZE');
  // A message id from the middle of the company: rare text, found through the trigram index.
  const rare = await client.query<{ message_id: string }>(
    `SELECT message_id FROM journal_documents WHERE company_id = $1 AND journal_no = $2`,
    [company.companyId, `OUT-${Math.floor(documents * 0.4)}`],
  );
  return {
    company,
    documentId: submitted.id,
    journalNo: submitted.journalNo,
    rareText: rare.rows[0]?.message_id ?? 'MSG-none',
    seededMs: Date.now() - started,
  };
}

async function serve(documents: number): Promise<void> {
  const { startBenchApp } = await import('./support/bench-app.ts');
  // BENCH_KEEP=1: the seeded database is kept (and reused by the next run with it), per size and server.
  const keep = process.env.BENCH_KEEP
    ? `bench_journal_${documents}_${process.env.DATABASE_URL ? 'server' : 'embedded'}`
    : undefined;
  const bench = await startBenchApp(20, keep);
  const { app } = bench;
  const keptFile = keep === undefined ? undefined : path.join(tmpdir(), `payops-${keep}.json`);
  const client = await bench.ctx.db.$client.connect();
  try {
    let seeded: Seeded;
    if (keptFile !== undefined && existsSync(keptFile)) seeded = JSON.parse(readFileSync(keptFile, 'utf8')) as Seeded;
    else {
      seeded = await seed(bench, client, documents);
      if (keptFile !== undefined) writeFileSync(keptFile, JSON.stringify(seeded));
    }
    const { company } = seeded;
    const login = (
      await app.inject({ method: 'POST', url: '/auth/login', payload: company.dashboardLogin })
    ).json() as { sessionToken: string };
    const plans: Record<string, string[]> = {};
    const explain = async (name: string, text: string, values: unknown[]) => {
      const r = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, values);
      plans[name] = r.rows.map((row) => row['QUERY PLAN']);
    };
    await explain(
      'first page',
      `SELECT id FROM journal_documents WHERE company_id = $1 AND platform_id = $2
        ORDER BY created_at DESC NULLS LAST, id DESC NULLS LAST LIMIT 51`,
      [company.companyId, company.platformId],
    );
    await explain(
      'text search walk (supplier 97)',
      `SELECT id FROM (SELECT id, created_at, search_text FROM journal_documents WHERE company_id = $1
         ORDER BY created_at DESC NULLS LAST, id DESC NULLS LAST LIMIT 20000) AS w
        WHERE search_text LIKE '%supplier 97%' ORDER BY created_at DESC NULLS LAST, id DESC NULLS LAST LIMIT 51`,
      [company.companyId],
    );
    await app.listen({ port: 0, host: '127.0.0.1' });
    const port = (app.server.address() as { port: number }).port;
    const served: Served = {
      port,
      apiKey: company.apiKey,
      companyId: company.companyId,
      sessionToken: login.sessionToken,
      documentId: seeded.documentId,
      journalNo: seeded.journalNo,
      seededMs: seeded.seededMs,
      rareText: seeded.rareText,
      plans,
    };
    process.stdout.write(`${JSON.stringify(served)}\n`);
  } finally {
    client.release();
  }
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

type PageRow = { name: string; samples: number; p50: number; p95: number; p99: number };

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/**
 * A dashboard page's server time with one user: requests one after the other on loopback (so the time
 * is the server's, the client waiting on nothing else), each checked to be the page itself (200 with
 * `expect` in it, not a redirect to sign-in).
 */
async function timePage(name: string, url: string, cookie: string, expect: string): Promise<PageRow> {
  const once = async () => {
    const started = performance.now();
    const res = await fetch(url, { headers: { cookie }, redirect: 'manual' });
    const text = await res.text();
    const ms = performance.now() - started;
    if (res.status !== 200 || !text.includes(expect)) throw new Error(`${name}: ${res.status} ${text.slice(0, 200)}`);
    return ms;
  };
  for (let i = 0; i < 50; i++) await once();
  const times: number[] = [];
  const until = Date.now() + DURATION_S * 1000;
  while (Date.now() < until || times.length < 200) times.push(await once());
  times.sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return {
    name,
    samples: times.length,
    p50: round(percentile(times, 50)),
    p95: round(percentile(times, 95)),
    p99: round(percentile(times, 99)),
  };
}

async function measureDashboard(base: string, served: Served): Promise<PageRow[]> {
  const cookie = `payops_session=${served.sessionToken}`;
  return [
    await timePage(
      'GET /dashboard/journal (first page, 50 rows)',
      `${base}/dashboard/journal`,
      cookie,
      'documents</caption>',
    ),
    // A database kept before its master key was (an earlier run's random key): its sealed document
    // cannot be read, and the row says so.
    await timePage(
      'GET /dashboard/journal/{id} (document page)',
      `${base}/dashboard/journal/${served.documentId}`,
      cookie,
      'Status timeline',
    ).catch((error: unknown) => {
      process.stderr.write(`document page not measured: ${String(error).slice(0, 120)}\n`);
      return { name: 'GET /dashboard/journal/{id} (document page): not measured', samples: 0, p50: 0, p95: 0, p99: 0 };
    }),
  ];
}

async function measureSize(documents: number): Promise<{ rows: Row[]; pages: PageRow[]; served: Served }> {
  const child = spawn(process.execPath, [import.meta.filename, '--serve', String(documents)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const served = await firstJsonLine<Served>(child);
  const base = `http://127.0.0.1:${served.port}`;
  const company = `companyId=${served.companyId}`;
  const documentsUrl = `${base}/journal/documents?${company}`;
  const headers = { 'x-api-key': served.apiKey };
  const rows: Row[] = [];
  // BENCH_ROWS=seed: only build (with BENCH_KEEP, keep) the databases.
  const pages = process.env.BENCH_ROWS === 'seed' ? [] : await measureDashboard(base, served);
  // Warm-up: connections, prepared plans and the buffer cache.
  const measured = process.env.BENCH_ROWS !== 'dashboard' && process.env.BENCH_ROWS !== 'seed';
  if (measured) await autocannon({ url: documentsUrl, connections: 4, duration: 2, headers });
  // The harness's own ceiling on this machine: a route that does nothing, at the same 32 connections
  // (autocannon shares the cores with the server and PostgreSQL).
  if (measured) rows.push(await measure('GET /health (reference)', `${base}/health`, 32, {}));
  if (measured)
    for (const connections of [1, 32])
      rows.push(await measure('GET /journal/documents first page (limit 50)', documentsUrl, connections, headers));
  // BENCH_ROWS=first-page measures the first-page rows only.
  if (measured && process.env.BENCH_ROWS !== 'first-page') {
    const one = async (name: string, url: string) => rows.push(await measure(name, url, 1, headers));
    await one('GET /journal/documents?status=rejected', `${documentsUrl}&status=rejected`);
    await one(
      'GET /journal/documents?direction=inbound&collected=true',
      `${documentsUrl}&direction=inbound&collected=true`,
    );
    await one('GET /journal/documents?type=camt.053', `${documentsUrl}&type=camt.053`);
    rows.push(
      await measure(
        'GET /journal/documents?status=executed,rejected',
        `${documentsUrl}&status=executed,rejected`,
        32,
        headers,
      ),
    );
    await one('GET /journal/documents?q=supplier 97 (text search)', `${documentsUrl}&q=supplier%2097`);
    await one(
      'GET /journal/documents?q=<a message id> (rare text)',
      `${documentsUrl}&q=${encodeURIComponent(served.rareText)}`,
    );
    await one('GET /journal/list (limit 500)', `${base}/journal/list?${company}`);
    rows.push(await measure('GET /journal/list (limit 500)', `${base}/journal/list?${company}`, 32, headers));
    await one('GET /journal/reconciliation (limit 500)', `${base}/journal/reconciliation?${company}`);
    await one('GET /journal/events?limit=500', `${base}/journal/events?${company}&limit=500`);
  }
  child.stdin.end();
  await new Promise((resolve) => child.on('exit', resolve));
  return { rows, pages, served };
}

async function main(): Promise<void> {
  const results: Array<{ documents: number; rows: Row[]; pages: PageRow[]; served: Served }> = [];
  for (const documents of SIZES) results.push({ documents, ...(await measureSize(documents)) });
  const where = process.env.DATABASE_URL ? 'PostgreSQL server (DATABASE_URL)' : 'embedded PostgreSQL';
  process.stdout.write(
    `\nJournal list routes on the ${where}; ${DURATION_S} s per row; autocannon shares the machine\n`,
  );
  for (const r of results) {
    process.stdout.write(
      `\n${r.documents.toLocaleString('en')} documents (+${(r.documents / 10).toLocaleString('en')} of a neighbour) seeded in ${Math.round(r.served.seededMs / 1000)} s; rare text ${r.served.rareText}\n`,
    );
    for (const [name, plan] of Object.entries(r.served.plans))
      process.stdout.write(`\n${name}:\n${plan.map((l) => `    ${l}`).join('\n')}\n`);
  }
  const sizes = results.map((r) => `${(r.documents / 1000).toLocaleString('en')}k`);
  process.stdout.write(
    `\n| route | conn | ${sizes.map((s) => `${s} req/s | ${s} p50 | ${s} p99`).join(' | ')} | errors |\n|---|---|${sizes.map(() => '---|---|---').join('|')}|---|\n`,
  );
  results[0]?.rows.forEach((row, i) => {
    const cells = results.map((r) => {
      const x = r.rows[i]!;
      return `${x.rps} | ${x.p50} | ${x.p99}`;
    });
    const errors = results.reduce((s, r) => s + r.rows[i]!.errors, 0);
    process.stdout.write(`| ${row.name} | ${row.connections} | ${cells.join(' | ')} | ${errors} |\n`);
  });
  process.stdout.write(
    `\nDashboard pages, server time with one user (ms; target p95 <= 50)\n\n| page | ${sizes.map((s) => `${s} p50 | ${s} p95 | ${s} p99 | ${s} samples`).join(' | ')} |\n|---|${sizes.map(() => '---|---|---|---').join('|')}|\n`,
  );
  results[0]?.pages.forEach((page, i) => {
    const cells = results.map((r) => {
      const x = r.pages[i]!;
      return `${x.p50} | ${x.p95} | ${x.p99} | ${x.samples}`;
    });
    process.stdout.write(`| ${page.name} | ${cells.join(' | ')} |\n`);
  });
}

if (process.argv.includes('--serve')) await serve(Number(process.argv[process.argv.indexOf('--serve') + 1]));
else if (process.env.BENCH_ROWS !== 'submit') await main();
