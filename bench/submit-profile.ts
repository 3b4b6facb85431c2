/**
 * `npm run bench:submit-profile`: what one `POST /journal/payments` costs end to end (docs/adr/0080).
 * The real app (and the delivery relay beside it, as in bench:http; BENCH_RELAY=off leaves it out) in
 * a child process on a PostgreSQL of the benchmark's own (bench/support/profiled-postgres.ts), fed by
 * autocannon with a fixed number of submits (BENCH_SUBMITS, default 4000) at 1 and 32 connections.
 * Per submit: Node CPU (process.cpuUsage of the server), PostgreSQL CPU (/proc of every PostgreSQL
 * process: backends, WAL writer, checkpointer, ended ones), round trips (node-postgres queries) and
 * their bytes on the wire, WAL (pg_current_wal_lsn before and after), the database's growth,
 * transactions and rows; then, in passes of their own (each slows what it watches), the statements
 * PostgreSQL ran (pg_stat_statements, nested ones included) and where the server's Node CPU goes (a
 * sampling profile, by module). The machine is shared: the CPU figures are process times, not wall.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import pg from 'pg';
import { type CpuProfile, selfTimes } from './support/cpu-profile.ts';
import { startProfiledPostgres } from './support/profiled-postgres.ts';
import { submitRequests } from './support/submit-requests.ts';

const SUBMITS = Number(process.env.BENCH_SUBMITS ?? 4000);
/** The connections of the statements pass (BENCH_STATEMENT_CONNECTIONS=1: a batch of one per statement). */
const STATEMENT_CONNECTIONS = Number(process.env.BENCH_STATEMENT_CONNECTIONS ?? 32);

type Sample = { cpuMicros: number; queries: number; bytesOut: number; bytesIn: number };

/** The server child: the app, a query counter on node-postgres, and answers to commands on stdin. */
async function serve(): Promise<void> {
  const counters = { queries: 0, bytesOut: 0, bytesIn: 0 };
  const counted = new WeakSet<object>();
  const query = pg.Client.prototype.query;
  // Every query of every pool (the app's, pg-boss's) goes through Client.prototype.query: one round trip
  // each. The first use of a connection also wraps its socket to count the bytes it carries.
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    counters.queries++;
    const stream = (this as unknown as { connection?: { stream?: NodeJS.ReadWriteStream & object } }).connection
      ?.stream;
    if (stream && !counted.has(stream)) {
      counted.add(stream);
      stream.on('data', (chunk: Buffer) => {
        counters.bytesIn += chunk.length;
      });
      const write = stream.write.bind(stream) as (chunk: Buffer | string, ...rest: unknown[]) => boolean;
      stream.write = ((chunk: Buffer | string, ...rest: unknown[]) => {
        counters.bytesOut += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
        return write(chunk, ...rest);
      }) as typeof stream.write;
    }
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof pg.Client.prototype.query;

  const { Session } = await import('node:inspector/promises');
  const { startBenchApp } = await import('./support/bench-app.ts');
  const bench = await startBenchApp();
  const provisioned = await bench.app.inject({ method: 'POST', url: '/sandbox/provision', payload: {} });
  const { apiKey, firstPayment } = provisioned.json() as { apiKey: string; firstPayment: { body: unknown } };
  const { relayQueuedDeliveries } = await import('../src/app/delivery/relay.ts');
  const { startPollingLoop } = await import('../src/workers/polling-loop.ts');
  const relay =
    process.env.BENCH_RELAY === 'off'
      ? { stop: async () => {} }
      : startPollingLoop(bench.ctx, 'delivery relay', async () => (await relayQueuedDeliveries(bench.ctx)) > 0, 100);
  await bench.app.listen({ port: 0, host: '127.0.0.1' });
  const port = (bench.app.server.address() as { port: number }).port;
  const session = new Session();
  session.connect();
  const say = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);
  say({ port, apiKey, body: firstPayment.body, databaseUrl: bench.databaseUrl });
  for await (const line of createInterface({ input: process.stdin })) {
    if (line === 'sample') {
      const cpu = process.cpuUsage();
      say({ cpuMicros: cpu.user + cpu.system, ...counters } satisfies Sample);
    } else if (line === 'profile-start') {
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 1000 });
      await session.post('Profiler.start');
      say({ ok: true });
    } else if (line === 'profile-stop') {
      const { profile } = await session.post('Profiler.stop');
      say(profile);
    }
  }
  await relay.stop();
  await bench.close();
  process.exit(0);
}

