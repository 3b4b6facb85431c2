/**
 * `npm run bench:pipeline` (issue 21): BENCH_PAYMENTS payments (default 10,000) submitted as fast as
 * the API takes them (BENCH_CONCURRENCY requests in flight, default 32) to the demo bank
 * (DEMO_BANK_DELAY_MS, default 1000), one API process and BENCH_WORKERS worker processes (a list,
 * default `1,2`: one run each, each on a fresh database). Reported per run: the submit rate, and
 * the time from the first submit and from the last submit until every payment is delivered
 * (`sent`), and until every payment is executed and its line cleared by the demo bank's statement.
 * Target: executed within 60 s of the last submit; two worker processes faster than one.
 * When the workers keep up, every run ends a second or two after its last submit and the submit rate
 * sets the total, so the workers' own capacity does not show: BENCH_BACKLOG=1 starts the worker
 * processes only after the last submit and reports how long they take to deliver and execute the
 * whole backlog (from their spawn, start-up included), which is where one and two workers differ.
 * Embedded PostgreSQL, or the server at DATABASE_URL (a database of its own per run, dropped after;
 * BENCH_KEEP_DB=1 keeps it for inspection). A run's database is new, so PostgreSQL's statistics do not
 * know the company while it grows, as in a young installation (docs/adr/0051); BENCH_ANALYZE=1 runs
 * ANALYZE after the last submit, for the drain with statistics caught up.
 * BENCH_BANKS (a list, default `demo`; `demo,ebics` for both in one run): `ebics` takes the EBICS 3.0
 * bank simulator as the bank (issue 37): the payments go to `deutsche-bank-de` in the test environment,
 * whose connection is first onboarded through the routes (init, bank-keys, confirm-bank-keys), and
 * they are delivered by BTU and executed from the simulator's pain.002 and camt.053, fetched by BTD by
 * the pickup each delivery schedules a few seconds later (docs/adr/0065). The sandbox's simulators live in each process with their state
 * in the process (docs/adr/0063), so an `ebics` run is one ROLE=all process and BENCH_WORKERS does not
 * apply to it; the same figures are reported, with `bank` naming the run.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../src/db/embedded.ts';
import { runMigrations } from '../src/db/migrate.ts';
import { freePort } from '../src/platform/free-port.ts';
import { createLogger } from '../src/platform/logger.ts';
import { openJobQueue } from '../src/workers/job-queue.ts';
import { freshDatabase } from './support/fresh-database.ts';

const PAYMENTS = Number(process.env.BENCH_PAYMENTS ?? 10_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const DELAY_MS = process.env.DEMO_BANK_DELAY_MS ?? '1000';
const WORKER_COUNTS = (process.env.BENCH_WORKERS ?? '1,2').split(',').map(Number);
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MS ?? 15 * 60_000);
const BACKLOG = process.env.BENCH_BACKLOG === '1';
const BANKS = (process.env.BENCH_BANKS ?? 'demo').split(',').map((b) => b.trim());
const EBICS_BANK = 'deutsche-bank-de';
const logger = createLogger('warn');

type Bank = 'demo' | 'ebics';
type Run = {
  bank: Bank;
  workers: number;
  submitSeconds: number;
  submitRate: number;
  deliveredAfterLastSubmit: number;
  executedAfterLastSubmit: number;
  clearedAfterLastSubmit: number;
  total: number;
};

const running = new Set<ChildProcess>();

function serviceProcess(env: Record<string, string>, label: string): ChildProcess {
  const child = spawn(
    process.execPath,
    [
      // BENCH_CPU_PROF=<dir>: a CPU profile of each worker process (and of an EBICS run's one
      // ROLE=all process), written when it stops.
      ...((label.startsWith('worker') || label === 'all') && process.env.BENCH_CPU_PROF
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
        : []),
      'src/main/server.ts',
    ],
    {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(`[${label}] ${chunk.toString()}`));
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The sandbox's first payment, made unique (message, payment and end-to-end ids) for payment `i`. */
function paymentBody(template: Record<string, unknown>, i: number): string {
  const n = String(i).padStart(6, '0');
  return JSON.stringify(template)
    .replace(/SANDBOX-(\d{8})-0001/g, `BENCH-$1-${n}`)
    .replaceAll('E2E-0001', `E2E-B${n}`)
    .replaceAll('PMT-0001', `PMT-B${n}`);
}

type Sandbox = {
  apiKey: string;
  companyId: string;
  platformId: string;
  dashboardLogin: { email: string; password: string };
  firstPayment: { body: Record<string, unknown> };
};

/**
 * Onboards the sandbox's test-environment `deutsche-bank-de` connection over EBICS through the
 * routes, as the README's walk does: init (INI, HIA), HPB once the simulator accepted the letter, and
 * the confirmation of the hashes the simulated bank publishes.
 */
