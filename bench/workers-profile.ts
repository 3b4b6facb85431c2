/**
 * `npm run bench:workers-profile`: what one payment costs the service as `npm start` runs it (ROLE=all:
 * the API, the delivery relay and deliveries, the demo bank and its pain.002 and camt.053, their
 * ingest and reconciliation, webhooks to a local HTTPS receiver), from its submit until it is executed
 * and its webhooks delivered (docs/adr/0080, the workers row). BENCH_SUBMITS submits (default 3000) at
 * 32 connections to a fresh database on a PostgreSQL of the benchmark's own
 * (bench/support/profiled-postgres.ts), then the wait until every one is executed and the webhook
 * receiver has been quiet for 2 s. Per payment: the server's CPU (every thread, from /proc), every
 * PostgreSQL process's CPU, WAL, rows; the top-level statements PostgreSQL ran (pg_stat_statements,
 * BENCH_TRACK=all for the nested ones too, which slows them); and the server's Node CPU by module and by
 * function (`--cpu-prof`, the samples inside the measured window only). Process CPU times, not wall:
 * they hold on the shared 2-core machine better than rates.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { type CpuProfile, oursWithCallees, selfTimes } from './support/cpu-profile.ts';
import { processCpuSeconds, startProfiledPostgres } from './support/profiled-postgres.ts';
import { startRoleAllServer } from './support/role-all-server.ts';
import { submitRequests } from './support/submit-requests.ts';

const SUBMITS = Number(process.env.BENCH_SUBMITS ?? 3000);
const DEMO_BANK_DELAY_MS = Number(process.env.DEMO_BANK_DELAY_MS ?? 1000);
const TRACK = process.env.BENCH_TRACK === 'all' ? 'all' : 'top';
const DRAIN_TIMEOUT_S = 300;

/** Microseconds on CLOCK_MONOTONIC, the clock V8's profile timestamps use. */
const nowMicros = () => Number(process.hrtime.bigint() / 1000n);

/** The profile's samples taken between `from` and `to` (monotonic µs), as a profile of their own. */
function windowOf(profile: CpuProfile & { startTime: number }, from: number, to: number): CpuProfile {
  const samples: number[] = [];
  const timeDeltas: number[] = [];
  let t = profile.startTime;
  profile.samples.forEach((id, i) => {
    t += profile.timeDeltas[i] ?? 0;
    if (t >= from && t <= to) {
      samples.push(id);
      timeDeltas.push(profile.timeDeltas[i] ?? 0);
    }
  });
  return { nodes: profile.nodes, samples, timeDeltas };
}

async function drain(server: Awaited<ReturnType<typeof startRoleAllServer>>, accepted: number): Promise<string> {
  const counts = await server.executed(accepted, DRAIN_TIMEOUT_S);
  const executedAfter = counts.seconds;
  // Then the webhooks of the last executions: done when the receiver has been quiet for 2 s.
  let seen = -1;
  while (seen !== server.webhooksReceived()) {
    seen = server.webhooksReceived();
    await new Promise((r) => setTimeout(r, 2000));
  }
  return `${counts.executed} of ${counts.all} journaled executed ${executedAfter.toFixed(1)} s after the last submit; ${seen} webhook deliveries received`;
}

