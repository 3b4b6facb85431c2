/**
 * Connection loss as an ordinary event (issue 42, docs/adr/0059): while payments are submitted, a
 * statement ingested and deliveries run (workers in this process: pg-boss, the delivery relay, the
 * webhook loop), every backend of the test database is terminated (pg_terminate_backend) and the
 * database refuses connections for a few seconds (ALLOW_CONNECTIONS false), the way clients see a
 * primary die and a standby take over. The shared server itself is never stopped.
 *
 * Invariants: the process survives; a request that could not commit answers 503
 * `database_unavailable` with Retry-After in the contract's envelope, never 500; /ready says 503
 * during the outage and 200 after it by itself; a retry with the same Idempotency-Key gives exactly
 * one document whether or not the first attempt committed; every acknowledged payment is delivered
 * once and executed without a restart; the company's audit chain verifies.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { verifyCompanyChain } from '../../src/app/audit/verify.ts';
import { assertError, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { largeCamt053 } from '../support/large-camt.ts';
import { eventually } from '../webhooks/support.ts';

const SEED = 42;
const CLIENTS = 4;
const PER_CLIENT = 12;
const OUTAGE_MS = 3_000;

/** mulberry32: a small seeded generator, so a failing run can be repeated. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

let t: TestApp;
let sandbox: Awaited<ReturnType<typeof provisionAndLogin>>;
let admin: pg.Client;
let dbName: string;

before(async () => {
  t = await startTestApp({ workers: true, env: { DEMO_BANK_DELAY_MS: '200' } });
  sandbox = await provisionAndLogin(t);
  admin = new pg.Client({ connectionString: process.env.TEST_ADMIN_DATABASE_URL });
  admin.on('error', () => {});
  await admin.connect();
  dbName = new URL(t.databaseUrl).pathname.slice(1);
});
after(async () => {
  await admin.query(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS true`).catch(() => {});
  await admin.end();
  await t.close();
});

/** The database goes away: every backend of it terminated, new connections refused for `ms`. */
async function outage(ms: number): Promise<void> {
  await admin.query(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS false`);
  await admin.query(
    'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
    [dbName],
  );
  await new Promise((r) => setTimeout(r, ms));
  await admin.query(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS true`);
}

function paymentOf(i: number): Record<string, unknown> {
  const n = String(i).padStart(5, '0');
  return JSON.parse(
    JSON.stringify(sandbox.firstPayment.body)
      .replace(/SANDBOX-(\d{8})-0001/g, `LOSS-$1-${n}`)
      .replaceAll('E2E-0001', `E2E-L${n}`)
      .replaceAll('PMT-0001', `PMT-L${n}`),
  ) as Record<string, unknown>;
}

type Answer = { statusCode: number; body: string; headers: Record<string, unknown>; json(): unknown };
const unavailable: Answer[] = [];
const failures: Answer[] = [];

/** A request retried on 503 (as a client told Retry-After would), with the same Idempotency-Key. */
async function untilAnswered(send: () => Promise<Answer>, deadlineMs = 60_000): Promise<Answer> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const res = await send();
    if (res.statusCode !== 503) return res;
    unavailable.push(res);
    if (Date.now() > deadline) return res;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Where the outbound documents and their jobs stand (for a failure message). */
async function progress(): Promise<unknown> {
  const docs = await t.ctx.db.execute(
    sql`SELECT status, delivery_status, count(*)::int AS n FROM journal_documents
         WHERE company_id = ${sandbox.companyId} GROUP BY 1, 2 ORDER BY 1, 2`,
  );
  const jobs = await t.ctx.db.execute(
    sql`SELECT name, state, count(*)::int AS n FROM pgboss.job GROUP BY 1, 2 ORDER BY 1, 2`,
  );
  return { documents: docs.rows, jobs: jobs.rows };
}

async function count(query: ReturnType<typeof sql>): Promise<number> {
  return Number(((await t.ctx.db.execute(query)).rows[0] as { n: string | number }).n);
}