/**
 * What one journal_documents row costs PostgreSQL to insert, by part: the run's documents copied into
 * a bare copy of the table (heap and TOAST only), then with its b-tree indexes, then its trigram GIN
 * index, then its search-text trigger (the statement's execution time, median of 3, per row).
 */
async function insertCost(db: pg.Client): Promise<string[]> {
  const { rows: indexes } = await db.query<{ name: string; def: string; gin: boolean }>(
    `SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS def, am.amname = 'gin' AS gin
       FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am am ON am.oid = c.relam
      WHERE i.indrelid = 'journal_documents'::regclass`,
  );
  const copyOf = (def: string) =>
    def.replace(/ ON public\.journal_documents /, ' ON jd_cost ').replace(/INDEX (\S+)/, 'INDEX $1_cost');
  const stages: Array<[string, string[]]> = [
    ['heap only (no index, no trigger)', []],
    ['+ primary key and b-tree indexes', indexes.filter((i) => !i.gin).map((i) => copyOf(i.def))],
    ['+ trigram GIN index on search_text', indexes.filter((i) => i.gin).map((i) => copyOf(i.def))],
    [
      '+ search_text trigger',
      [
        'CREATE TRIGGER jd_cost_search BEFORE INSERT ON jd_cost FOR EACH ROW EXECUTE FUNCTION journal_documents_search_text()',
      ],
    ],
  ];
  const n = Number((await db.query('SELECT count(*) AS n FROM journal_documents')).rows[0].n);
  const out = [
    `### PostgreSQL: one journal_documents insert by part (${n} of the run's rows copied, median of 3, execution time)`,
    '',
    '| table as | µs per row | this part |',
    '|---|---|---|',
  ];
  const done: string[] = [];
  let previous = 0;
  for (const [label, ddl] of stages) {
    done.push(...ddl);
    const times: number[] = [];
    for (let round = 0; round < 3; round++) {
      await db.query('DROP TABLE IF EXISTS jd_cost');
      await db.query('CREATE TABLE jd_cost (LIKE journal_documents INCLUDING DEFAULTS INCLUDING STORAGE)');
      for (const statement of done) await db.query(statement);
      const plan = await db.query(
        'EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) INSERT INTO jd_cost SELECT * FROM journal_documents',
      );
      times.push((plan.rows[0]['QUERY PLAN'][0]['Execution Time'] as number) * 1000);
    }
    const median = times.sort((a, b) => a - b)[1]! / n;
    out.push(`| ${label} | ${median.toFixed(1)} | ${(median - previous).toFixed(1)} |`);
    previous = median;
  }
  // The sealed columns are base64 of ciphertext, which pglz cannot shrink: its attempt is wasted.
  const external = [
    'ALTER TABLE jd_cost ALTER COLUMN file_sealed SET STORAGE EXTERNAL',
    'ALTER TABLE jd_cost ALTER COLUMN payload_sealed SET STORAGE EXTERNAL',
  ];
  const times: number[] = [];
  for (let round = 0; round < 3; round++) {
    await db.query('DROP TABLE IF EXISTS jd_cost');
    await db.query('CREATE TABLE jd_cost (LIKE journal_documents INCLUDING DEFAULTS INCLUDING STORAGE)');
    for (const statement of external) await db.query(statement);
    const plan = await db.query(
      'EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) INSERT INTO jd_cost SELECT * FROM journal_documents',
    );
    times.push((plan.rows[0]['QUERY PLAN'][0]['Execution Time'] as number) * 1000);
  }
  out.push(
    `| (beside) heap only, sealed columns STORAGE EXTERNAL | ${(times.sort((a, b) => a - b)[1]! / n).toFixed(1)} | |`,
  );
  await db.query('DROP TABLE IF EXISTS jd_cost');
  out.push('');
  return out;
}

