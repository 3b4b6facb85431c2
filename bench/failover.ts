/**
 * `npm run bench:failover` (issue 42): the service through a PostgreSQL failover, on one machine.
 *
 * Needs (Debian bookworm, as root: `apt-get update` then
 * `DEBIAN_FRONTEND=noninteractive apt-get install -y patroni python3-etcd etcd-server etcd-client haproxy`)
 * and PostgreSQL 15's server binaries in /usr/lib/postgresql/15/bin (`postgresql-15`; FAILOVER_PG_BIN
 * for another folder). Patroni and PostgreSQL run as the `postgres` user when started as root.
 *
 * Builds a three-node PostgreSQL 15 cluster managed by Patroni (one etcd member for the leader key),
 * in synchronous mode (`synchronous_mode: true`, `synchronous_commit = on`), reached through HAProxy
 * health-checking Patroni's REST API on /primary (bench/support/patroni-cluster.ts), all in a temp
 * folder on ports of its own (25000 HAProxy, 25431-25433 PostgreSQL, 28001-28003 Patroni,
 * 23791/23801 etcd; the machine's own PostgreSQL on 5432 is not touched). Starts the service against
 * HAProxy: two ROLE=api and two ROLE=worker processes, the sandbox's demo bank (DEMO_BANK_DELAY_MS,
 * default 500) and a webhook endpoint per company on a local HTTPS receiver. Then, per round,
 * FAILOVER_CLIENTS submit clients (default 6, over FAILOVER_COMPANIES companies, default 2) submit
 * payments (POST /journal/payments with an Idempotency-Key, retried with the same key every 250 ms
 * on 503 or a connection error), one ingest client per company journals small camt.053 statements,
 * and after FAILOVER_LEAD_MS (default 5000) the primary fails:
 *   - round `kill`: `kill -9` of the primary's postmaster. Patroni notices on its next loop and,
 *     with `master_start_timeout: 0`, fails over to the synchronous standby instead of restarting the
 *     crashed primary in place; the old primary comes back as a replica (pg_rewind).
 *   - round `freeze`: the primary's host is cut off: its Patroni agent and every PostgreSQL process
 *     of it are stopped with SIGSTOP (no iptables needed; a frozen VM or a network cut look the same
 *     to the others). HAProxy marks it down after two failed checks and closes its sessions; the
 *     leader key expires (ttl 30 s) and the synchronous standby is promoted. Once writes have
 *     recovered the old primary gets SIGCONT, finds it lost the key and rejoins as a replica.
 * The load goes on until writes have succeeded again for FAILOVER_TAIL_MS (default 10000).
 *
 * Reported per round: submits acknowledged, lost (acknowledged, not in the journal after the round;
 * target 0), doubled (two documents for one key or one payment, or two files at the bank for one
 * document; target 0), requests answered 503 and how long each took until answered 201, any other
 * failure, the write outage (first failed write to the first successful write after it; target
 * ≤ 30 s) and, beside it, the fault to that first write (a frozen primary's writes hang a few seconds
 * before they fail, until HAProxy marks it down and closes its sessions), the time from the new primary's first accepted write until every acknowledged payment
 * of the round is delivered, executed and its line cleared (target ≤ 60 s), ingests acknowledged
 * and lost. At the end: every company's audit chain verified, webhook sequences without gap or
 * reuse (at the receiver and in the store), and that no service process exited (none is restarted).
 *
 * `--no-sync` builds the cluster with asynchronous replication, to show what it can lose: the
 * targets are then reported, not enforced. FAILOVER_ROUNDS (default `kill,freeze`) picks the rounds;
 * FAILOVER_KEEP=1 keeps the temp folders (cluster data and logs, the service's logs).
 * Exit code 1 when a target is missed in synchronous mode.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { verifyCompanyChain } from '../src/app/audit/verify.ts';
import { openPool } from '../src/db/client.ts';
import { runMigrations } from '../src/db/migrate.ts';
import { freePort } from '../src/platform/free-port.ts';
import { createLogger } from '../src/platform/logger.ts';
import { openJobQueue } from '../src/workers/job-queue.ts';
import { largeCamt053 } from '../test/support/large-camt.ts';
import { startReceiver, testCa } from '../test/webhooks/support.ts';
import { type Cluster, startCluster } from './support/patroni-cluster.ts';

const SYNC = !process.argv.includes('--no-sync');
const ROUNDS = (process.env.FAILOVER_ROUNDS ?? 'kill,freeze').split(',').map((r) => r.trim());
const CLIENTS = Number(process.env.FAILOVER_CLIENTS ?? 6);
const COMPANIES = Number(process.env.FAILOVER_COMPANIES ?? 2);
const LEAD_MS = Number(process.env.FAILOVER_LEAD_MS ?? 5000);
const TAIL_MS = Number(process.env.FAILOVER_TAIL_MS ?? 10_000);
const DELAY_MS = process.env.DEMO_BANK_DELAY_MS ?? '500';
const RETRY_MS = 250;
const OUTAGE_TARGET_S = 30;
const EXECUTED_TARGET_S = 60;
const logger = createLogger('warn');

type Sandbox = {
  apiKey: string;
  companyId: string;
  platformId: string;
  firstPayment: { body: Record<string, unknown> };
};

type Answer = { status: number; body: string; at: number; error?: string };

/** One HTTP request, a connection error (the API process itself never went away) answered as status 0. */
async function send(url: string, init: RequestInit): Promise<Answer> {
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(60_000) });
    return { status: res.status, body: await res.text(), at: performance.now() };
  } catch (error) {
    return { status: 0, body: '', at: performance.now(), error: String(error) };
  }
}