async function onboardEbics(base: string, sandbox: Sandbox): Promise<void> {
  const login = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: sandbox.dashboardLogin.email, password: sandbox.dashboardLogin.password }),
  });
  const { sessionToken } = (await login.json()) as { sessionToken: string };
  const scope = { platformId: sandbox.platformId, companyId: sandbox.companyId };
  const post = async (route: string, body: Record<string, unknown>, expect: number) => {
    const res = await fetch(`${base}${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-session-token': sessionToken },
      body: JSON.stringify({ ...scope, ...body }),
    });
    const text = await res.text();
    if (res.status !== expect) throw new Error(`POST ${route}: ${res.status} ${text}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  const connection = (await post('/connections', { bankKey: EBICS_BANK, environment: 'test' }, 201)) as {
    id: string;
    readiness: { sandboxActivation: { hostId: string; partnerId: string; userId: string } };
  };
  const { hostId, partnerId, userId } = connection.readiness.sandboxActivation;
  await post(`/connections/${connection.id}/ebics/init`, { hostId, partnerId, userId }, 200);
  let keys: { bankKeyHashes: { authentication: string; encryption: string } } | undefined;
  await waitFor(async () => {
    keys = (await post(`/connections/${connection.id}/ebics/bank-keys`, {}, 200)) as typeof keys;
    return true;
  }, 'the simulated bank to accept the letter');
  await post(
    `/connections/${connection.id}/ebics/confirm-bank-keys`,
    { authenticationHash: keys!.bankKeyHashes.authentication, encryptionHash: keys!.bankKeyHashes.encryption },
    200,
  );
}

async function run(adminUrl: string, bank: Bank, workers: number): Promise<Run> {
  const database = await freshDatabase(adminUrl, 'payops_bench_pipe');
  const pool = new pg.Pool({ connectionString: database.url, max: 2 });
  await runMigrations(pool);
  const queue = await openJobQueue(database.url, logger, { supervise: false });
  await queue.stop();
  const port = await freePort();
  const env = {
    DATABASE_URL: database.url,
    MASTER_KEY: randomBytes(32).toString('base64'),
    SANDBOX: 'true',
    DEMO_BANK_DELAY_MS: DELAY_MS,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    DATA_DIR: mkdtempSync(path.join(tmpdir(), 'payops-bench-pipe-data-')),
  };
  const children: ChildProcess[] = [
    serviceProcess(
      { ...env, ROLE: bank === 'ebics' ? 'all' : 'api', PORT: String(port) },
      bank === 'ebics' ? 'all' : 'api',
    ),
  ];
  const startWorkers = () => {
    if (bank === 'ebics') return;
    for (let i = 0; i < workers; i++) children.push(serviceProcess({ ...env, ROLE: 'worker' }, `worker ${i + 1}`));
  };
  if (!BACKLOG) startWorkers();
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitFor(async () => (await fetch(`${base}/health`)).ok, 'the API', 180_000);
    const provisioned = await fetch(`${base}/sandbox/provision`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    const sandbox = (await provisioned.json()) as Sandbox;
    if (bank === 'ebics') {
      await onboardEbics(base, sandbox);
      sandbox.firstPayment.body = { ...sandbox.firstPayment.body, bankKey: EBICS_BANK };
    }
    // Give the workers time to start before the clock runs.
    await new Promise((r) => setTimeout(r, 3000));

    const started = performance.now();
    let next = 0;
    let failures = 0;
    const submitter = async () => {
      for (;;) {
        const i = next++;
        if (i >= PAYMENTS) return;
        const res = await fetch(`${base}/journal/payments`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': sandbox.apiKey, 'idempotency-key': `BENCH-${i}` },
          body: paymentBody(sandbox.firstPayment.body, i),
        });
        if (res.status !== 201) {
          failures++;
          if (failures < 5) process.stderr.write(`submit ${i}: ${res.status} ${await res.text()}\n`);
          else await res.arrayBuffer();
        } else await res.arrayBuffer();
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, submitter));
    const lastSubmit = performance.now();
    const lastSubmitWall = Date.now();
    if (failures > 0) throw new Error(`${failures} submits failed`);
    if (process.env.BENCH_ANALYZE === '1') await pool.query('ANALYZE');
    if (BACKLOG) startWorkers();
    const accepted = PAYMENTS;

    // The observer must not load the machine it measures: a count over journal_documents and
    // payment_lines every 250 ms took 70-86 ms of PostgreSQL each at 10,000 payments (a third of a
    // core). It polls the trigger-kept status counts instead (a few rows), and the moments of the
    // last delivery, execution and clearing are read once at the end from what the service recorded.
    const statusCounts = async () => {
      const { rows } = await pool.query<{ status: string; n: string }>(
        `SELECT status, sum(n) AS n FROM journal_document_counts WHERE direction = 'outbound' GROUP BY status`,
      );
      return new Map(rows.map((r) => [r.status, Number(r.n)]));
    };
    let lastPrint = 0;
    for (;;) {
      const counts = await statusCounts();
      const executed = counts.get('executed') ?? 0;
      const now = performance.now();
      if (now - lastPrint > 5000) {
        lastPrint = now;
        const shown = [...counts].map(([status, n]) => `${status} ${n}`).join(', ');
        process.stdout.write(`  ${((now - started) / 1000).toFixed(0)} s: ${shown}\n`);
      }
      if (executed >= accepted) break;
      if (now - started > TIMEOUT_MS) throw new Error(`timed out: ${executed} of ${accepted} executed`);
      await new Promise((r) => setTimeout(r, 250));
    }
    // Execution and clearing are one transaction (the statement that books a payment); waited for all the same.
    await waitFor(
      async () =>
        Number(
          (
            await pool.query<{ n: string }>(
              `SELECT count(*) AS n FROM payment_lines WHERE state = 'cleared' AND open_until IS NULL`,
            )
          ).rows[0]!.n,
        ) >= accepted,
      'every line cleared',
    );
    const { rows: moments } = await pool.query<{ delivered: Date; executed: Date; cleared: Date; delivered_n: string }>(
      `SELECT (SELECT max(created_at) FROM activity_events WHERE type = 'payment.delivered') AS delivered,
              (SELECT count(*) FROM activity_events WHERE type = 'payment.delivered') AS delivered_n,
              (SELECT max(updated_at) FROM journal_documents WHERE direction = 'outbound' AND status = 'executed') AS executed,
              (SELECT max(updated_at) FROM payment_lines WHERE state = 'cleared') AS cleared`,
    );
    const moment = moments[0]!;
    if (Number(moment.delivered_n) < accepted)
      throw new Error(`${moment.delivered_n} deliveries recorded of ${accepted}`);
    // Wall-clock moments (the service's clock is this machine's) on the performance clock of `started`.
    const onClock = (at: Date) => lastSubmit + (at.getTime() - lastSubmitWall);
    const deliveredAt = onClock(moment.delivered);
    const executedAt = onClock(moment.executed);
    const clearedAt = onClock(moment.cleared);
    const s = (t: number) => Number(((t - lastSubmit) / 1000).toFixed(1));
    return {
      bank,
      workers,
      submitSeconds: Number(((lastSubmit - started) / 1000).toFixed(1)),
      submitRate: Math.round(PAYMENTS / ((lastSubmit - started) / 1000)),
      deliveredAfterLastSubmit: s(deliveredAt),
      executedAfterLastSubmit: s(executedAt),
      clearedAfterLastSubmit: s(clearedAt),
      total: Number(((Math.max(executedAt, clearedAt) - started) / 1000).toFixed(1)),
    };
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(children.map((c) => (c.exitCode !== null ? undefined : new Promise((r) => c.once('exit', r)))));
    await pool.end();
    await database.drop();
    rmSync(env.DATA_DIR, { recursive: true, force: true });
  }
}