test(`connection loss (seed ${SEED}): 503 database_unavailable, recovery without restart, nothing lost or doubled`, async () => {
  const random = seeded(SEED);
  const acknowledged = new Map<string, string>();
  let next = 0;
  let outageOver = false;
  const client = async () => {
    for (let k = 0; k < PER_CLIENT; k++) {
      const i = next++;
      const key = `LOSS-${SEED}-${i}`;
      const res = await untilAnswered(() =>
        t.request({
          method: 'POST',
          url: '/journal/payments',
          headers: { 'x-api-key': sandbox.apiKey, 'idempotency-key': key },
          payload: { ...paymentOf(i), companyId: sandbox.companyId },
        }),
      );
      if (res.statusCode === 201 || res.statusCode === 200) acknowledged.set(key, (res.json() as { id: string }).id);
      else failures.push(res);
      await new Promise((r) => setTimeout(r, random() * (outageOver ? 20 : 150)));
    }
  };
  const submitting = Promise.all(Array.from({ length: CLIENTS }, client));
  const { xml } = largeCamt053(2_000_000, 'LOSS');
  // Wait for some acknowledged submits (and their deliveries under way), then the outage, with an
  // ingest started just before it and the readiness probe watched during it.
  await eventually(async () => acknowledged.size >= 8, 30_000);
  const ingesting = untilAnswered(() =>
    t.request({
      method: 'POST',
      url: '/journal/ingest',
      headers: { 'x-api-key': sandbox.apiKey, 'content-type': 'application/json' },
      payload: { companyId: sandbox.companyId, content: xml, environment: 'test' },
    }),
  );
  await new Promise((r) => setTimeout(r, 20));
  const down = outage(OUTAGE_MS);
  await new Promise((r) => setTimeout(r, 500));
  const readyDuring = await t.request({ method: 'GET', url: '/ready' });
  await down;
  outageOver = true;
  const ingested = await ingesting;
  await submitting;

  assert.equal(readyDuring.statusCode, 503, readyDuring.body);
  let ready = readyDuring;
  await eventually(async () => {
    ready = await t.request({ method: 'GET', url: '/ready' });
    return ready.statusCode === 200;
  }, 30_000).catch(() => assert.fail(`/ready after the outage: ${ready.statusCode} ${ready.body}`));
  assert.deepEqual(
    failures.map((f) => `${f.statusCode} ${f.body}`),
    [],
    'every request answered 201 in the end',
  );
  assert.ok(ingested.statusCode === 201 || ingested.statusCode === 200, ingested.body);
  assert.ok(unavailable.length > 0, 'some request met the outage');
  for (const res of unavailable) {
    assertError(res, 503, 'database_unavailable');
    assert.ok(Number(res.headers['retry-after']) > 0, 'Retry-After on every 503');
  }

  // One document per Idempotency-Key (a retried request whose first attempt committed found it).
  assert.equal(acknowledged.size, CLIENTS * PER_CLIENT);
  const outbound = (
    await t.ctx.db.execute<{ id: string }>(
      sql`SELECT id FROM journal_documents WHERE company_id = ${sandbox.companyId} AND direction = 'outbound' ORDER BY id`,
    )
  ).rows.map((r) => r.id);
  assert.deepEqual(outbound, [...acknowledged.values()].sort());

  // Every acknowledged payment delivered once and executed by the same workers, not restarted.
  await eventually(
    async () =>
      (await count(sql`SELECT count(*) AS n FROM journal_documents
                        WHERE company_id = ${sandbox.companyId} AND direction = 'outbound' AND status = 'executed'`)) ===
      acknowledged.size,
    90_000,
  ).catch(async () => assert.fail(`not every acknowledged payment executed: ${JSON.stringify(await progress())}`));
  const files = (
    await t.ctx.db.execute<{ document_id: string; n: number }>(
      sql`SELECT document_id, count(*)::int AS n FROM demo_bank_files WHERE company_id = ${sandbox.companyId}
           GROUP BY document_id ORDER BY document_id`,
    )
  ).rows;
  assert.deepEqual(
    files.map((f) => [f.document_id, f.n]),
    [...acknowledged.values()].sort().map((id) => [id, 1]),
  );
  const verdict = await verifyCompanyChain(t.ctx.db, { platformId: sandbox.platformId, companyId: sandbox.companyId });
  assert.equal(verdict.ok, true, JSON.stringify(verdict));
});