async function main(): Promise<void> {
  const postgres = await startProfiledPostgres();
  const profileDir = mkdtempSync(path.join(tmpdir(), 'payops-workers-profile-'));
  const admin = new pg.Client({ connectionString: postgres.url });
  await admin.connect();
  await admin.query(`ALTER SYSTEM SET pg_stat_statements.track = '${TRACK}'`);
  await admin.query('SELECT pg_reload_conf()');
  const server = await startRoleAllServer(postgres.url, DEMO_BANK_DELAY_MS, [
    '--cpu-prof',
    `--cpu-prof-dir=${profileDir}`,
    '--cpu-prof-interval=500',
  ]);
  const report: string[] = [];
  let window: [number, number] = [0, 0];
  let n = 0;
  try {
    const db = new pg.Client({ connectionString: server.databaseUrl });
    await db.connect();
    await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    // The workers start their loops, and the first payments warm the paths (not measured).
    const warm = await autocannon({
      url: `${server.url}/journal/payments`,
      connections: 8,
      amount: 200,
      requests: submitRequests([{ apiKey: server.apiKey, body: server.body }], `${Date.now().toString(36)}-warm`),
    });
    await drain(server, warm['2xx']);
    const pgStats = async () =>
      (
        await db.query(
          `SELECT pg_current_wal_lsn()::text AS lsn, xact_commit, tup_inserted, tup_updated, tup_deleted
             FROM pg_stat_database WHERE datname = current_database()`,
        )
      ).rows[0] as Record<string, string>;
    await new Promise((r) => setTimeout(r, 1500));
    await db.query('SELECT pg_stat_statements_reset()');
    const before = { node: processCpuSeconds(server.pid), pg: postgres.cpu(), stats: await pgStats() };
    const from = nowMicros();
    const started = performance.now();
    const result = await autocannon({
      url: `${server.url}/journal/payments`,
      connections: 32,
      amount: SUBMITS,
      requests: submitRequests([{ apiKey: server.apiKey, body: server.body }], `${Date.now().toString(36)}-run`),
    });
    const submitSeconds = (performance.now() - started) / 1000;
    n = result['2xx'];
    const drained = await drain(server, warm['2xx'] + n);
    window = [from, nowMicros()];
    const after = { node: processCpuSeconds(server.pid), pg: postgres.cpu() };
    await new Promise((r) => setTimeout(r, 1500)); // PostgreSQL's statistics flush
    const stats = await pgStats();
    const pgCpu = [...after.pg].map(([k, v]) => [k, ((v - (before.pg.get(k) ?? 0)) * 1e3) / n] as const);
    const pgTotal = pgCpu.reduce((s, [, v]) => s + v, 0);
    const nodeMs = ((after.node - before.node) * 1e3) / n;
    const d = (k: string) => ((Number(stats[k]) - Number(before.stats[k])) / n).toFixed(1);
    const wal = Number(
      (await db.query('SELECT pg_wal_lsn_diff($1, $2) AS d', [stats.lsn, before.stats.lsn])).rows[0].d,
    );
    report.push(
      `### ${n} submits at 32 connections (${result.non2xx + result.errors} not 201) in ${submitSeconds.toFixed(1)} s, ${Math.round(n / submitSeconds)}/s, p99 ${result.latency.p99} ms; ${drained}`,
      '',
      '| per payment, submit to executed | value |',
      '|---|---|',
      `| CPU, Node and PostgreSQL together | ${(nodeMs + pgTotal).toFixed(3)} ms |`,
      `| Node CPU (the ROLE=all process, every thread) | ${nodeMs.toFixed(3)} ms |`,
      `| PostgreSQL CPU, all processes | ${pgTotal.toFixed(3)} ms (${pgCpu
        .filter(([, v]) => v > 0.0005)
        .sort((a, b) => b[1] - a[1])
        .map(([k, v]) => `${k} ${v.toFixed(3)}`)
        .join(', ')}) |`,
      `| WAL bytes | ${(wal / n).toFixed(0)} |`,
      `| transactions committed | ${d('xact_commit')} |`,
      `| rows inserted / updated / deleted | ${d('tup_inserted')} / ${d('tup_updated')} / ${d('tup_deleted')} |`,
      '',
    );
    const { rows } = await db.query<{ query: string; calls: string; total: number; toplevel: boolean }>(
      `SELECT regexp_replace(query, '\\s+', ' ', 'g') AS query, calls, total_exec_time AS total, toplevel
         FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
        ORDER BY total_exec_time DESC LIMIT 40`,
    );
    report.push(
      `### PostgreSQL statements by execution time (pg_stat_statements, track = ${TRACK})`,
      '',
      '| level | calls per payment | exec ms per payment | ms per call | statement |',
      '|---|---|---|---|---|',
      ...rows
        .filter((s) => !/pg_stat_statements/.test(s.query))
        .slice(0, 30)
        .map(
          (s) =>
            `| ${s.toplevel ? 'top' : 'nested'} | ${(Number(s.calls) / n).toFixed(2)} | ${(s.total / n).toFixed(4)} | ${(s.total / Number(s.calls)).toFixed(3)} | ${s.query.slice(0, 120).replaceAll('|', '\\|')} |`,
        ),
      '',
    );
    await db.end();
  } finally {
    await server.stop(); // the server writes its --cpu-prof file as it exits
    await admin.end();
    await postgres.stop();
  }
  const file = readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'));
  if (file) {
    const whole = JSON.parse(readFileSync(path.join(profileDir, file), 'utf8')) as CpuProfile & { startTime: number };
    const profile = windowOf(whole, window[0], window[1]);
    const sampled = profile.timeDeltas.reduce((s, v) => s + v, 0);
    const table = (byFunction: boolean, rowsShown: number) =>
      [...selfTimes(profile, byFunction)]
        .filter(([k]) => !k.startsWith('(idle)') && !k.startsWith('(program)'))
        .sort((a, b) => b[1] - a[1])
        .slice(0, rowsShown)
        .map(([k, v]) => `| ${k.replaceAll('|', '\\|')} | ${(v / n).toFixed(1)} |`);
    const times = selfTimes(profile);
    report.push(
      `### Node CPU of the main thread by module (--cpu-prof, the measured window: ${(sampled / 1e6).toFixed(1)} s sampled, idle ${((times.get('(idle)') ?? 0) / 1e6).toFixed(1)} s, program ${((times.get('(program)') ?? 0) / 1e6).toFixed(1)} s, GC ${((times.get('(garbage collector)') ?? 0) / 1e6).toFixed(1)} s)`,
      '',
      '| module | µs per payment |',
      '|---|---|',
      ...table(false, 30),
      '',
      '| function (self time) | µs per payment |',
      '|---|---|',
      ...table(true, 30),
      '',
      '| function of ours, with the library and native code it called (not its callers of ours) | µs per payment |',
      '|---|---|',
      ...[...oursWithCallees(profile)]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 30)
        .map(([k, v]) => `| ${k.replaceAll('|', '\\|')} | ${(v / n).toFixed(1)} |`),
      '',
    );
  } else report.push('(no CPU profile was written: the server did not exit cleanly)');
  // BENCH_KEEP_PROFILE=1 leaves the profile for DevTools (its path printed).
  if (process.env.BENCH_KEEP_PROFILE === '1') process.stdout.write(`profile kept in ${profileDir}\n`);
  else rmSync(profileDir, { recursive: true, force: true });
  process.stdout.write(`\nworkers profile (process CPU times; the machine may be shared)\n\n${report.join('\n')}\n`);
}

await main();