// Interrupted: stop the service processes and the embedded database rather than leave them behind.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    for (const child of running) child.kill('SIGTERM');
    void server?.stop().finally(() => {
      if (embeddedDir) rmSync(embeddedDir, { recursive: true, force: true });
      process.exit(130);
    });
    if (!server) process.exit(130);
  });
}
const embeddedDir = process.env.DATABASE_URL ? undefined : mkdtempSync(path.join(tmpdir(), 'payops-bench-pipe-'));
const server = embeddedDir ? await startEmbeddedPostgres(embeddedDir, logger) : undefined;
const adminUrl = process.env.DATABASE_URL ?? server!.url;
process.stdout.write(
  `pipeline: ${PAYMENTS} payments, ${CONCURRENCY} in flight, demo bank delay ${DELAY_MS} ms, ${server ? 'embedded PostgreSQL' : 'PostgreSQL server'}${BACKLOG ? ', workers started after the last submit (backlog)' : ''}\n`,
);
const results: Run[] = [];
try {
  for (const bank of BANKS) {
    if (bank !== 'demo' && bank !== 'ebics') throw new Error(`BENCH_BANKS: unknown bank ${bank} (demo or ebics)`);
    for (const workers of bank === 'ebics' ? [1] : WORKER_COUNTS) {
      process.stdout.write(
        `${bank === 'ebics' ? `EBICS simulator (${EBICS_BANK}), one ROLE=all process` : `demo bank, ${workers} worker process(es)`}:\n`,
      );
      const result = await run(adminUrl, bank, workers);
      results.push(result);
      process.stdout.write(`${JSON.stringify(result)}\n`);
    }
  }
} finally {
  await server?.stop();
  if (embeddedDir) rmSync(embeddedDir, { recursive: true, force: true });
}
console.table(results);