async function main(): Promise<void> {
  const postgres = await startProfiledPostgres();
  const child = spawn(process.execPath, [import.meta.filename, '--serve'], {
    env: { ...process.env, DATABASE_URL: postgres.url },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async <T>(): Promise<T> => JSON.parse(((await lines.next()).value as string) ?? 'null') as T;
  const ask = async <T>(command: string): Promise<T> => {
    child.stdin!.write(`${command}\n`);
    return next<T>();
  };
  try {
    const info = await next<{ port: number; apiKey: string; body: unknown; databaseUrl: string }>();
    const db = new pg.Client({ connectionString: info.databaseUrl });
    await db.connect();
    await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    const url = `http://127.0.0.1:${info.port}/journal/payments`;
    const tenants = [{ apiKey: info.apiKey, body: info.body }];
    const runId = Date.now().toString(36);
    const load = (connections: number, amount: number, tag: string) =>
      autocannon({ url, connections, amount, requests: submitRequests(tenants, `${runId}-${tag}`) });
    const pgStats = async () => {
      // PostgreSQL flushes its statistics within a second of a transaction's end.
      await new Promise((r) => setTimeout(r, 1500));
      const { rows } = await db.query(
        `SELECT pg_current_wal_lsn()::text AS lsn, pg_database_size(current_database())::bigint AS size,
                xact_commit, xact_rollback, tup_inserted, tup_updated, tup_deleted, tup_returned, tup_fetched
           FROM pg_stat_database WHERE datname = current_database()`,
      );
      return rows[0] as Record<string, string>;
    };
    const walBytes = async (from: string, to: string) =>
      Number((await db.query('SELECT pg_wal_lsn_diff($1, $2) AS d', [to, from])).rows[0].d);

    await load(8, 500, 'warm');
    const report: string[] = [];
    for (const connections of [1, 32]) {
      const amount = connections === 1 ? Math.min(SUBMITS, 2000) : SUBMITS;
      const before = await ask<Sample>('sample');
      const pgBefore = await pgStats();
      const cpuBefore = postgres.cpu();
      const started = performance.now();
      const result = await load(connections, amount, `c${connections}`);
      const seconds = (performance.now() - started) / 1000;
      const after = await ask<Sample>('sample');
      const pgAfter = await pgStats();
      const cpuAfter = postgres.cpu();
      const n = result['2xx'];
      const per = (v: number) => (v / n).toFixed(1);
      const pgCpu = [...cpuAfter].map(([k, v]) => [k, ((v - (cpuBefore.get(k) ?? 0)) * 1e6) / n] as const);
      const pgTotal = pgCpu.reduce((s, [, v]) => s + v, 0);
      const nodeCpu = (after.cpuMicros - before.cpuMicros) / n;
      const d = (k: string) => (Number(pgAfter[k]) - Number(pgBefore[k])) / n;
      report.push(
        `### ${connections} connection(s): ${n} submits answered 201 (${result.non2xx + result.errors} not) in ${seconds.toFixed(1)} s, ${Math.round(n / seconds)}/s, p99 ${result.latency.p99} ms`,
        '',
        '| per submit | value |',
        '|---|---|',
        `| CPU, Node and PostgreSQL together | ${((nodeCpu + pgTotal) / 1000).toFixed(3)} ms |`,
        `| Node CPU (server process: HTTP, conversion, relay, pg client) | ${(nodeCpu / 1000).toFixed(3)} ms |`,
        `| PostgreSQL CPU, all processes | ${(pgTotal / 1000).toFixed(3)} ms (${pgCpu
          .filter(([, v]) => v > 0)
          .sort((a, b) => b[1] - a[1])
          .map(([k, v]) => `${k} ${(v / 1000).toFixed(3)}`)
          .join(', ')}) |`,
        `| round trips (node-postgres queries) | ${per(after.queries - before.queries)} |`,
        `| bytes to / from PostgreSQL | ${per(after.bytesOut - before.bytesOut)} / ${per(after.bytesIn - before.bytesIn)} |`,
        `| HTTP bytes from the server (responses) | ${(result.throughput.total / n).toFixed(0)} |`,
        `| WAL bytes | ${per(await walBytes(pgBefore.lsn!, pgAfter.lsn!))} |`,
        `| database growth, bytes | ${per(Number(pgAfter.size) - Number(pgBefore.size))} |`,
        `| transactions committed (all clients) | ${d('xact_commit').toFixed(2)} |`,
        `| rows inserted / updated / deleted | ${d('tup_inserted').toFixed(1)} / ${d('tup_updated').toFixed(1)} / ${d('tup_deleted').toFixed(1)} |`,
        '',
      );
    }

    // Statements: a pass with pg_stat_statements counting every statement, nested ones too.
    await db.query(`ALTER SYSTEM SET pg_stat_statements.track = 'all'`);
    await db.query(`ALTER SYSTEM SET pg_stat_statements.track_planning = on`);
    await db.query('SELECT pg_reload_conf()');
    await new Promise((r) => setTimeout(r, 500));
    await db.query('SELECT pg_stat_statements_reset()');
    const counted = await load(STATEMENT_CONNECTIONS, SUBMITS, 'statements');
    await new Promise((r) => setTimeout(r, 1500));
    const { rows: statements } = await db.query<{
      query: string;
      calls: string;
      total: number;
      plan: number;
      toplevel: boolean;
      rows: string;
    }>(
      `SELECT regexp_replace(query, '\\s+', ' ', 'g') AS query, calls, total_exec_time AS total, total_plan_time AS plan, toplevel, rows
         FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
        ORDER BY calls DESC, total_exec_time DESC`,
    );
    await db.query(`ALTER SYSTEM SET pg_stat_statements.track = 'none'`);
    await db.query(`ALTER SYSTEM SET pg_stat_statements.track_planning = off`);
    await db.query('SELECT pg_reload_conf()');
    const n = counted['2xx'];
    const top = statements.filter((s) => s.toplevel && !/pg_stat_statements/.test(s.query));
    const nested = statements.filter((s) => !s.toplevel);
    report.push(
      `### statements per submit (pg_stat_statements, track = all, track_planning = on; ${n} submits at ${STATEMENT_CONNECTIONS} connection(s))`,
      '',
      `top-level: ${(top.reduce((s, r) => s + Number(r.calls), 0) / n).toFixed(2)}, nested (inside the functions): ${(nested.reduce((s, r) => s + Number(r.calls), 0) / n).toFixed(2)}`,
      '',
      `planning: ${(statements.reduce((sum, r) => sum + r.plan, 0) / n).toFixed(4)} ms per submit, execution of the top-level statements: ${(top.reduce((sum, r) => sum + r.total, 0) / n).toFixed(4)} ms`,
      '',
      '| level | calls per submit | exec ms per submit (nested included in their caller) | plan ms per submit | statement |',
      '|---|---|---|---|---|',
      ...statements
        .filter((s) => Number(s.calls) / n >= 0.01 && !/pg_stat_statements/.test(s.query))
        .slice(0, 40)
        .map(
          (s) =>
            `| ${s.toplevel ? 'top' : 'nested'} | ${(Number(s.calls) / n).toFixed(2)} | ${(s.total / n).toFixed(4)} | ${(s.plan / n).toFixed(4)} | ${s.query.slice(0, 110).replaceAll('|', '\\|')} |`,
        ),
      '',
    );

    report.push(...(await insertCost(db)));

    // Node CPU by module: a sampling profile of the server (it costs a little CPU of its own).
    await ask('profile-start');
    const profiled = await load(32, SUBMITS, 'profile');
    const profile = await ask<CpuProfile>('profile-stop');
    const times = selfTimes(profile);
    times.delete('(idle)');
    // The profiler's own work (the profile sent back at the end) is not the submit's.
    times.delete('node:inspector');
    const busy = [...times.values()].reduce((s, v) => s + v, 0);
    const m = profiled['2xx'];
    report.push(
      `### Node CPU by module (sampling profile, ${m} submits at 32 connections; self time, idle left out)`,
      '',
      '| module | µs per submit | share |',
      '|---|---|---|',
      ...[...times]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 30)
        .map(([k, v]) => `| ${k} | ${(v / m).toFixed(1)} | ${((100 * v) / busy).toFixed(1)} % |`),
      '',
      '| function (self time) | µs per submit |',
      '|---|---|',
      ...[...selfTimes(profile, true)]
        .filter(([k]) => !k.startsWith('(idle)') && !k.includes('node:inspector'))
        .sort((a, b) => b[1] - a[1])
        .slice(0, 25)
        .map(([k, v]) => `| ${k.replaceAll('|', '\\|')} | ${(v / m).toFixed(1)} |`),
      '',
    );
    await db.end();
    process.stdout.write(
      `\nsubmit profile (the machine is shared with other work: process CPU times)\n\n${report.join('\n')}\n`,
    );
  } finally {
    child.stdin!.end();
    await new Promise((r) => (child.exitCode !== null ? r(undefined) : child.once('exit', r)));
    await postgres.stop();
  }
}

if (process.argv.includes('--serve')) await serve();
else await main();
