/**
 * Chaos (issue 21): payments submitted through the API while worker processes (ROLE=worker, the
 * real server entry point) deliver them to the demo bank, answer as the demo bank, ingest its
 * pain.002 and camt.053, reconcile, and send webhooks, and are killed with SIGKILL at random
 * moments and replaced. At the end, every acknowledged payment was delivered exactly once (one
 * file at the bank, one delivery record), executed and its line cleared, and every payment event
 * reached the webhook receiver at least once, with no gap in X-Delivery-Sequence.
 *
 * A short run with a fixed seed is part of the suite; `npm run bench:chaos` runs a long one
 * (CHAOS_PAYMENTS, CHAOS_KILLS, CHAOS_SEED, CHAOS_WORKERS).
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { body, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { eventually, type Receiver, startReceiver, testCa } from '../webhooks/support.ts';

const SEED = Number(process.env.CHAOS_SEED ?? 21);
const PAYMENTS = Number(process.env.CHAOS_PAYMENTS ?? 40);
const KILLS = Number(process.env.CHAOS_KILLS ?? 4);
const WORKERS = Number(process.env.CHAOS_WORKERS ?? 2);
const SETTLE_MS = Number(process.env.CHAOS_SETTLE_MS ?? 240_000);

/** mulberry32: a small seeded generator, so a failing run can be repeated. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let t: TestApp;
let receiver: Receiver;
let sandbox: Awaited<ReturnType<typeof provisionAndLogin>>;
const ca = testCa();
const dataDir = mkdtempSync(path.join(tmpdir(), 'payops-chaos-'));
const workers = new Set<ChildProcess>();
let started = 0;

before(async () => {
  receiver = await startReceiver();
  t = await startTestApp({
    env: { DEMO_BANK_DELAY_MS: '300', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', EXTRA_CA_CERTS: ca.caFile },
  });
  sandbox = await provisionAndLogin(t);
});
after(async () => {
  for (const w of workers) w.kill('SIGKILL');
  await receiver.close();
  await t.close();
  rmSync(dataDir, { recursive: true, force: true });
});

function startWorker(): ChildProcess {
  started++;
  const child = spawn(process.execPath, ['src/main/server.ts'], {
    env: {
      ...process.env,
      ROLE: 'worker',
      DATABASE_URL: t.databaseUrl,
      MASTER_KEY: t.ctx.config.masterKey!,
      SANDBOX: 'false',
      DEMO_BANK_DELAY_MS: '300',
      JOB_LEASE_SECONDS: '4',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      EXTRA_CA_CERTS: ca.caFile,
      LOG_LEVEL: 'error',
      DATA_DIR: path.join(dataDir, `w${started}`),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  workers.add(child);
  child.on('exit', () => workers.delete(child));
  return child;
}

async function killOne(random: () => number): Promise<void> {
  const live = [...workers];
  const victim = live[Math.floor(random() * live.length)];
  if (!victim) return;
  const gone = new Promise((r) => victim.once('exit', r));
  victim.kill('SIGKILL');
  await gone;
  startWorker();
}

function paymentOf(i: number): Record<string, unknown> {
  const n = String(i).padStart(5, '0');
  return JSON.parse(
    JSON.stringify(sandbox.firstPayment.body)
      .replace(/SANDBOX-(\d{8})-0001/g, `CHAOS-$1-${n}`)
      .replaceAll('E2E-0001', `E2E-C${n}`)
      .replaceAll('PMT-0001', `PMT-C${n}`),
  ) as Record<string, unknown>;
}

async function count(query: ReturnType<typeof sql>): Promise<number> {
  return Number(((await t.ctx.db.execute(query)).rows[0] as { n: string | number }).n);
}

test(`chaos: ${PAYMENTS} payments, ${KILLS} workers killed (seed ${SEED}); each delivered once, executed, announced`, async () => {
  const random = seeded(SEED);
  const created = await t.request({
    method: 'POST',
    url: '/webhooks',
    headers: { 'x-api-key': sandbox.apiKey },
    payload: { companyId: sandbox.companyId, url: receiver.url },
  });
  assert.equal(created.statusCode, 201, created.body);
  const endpointId = body<{ endpoint: { id: string } }>(created).endpoint.id;
  for (let i = 0; i < WORKERS; i++) startWorker();

  // Submits, and kills at random moments while they go on.
  const acknowledged: string[] = [];
  const submitting = (async () => {
    for (let i = 0; i < PAYMENTS; i++) {
      const res = await t.request({
        method: 'POST',
        url: '/journal/payments',
        headers: { 'x-api-key': sandbox.apiKey, 'idempotency-key': `CHAOS-${SEED}-${i}` },
        payload: { ...paymentOf(i), companyId: sandbox.companyId },
      });
      assert.equal(res.statusCode, 201, res.body);
      acknowledged.push(body<{ id: string }>(res).id);
      if (random() < 0.3) await new Promise((r) => setTimeout(r, random() * 200));
    }
  })();
  const killing = (async () => {
    for (let k = 0; k < KILLS; k++) {
      await new Promise((r) => setTimeout(r, 800 + random() * 2500));
      await killOne(random);
    }
  })();
  await Promise.all([submitting, killing]);

  // The survivors finish the work.
  const done = () =>
    count(sql`SELECT count(*) AS n FROM journal_documents
               WHERE company_id = ${sandbox.companyId} AND direction = 'outbound' AND status = 'executed'`);
  await eventually(async () => (await done()) === acknowledged.length, SETTLE_MS);
  const eventCount = () =>
    count(
      sql`SELECT count(*) AS n FROM outbox_events WHERE company_id = ${sandbox.companyId} AND type LIKE 'payment.%'`,
    );
  await eventually(
    async () =>
      (await count(sql`SELECT count(*) AS n FROM webhook_deliveries
                        WHERE endpoint_id = ${endpointId} AND status = 'succeeded'`)) === (await eventCount()),
    SETTLE_MS,
  );

  // Every acknowledged payment: executed, delivered, its line cleared and settled.
  const docs = (
    await t.ctx.db.execute<{ id: string; status: string; delivery_status: string }>(
      sql`SELECT id, status, delivery_status FROM journal_documents
           WHERE company_id = ${sandbox.companyId} AND direction = 'outbound' ORDER BY id`,
    )
  ).rows;
  assert.deepEqual(
    docs.map((d) => d.id),
    [...acknowledged].sort(),
  );
  for (const d of docs) assert.deepEqual([d.status, d.delivery_status], ['executed', 'delivered'], d.id);
  // A pain.002 clears a line and executes its run; the camt.053 booking that settles the line (closes
  // its answer window) may come later, after a killed worker's job waited out its lease: wait for it.
  const unsettled = () =>
    count(sql`SELECT count(*) AS n FROM payment_lines
               WHERE company_id = ${sandbox.companyId} AND (state <> 'cleared' OR open_until IS NOT NULL)`);
  await eventually(async () => (await unsettled()) === 0, SETTLE_MS);
  assert.equal(await unsettled(), 0);
  // Delivered exactly once: one file per payment at the bank, one delivery record per payment.
  const files = (
    await t.ctx.db.execute<{ document_id: string; n: number }>(
      sql`SELECT document_id, count(*)::int AS n FROM demo_bank_files WHERE company_id = ${sandbox.companyId}
           GROUP BY document_id ORDER BY document_id`,
    )
  ).rows;
  assert.deepEqual(
    files.map((f) => [f.document_id, f.n]),
    [...acknowledged].sort().map((id) => [id, 1]),
  );
  const delivered = (
    await t.ctx.db.execute<{ document_id: string; n: number }>(
      sql`SELECT metadata->>'documentId' AS document_id, count(*)::int AS n FROM activity_events
           WHERE company_id = ${sandbox.companyId} AND type = 'payment.delivered' GROUP BY 1`,
    )
  ).rows;
  assert.equal(delivered.length, acknowledged.length);
  for (const d of delivered) assert.equal(d.n, 1, `${d.document_id} recorded as delivered ${d.n} times`);

  // Events: each payment's sent and executed reached the receiver (at least once), and the
  // endpoint's sequence has no gap.
  const seen = new Map<string, Set<string>>();
  const sequences = new Set<number>();
  for (const r of receiver.received) {
    const event = JSON.parse(r.body) as { type: string; data: { documentId?: string } };
    const id = event.data.documentId ?? '';
    seen.set(id, (seen.get(id) ?? new Set()).add(event.type));
    sequences.add(Number(r.headers['x-delivery-sequence']));
  }
  for (const id of acknowledged) {
    assert.ok(seen.get(id)?.has('payment.sent'), `${id}: payment.sent not received`);
    assert.ok(seen.get(id)?.has('payment.executed'), `${id}: payment.executed not received`);
  }
  const highest = Math.max(...sequences);
  assert.equal(highest, await eventCount());
  for (let s = 1; s <= highest; s++) assert.ok(sequences.has(s), `sequence ${s} never received`);
  assert.ok(started >= WORKERS + KILLS);
});