function paymentBody(template: Record<string, unknown>, tag: string): string {
  return JSON.stringify(template)
    .replace(/SANDBOX-(\d{8})-0001/g, `FO-$1-${tag}`)
    .replaceAll('E2E-0001', `E2E-${tag}`)
    .replaceAll('PMT-0001', `PMT-${tag}`);
}

const running = new Set<ChildProcess>();
const exits: string[] = [];

function serviceProcess(env: Record<string, string>, label: string, logDir: string): ChildProcess {
  const out = openSync(path.join(logDir, `${label}.log`), 'a');
  const child = spawn(process.execPath, ['src/main/server.ts'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', out, out],
  });
  running.add(child);
  child.once('exit', (code, sig) => {
    running.delete(child);
    if (!stopping) exits.push(`${label} exited (${code ?? sig})`);
  });
  return child;
}
let stopping = false;

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const seconds = (ms: number) => Number((ms / 1000).toFixed(1));
const median = (xs: number[]) => {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

type RoundResult = {
  round: string;
  oldPrimary: string;
  syncStandby: string | null;
  newPrimary: string | null;
  acknowledged: number;
  lost: number;
  doubled: number;
  unacknowledgedDocuments: number;
  answered503: number;
  connectionErrors: number;
  otherFailures: number;
  recoverySecondsMedian: number;
  recoverySecondsMax: number;
  writeOutageSeconds: number;
  failingWindowSeconds: number;
  faultToFirstWriteSeconds: number;
  newPrimaryAfterFaultSeconds: number | null;
  deliveredAfterRecoverySeconds: number;
  executedAfterRecoverySeconds: number;
  clearedAfterRecoverySeconds: number;
  ingestsAcknowledged: number;
  ingestsLost: number;
};

async function main(): Promise<number> {
  const work = mkdtempSync(path.join(tmpdir(), 'payops-failover-svc-'));
  process.stdout.write(
    `failover: ${SYNC ? 'synchronous' : 'ASYNCHRONOUS (--no-sync)'} replication, rounds ${ROUNDS.join(', ')}, ` +
      `${CLIENTS} submit clients over ${COMPANIES} companies, demo bank delay ${DELAY_MS} ms\n`,
  );
  const clusterStarted = performance.now();
  let cluster: Cluster | undefined;
  const children: ChildProcess[] = [];
  let observer: pg.Pool | undefined;
  let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
  const onSignal = () => {
    stopping = true;
    for (const c of running) c.kill('SIGKILL');
    void cluster?.stop().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    cluster = await startCluster({ synchronous: SYNC, tmp: tmpdir() });
    const healthy = await cluster.waitHealthy();
    process.stdout.write(
      `cluster up in ${seconds(performance.now() - clusterStarted)} s: ${healthy.map((m) => `${m.name} ${m.role}`).join(', ')}\n`,
    );
    const admin = new pg.Client({ connectionString: cluster.urlOf('postgres') });
    await admin.connect();
    await admin.query('CREATE DATABASE payops');
    await admin.end();
    const databaseUrl = cluster.urlOf('payops');
    const migrator = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    await runMigrations(migrator);
    await migrator.end();
    const queue = await openJobQueue(databaseUrl, logger, { supervise: false });
    await queue.stop();
    observer = new pg.Pool({ connectionString: databaseUrl, max: 2, connectionTimeoutMillis: 3000 });
    observer.on('error', () => {});

    const ca = testCa();
    receiver = await startReceiver();
    receiver.answer = () => ({ status: 200 });
    const env = {
      DATABASE_URL: databaseUrl,
      MASTER_KEY: randomBytes(32).toString('base64'),
      SANDBOX: 'true',
      DEMO_BANK_DELAY_MS: DELAY_MS,
      LOG_LEVEL: process.env.FAILOVER_LOG_LEVEL ?? 'warn',
      DATA_DIR: path.join(work, 'data'),
      EXTRA_CA_CERTS: ca.caFile,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    };
    const apiPorts = [await freePort(), await freePort()];
    for (const [i, port] of apiPorts.entries())
      children.push(
        serviceProcess(
          { ...env, ROLE: 'api', PORT: String(port), METRICS_PORT: String(await freePort()) },
          `api${i + 1}`,
          work,
        ),
      );
    for (let i = 0; i < 2; i++)
      children.push(
        serviceProcess({ ...env, ROLE: 'worker', METRICS_PORT: String(await freePort()) }, `worker${i + 1}`, work),
      );
    const bases = apiPorts.map((p) => `http://127.0.0.1:${p}`);
    for (const base of bases)
      await waitFor(async () => (await fetch(`${base}/ready`)).ok, `the API at ${base}`, 180_000);

    const sandboxes: Sandbox[] = [];
    for (let i = 0; i < COMPANIES; i++) {
      const res = await send(`${bases[0]}/sandbox/provision`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      if (res.status !== 201) throw new Error(`provision: ${res.status} ${res.body}`);
      const sandbox = JSON.parse(res.body) as Sandbox;
      const hook = await send(`${bases[0]}/webhooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': sandbox.apiKey },
        body: JSON.stringify({ companyId: sandbox.companyId, url: `${receiver.url}/${i}` }),
      });
      if (hook.status !== 201) throw new Error(`webhook: ${hook.status} ${hook.body}`);
      sandboxes.push(sandbox);
    }

    const results: RoundResult[] = [];
    for (const round of ROUNDS) {
      if (round !== 'kill' && round !== 'freeze') throw new Error(`FAILOVER_ROUNDS: unknown round ${round}`);
      const members = await cluster.waitHealthy();
      results.push(await runRound(round, cluster, members, bases, sandboxes, observer));
      process.stdout.write(`${JSON.stringify(results.at(-1))}\n`);
    }

    // Webhooks: every event delivered, sequences without gap or reuse, at the receiver and in the store.
    await waitFor(
      async () =>
        Number(
          (
            await observer!.query<{ n: string }>(
              `SELECT (SELECT count(*) FROM outbox_events WHERE dispatched_at IS NULL)
                    + (SELECT count(*) FROM webhook_deliveries WHERE status <> 'succeeded') AS n`,
            )
          ).rows[0]!.n,
        ) === 0,
      'every webhook delivered',
      120_000,
    ).catch((e) => process.stdout.write(`  ${String(e)}\n`));
    const webhooks = await webhookCheck(observer, receiver.received);
    const chains: string[] = [];
    const verifier = openPool(databaseUrl, 2);
    for (const s of sandboxes) {
      const verdict = await verifyCompanyChain(verifier.db, { platformId: s.platformId, companyId: s.companyId });
      chains.push(`${s.companyId}: ${verdict.ok ? 'ok' : `BROKEN ${JSON.stringify(verdict)}`}`);
    }
    await verifier.close();
    const alive = children.filter((c) => c.exitCode === null && c.signalCode === null).length;

    console.table(results);
    process.stdout.write(`audit chains: ${chains.join('; ')}\n`);
    process.stdout.write(`webhooks: ${JSON.stringify(webhooks)}\n`);
    process.stdout.write(
      `service processes alive at the end: ${alive} of ${children.length}, none restarted${exits.length ? `; EXITS: ${exits.join(', ')}` : ''}\n`,
    );
    const missed: string[] = [];
    for (const r of results) {
      if (r.lost > 0) missed.push(`${r.round}: ${r.lost} lost`);
      if (r.doubled > 0) missed.push(`${r.round}: ${r.doubled} doubled`);
      if (r.otherFailures > 0) missed.push(`${r.round}: ${r.otherFailures} requests failed otherwise than 503`);
      if (r.writeOutageSeconds > OUTAGE_TARGET_S) missed.push(`${r.round}: write outage ${r.writeOutageSeconds} s`);
      if (r.executedAfterRecoverySeconds > EXECUTED_TARGET_S || r.clearedAfterRecoverySeconds > EXECUTED_TARGET_S)
        missed.push(`${r.round}: executed ${r.executedAfterRecoverySeconds} s after recovery`);
      if (r.ingestsLost > 0) missed.push(`${r.round}: ${r.ingestsLost} ingests lost`);
    }
    if (chains.some((c) => !c.endsWith(': ok'))) missed.push('an audit chain does not verify');
    if (webhooks.gaps > 0 || webhooks.reused > 0 || webhooks.undelivered > 0) missed.push('webhook sequence');
    if (alive !== children.length) missed.push('a service process exited');
    process.stdout.write(missed.length ? `TARGETS MISSED: ${missed.join('; ')}\n` : 'all targets met\n');
    return missed.length > 0 && SYNC ? 1 : 0;
  } catch (error) {
    process.stdout.write(`failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    if (cluster) for (const n of ['pg1', 'pg2', 'pg3']) process.stdout.write(`--- ${n}\n${cluster.log(n, 25)}\n`);
    return 1;
  } finally {
    stopping = true;
    for (const c of children) c.kill('SIGTERM');
    await Promise.race([
      Promise.all(children.map((c) => (c.exitCode !== null ? undefined : new Promise((r) => c.once('exit', r))))),
      new Promise((r) => setTimeout(r, 15_000)),
    ]);
    for (const c of running) c.kill('SIGKILL');
    await observer?.end().catch(() => {});
    await receiver?.close();
    await cluster?.stop();
    if (process.env.FAILOVER_KEEP === '1') process.stdout.write(`kept: ${work} ${cluster?.root}\n`);
    else rmSync(work, { recursive: true, force: true });
  }
}

async function runRound(
  round: 'kill' | 'freeze',
  cluster: Cluster,
  members: Awaited<ReturnType<Cluster['members']>>,
  bases: string[],
  sandboxes: Sandbox[],
  observer: pg.Pool,
): Promise<RoundResult> {
  const oldPrimary = members.find((m) => m.role === 'leader')!.name;
  const syncStandby = members.find((m) => m.role === 'sync_standby')?.name ?? null;
  process.stdout.write(`round ${round}: primary ${oldPrimary}, synchronous standby ${syncStandby ?? 'none'}\n`);
  const acknowledged = new Map<string, { id: string; company: number }>();
  const ingested = new Map<string, { id: string; company: number }>();
  const recoveries: number[] = [];
  let answered503 = 0;
  let connectionErrors = 0;
  const otherFailures: string[] = [];
  let faultAt = 0;
  let firstFailure = 0;
  let lastFailure = 0;
  let firstSuccessAfter = 0;
  let lastSuccess = 0;
  let stop = false;
  let sent = 0;

  /** One write retried with the same body and key until it is answered otherwise than 503. */
  const write = async (url: string, init: RequestInit): Promise<Answer> => {
    let failedAt = 0;
    for (;;) {
      const res = await send(url, init);
      if (res.status === 503 || res.status === 0) {
        if (res.status === 503) answered503++;
        else connectionErrors++;
        if (!failedAt) failedAt = res.at;
        if (faultAt && !firstFailure) firstFailure = res.at;
        lastFailure = Math.max(lastFailure, res.at);
        await new Promise((r) => setTimeout(r, RETRY_MS));
        continue;
      }
      if (res.status < 300) {
        if (failedAt) recoveries.push(res.at - failedAt);
        if (firstFailure && !firstSuccessAfter && res.at > firstFailure) firstSuccessAfter = res.at;
        lastSuccess = res.at;
      }
      return res;
    }
  };

  const submitter = async (client: number) => {
    const company = client % sandboxes.length;
    const sandbox = sandboxes[company]!;
    for (let k = 0; !stop; k++) {
      const tag = `${round.toUpperCase()}${client}N${String(k).padStart(5, '0')}`;
      const key = `FO-${round}-${client}-${k}`;
      const res = await write(`${bases[client % bases.length]}/journal/payments`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': sandbox.apiKey, 'idempotency-key': key },
        body: paymentBody({ ...sandbox.firstPayment.body, companyId: sandbox.companyId }, tag),
      });
      sent++;
      if (res.status === 201 || res.status === 200) acknowledged.set(key, { id: JSON.parse(res.body).id, company });
      else otherFailures.push(`submit ${res.status} ${res.body.slice(0, 200)}`);
      await new Promise((r) => setTimeout(r, 20 + Math.random() * 60));
    }
  };
  const ingester = async (company: number) => {
    const sandbox = sandboxes[company]!;
    for (let k = 0; !stop; k++) {
      const seed = `FO${round.toUpperCase()}C${company}S${k}`;
      const { xml } = largeCamt053(20_000, seed);
      const res = await write(`${bases[(company + 1) % bases.length]}/journal/ingest`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': sandbox.apiKey },
        body: JSON.stringify({ companyId: sandbox.companyId, content: xml, environment: 'test' }),
      });
      if (res.status === 201 || res.status === 200) ingested.set(seed, { id: JSON.parse(res.body).id, company });
      else otherFailures.push(`ingest ${res.status} ${res.body.slice(0, 200)}`);
      await new Promise((r) => setTimeout(r, 400));
    }
  };
  const started = performance.now();
  const load = Promise.all([
    ...Array.from({ length: CLIENTS }, (_, c) => submitter(c)),
    ...sandboxes.map((_, c) => ingester(c)),
  ]);

  await new Promise((r) => setTimeout(r, LEAD_MS));
  faultAt = performance.now();
  if (round === 'kill') {
    const pid = cluster.killPostmaster(oldPrimary);
    process.stdout.write(`  ${seconds(faultAt - started)} s: kill -9 of ${oldPrimary}'s postmaster (pid ${pid})\n`);
  } else {
    cluster.freeze(oldPrimary);
    process.stdout.write(`  ${seconds(faultAt - started)} s: ${oldPrimary} frozen (SIGSTOP: Patroni and PostgreSQL)\n`);
  }
  // Watch Patroni for the new primary while the load goes on.
  let newPrimary: string | null = null;
  let newPrimaryAt = 0;
  const until = performance.now() + 180_000;
  for (;;) {
    const now = performance.now();
    if (!newPrimary) {
      const p = await cluster.primary();
      if (p && p !== oldPrimary) {
        newPrimary = p;
        newPrimaryAt = performance.now();
        process.stdout.write(`  ${seconds(newPrimaryAt - started)} s: ${p} answers /primary\n`);
      }
    }
    const recovered = firstSuccessAfter > 0 && lastSuccess > lastFailure && now - lastFailure > TAIL_MS;
    if ((recovered && (newPrimary || round === 'kill')) || now > until) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  stop = true;
  await load;
  const loadEnded = performance.now();
  if (round === 'freeze') {
    cluster.thaw(oldPrimary);
    process.stdout.write(`  ${seconds(performance.now() - started)} s: ${oldPrimary} thawed (SIGCONT)\n`);
  }
  process.stdout.write(
    `  ${seconds(loadEnded - started)} s: load stopped, ${acknowledged.size} submits and ${ingested.size} ingests acknowledged of ${sent} submits\n`,
  );

  // Every acknowledged payment of the round delivered, executed and cleared: when, on the bench's clock.
  const ids = [...acknowledged.values()].map((a) => a.id);
  const recovery = firstSuccessAfter || faultAt;
  let deliveredAt = 0;
  let executedAt = 0;
  let clearedAt = 0;
  const progressUntil = performance.now() + 300_000;
  while (!(deliveredAt && executedAt && clearedAt) && performance.now() < progressUntil) {
    try {
      const { rows } = await observer.query<{ present: string; delivered: string; executed: string; cleared: string }>(
        `SELECT count(*) AS present,
                count(*) FILTER (WHERE d.delivery_status = 'delivered') AS delivered,
                count(*) FILTER (WHERE d.status = 'executed') AS executed,
                count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM payment_lines l WHERE l.document_id = d.id AND l.state <> 'cleared')) AS cleared
           FROM journal_documents d WHERE d.id = ANY($1)`,
        [ids],
      );
      const r = rows[0]!;
      const now = performance.now();
      if (!deliveredAt && Number(r.delivered) === ids.length) deliveredAt = now;
      if (!executedAt && Number(r.executed) === ids.length) executedAt = now;
      if (!clearedAt && Number(r.cleared) === ids.length) clearedAt = now;
      if (Number(r.present) < ids.length) break; // lost ones never arrive
    } catch {
      // The observer met the outage's tail: ask again.
    }
    await new Promise((r) => setTimeout(r, 250));
  }

  // The observer is a client of the cluster too: a statement that meets a failover is asked again.
  const ask = async <R extends pg.QueryResultRow>(text: string, values: unknown[]) => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await observer.query<R>(text, values);
      } catch (error) {
        if (attempt >= 60) throw error;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  };
  const present = new Set(
    (await ask<{ id: string }>('SELECT id FROM journal_documents WHERE id = ANY($1)', [ids])).rows.map((r) => r.id),
  );
  const lost = ids.filter((id) => !present.has(id)).length;
  const ingestIds = [...ingested.values()].map((a) => a.id);
  const ingestsPresent = Number(
    (await ask<{ n: string }>('SELECT count(*) AS n FROM journal_documents WHERE id = ANY($1)', [ingestIds])).rows[0]!
      .n,
  );
  const like = `FO-${round}-%`;
  const { rows: doubles } = await ask<{ keys: string; e2e: string; files: string; unacked: string }>(
    `SELECT (SELECT count(*) FROM (SELECT company_id, idempotency_key FROM journal_documents
               WHERE direction = 'outbound' AND idempotency_key LIKE $1 GROUP BY 1, 2 HAVING count(*) > 1) k) AS keys,
            (SELECT count(*) FROM (SELECT l.company_id, l.end_to_end_id FROM payment_lines l
               JOIN journal_documents d ON d.id = l.document_id
              WHERE d.direction = 'outbound' AND d.idempotency_key LIKE $1 GROUP BY 1, 2 HAVING count(*) > 1) e) AS e2e,
            (SELECT count(*) FROM (SELECT f.document_id FROM demo_bank_files f
               JOIN journal_documents d ON d.id = f.document_id
              WHERE d.idempotency_key LIKE $1 GROUP BY 1 HAVING count(*) > 1) f) AS files,
            (SELECT count(*) FROM journal_documents WHERE direction = 'outbound' AND idempotency_key LIKE $1
               AND NOT (id = ANY($2))) AS unacked`,
    [like, ids],
  );
  const d = doubles[0]!;
  for (const f of otherFailures.slice(0, 5)) process.stdout.write(`  failure: ${f}\n`);
  const after = (t: number) => (t ? seconds(t - recovery) : -1);
  return {
    round,
    oldPrimary,
    syncStandby,
    newPrimary,
    acknowledged: ids.length,
    lost,
    doubled: Number(d.keys) + Number(d.e2e) + Number(d.files),
    unacknowledgedDocuments: Number(d.unacked),
    answered503,
    connectionErrors,
    otherFailures: otherFailures.length,
    recoverySecondsMedian: seconds(median(recoveries)),
    recoverySecondsMax: seconds(Math.max(0, ...recoveries)),
    writeOutageSeconds: firstFailure && firstSuccessAfter ? seconds(firstSuccessAfter - firstFailure) : 0,
    failingWindowSeconds: firstFailure ? seconds(lastFailure - firstFailure) : 0,
    faultToFirstWriteSeconds: firstSuccessAfter ? seconds(firstSuccessAfter - faultAt) : 0,
    newPrimaryAfterFaultSeconds: newPrimaryAt ? seconds(newPrimaryAt - faultAt) : null,
    deliveredAfterRecoverySeconds: after(deliveredAt),
    executedAfterRecoverySeconds: after(executedAt),
    clearedAfterRecoverySeconds: after(clearedAt),
    ingestsAcknowledged: ingestIds.length,
    ingestsLost: ingestIds.length - ingestsPresent,
  };
}

type Received = { path: string; headers: Record<string, string> };

async function webhookCheck(
  observer: pg.Pool,
  received: Received[],
): Promise<{
  received: number;
  endpoints: number;
  gaps: number;
  reused: number;
  undelivered: number;
  storeGaps: number;
}> {
  const byEndpoint = new Map<string, Map<number, Set<string>>>();
  for (const r of received) {
    const seq = Number(r.headers['x-delivery-sequence']);
    const events = byEndpoint.get(r.path) ?? new Map<number, Set<string>>();
    byEndpoint.set(r.path, events);
    events.set(seq, (events.get(seq) ?? new Set()).add(r.headers['x-event-id'] ?? ''));
  }
  let gaps = 0;
  let reused = 0;
  for (const events of byEndpoint.values()) {
    const max = Math.max(...events.keys());
    gaps += max - events.size;
    for (const ids of events.values()) if (ids.size > 1) reused++;
  }
  const { rows } = await observer.query<{ gaps: string; reused: string; undelivered: string }>(
    `SELECT (SELECT coalesce(sum(e.last_sequence - s.n), 0) FROM webhook_endpoints e
               JOIN (SELECT endpoint_id, count(DISTINCT sequence) AS n FROM webhook_deliveries GROUP BY 1) s
                 ON s.endpoint_id = e.id) AS gaps,
            (SELECT count(*) FROM (SELECT endpoint_id, sequence FROM webhook_deliveries GROUP BY 1, 2
               HAVING count(DISTINCT event_id) > 1) r) AS reused,
            (SELECT count(*) FROM webhook_deliveries WHERE status <> 'succeeded') AS undelivered`,
  );
  const r = rows[0]!;
  return {
    received: received.length,
    endpoints: byEndpoint.size,
    gaps,
    reused: reused + Number(r.reused),
    undelivered: Number(r.undelivered),
    storeGaps: Number(r.gaps),
  };
}

process.exitCode = await main();
