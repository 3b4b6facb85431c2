/**
 * `npm run bench:webhooks`: webhook dispatch throughput to a local HTTPS receiver. Outbox events
 * (BENCH_EVENTS, default 5000, spread over 8 companies with one endpoint each) are fanned out,
 * signed and sent by 1 and then 4 worker processes (each: dispatch + SKIP LOCKED sender loop);
 * the figure is events per second from the outbox insert until every delivery succeeded. The run
 * also checks that no delivery was sent twice. Embedded PostgreSQL, or DATABASE_URL.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 5000);
const COMPANIES = 8;
const WORKER_COUNTS = (process.env.BENCH_WORKERS ?? '1,4').split(',').map(Number);
const self = fileURLToPath(import.meta.url);

async function worker(): Promise<void> {
  const { runWebhookCycle } = await import('../src/app/webhooks/send.ts');
  const { createWebhookTransports } = await import('../src/app/webhooks/transports.ts');
  const { openPool } = await import('../src/db/client.ts');
  const { buildContext } = await import('../src/main/context.ts');
  const { loadConfig } = await import('../src/platform/config.ts');
  const { createEncryptor } = await import('../src/platform/encryption.ts');
  const { createLogger } = await import('../src/platform/logger.ts');
  const config = loadConfig({ ...process.env, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', LOG_LEVEL: 'silent' });
  const pool = openPool(config.databaseUrl!, 4);
  const ctx = buildContext({
    db: pool.db,
    config,
    logger: createLogger('silent'),
    jobs: { send: async () => null, sendMany: async () => {} },
    encryptor: createEncryptor(Buffer.from(config.masterKey!, 'base64')),
    mailer: { send: async () => {} },
  });
  const transports = createWebhookTransports(ctx);
  process.stdout.write('ready\n');
  for (;;) {
    const busy = await runWebhookCycle(ctx, transports);
    if (!busy) await new Promise((r) => setTimeout(r, 10));
  }
}

async function main(): Promise<void> {
  const { sql } = await import('drizzle-orm');
  const { startEmbeddedPostgres } = await import('../src/db/embedded.ts');
  const { openPool } = await import('../src/db/client.ts');
  const { runMigrations } = await import('../src/db/migrate.ts');
  const { buildApp } = await import('../src/http/app.ts');
  const { fxRatesProvider } = await import('../src/app/system/fx-rates.ts');
  const { loadConfig } = await import('../src/platform/config.ts');
  const { createLogger } = await import('../src/platform/logger.ts');
  const { openJobQueue } = await import('../src/workers/job-queue.ts');
  const { buildContext } = await import('../src/main/context.ts');
  const { createEncryptor } = await import('../src/platform/encryption.ts');
  const { startReceiver, testCa } = await import('../test/webhooks/support.ts');

  const logger = createLogger('silent');
  const embedded = process.env.DATABASE_URL
    ? undefined
    : await startEmbeddedPostgres(mkdtempSync(path.join(tmpdir(), 'payops-bench-wh-')), logger);
  let url = process.env.DATABASE_URL ?? embedded!.url;
  let dropDatabase: (() => Promise<void>) | undefined;
  if (process.env.DATABASE_URL) {
    // A database of its own on a shared server.
    const admin = openPool(url, 1);
    const name = `payops_bench_wh_${randomBytes(4).toString('hex')}`;
    await admin.pool.query(`CREATE DATABASE ${name}`);
    await admin.close();
    const u = new URL(url);
    u.pathname = `/${name}`;
    url = u.toString();
    const serverUrl = process.env.DATABASE_URL;
    dropDatabase = async () => {
      const again = openPool(serverUrl, 1);
      await again.pool.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await again.close();
    };
  }
  const database = openPool(url);
  await runMigrations(database.pool);
  const masterKey = randomBytes(32).toString('base64');
  const ca = testCa();
  const config = loadConfig({
    DATABASE_URL: url,
    MASTER_KEY: masterKey,
    LOG_LEVEL: 'silent',
    SANDBOX: 'true',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    EXTRA_CA_CERTS: ca.caFile,
  });
  const jobQueue = await openJobQueue(url, logger, { supervise: false });
  const ctx = buildContext({
    db: database.db,
    config,
    logger,
    jobs: jobQueue.queue,
    encryptor: createEncryptor(Buffer.from(masterKey, 'base64')),
    mailer: { send: async () => {} },
  });
  const app = await buildApp({ ctx, fx: fxRatesProvider(undefined, logger), version: 'bench' });
  const receiver = await startReceiver();
  receiver.answer = () => ({ status: 200 });

  const companies: { platformId: string; companyId: string }[] = [];
  for (let i = 0; i < COMPANIES; i++) {
    const sandbox = (
      await app.inject({ method: 'POST', url: '/sandbox/provision', payload: {}, remoteAddress: `10.9.0.${i + 1}` })
    ).json() as { apiKey: string; companyId: string; platformId: string };
    const res = await app.inject({
      method: 'POST',
      url: '/webhooks',
      headers: { 'x-api-key': sandbox.apiKey },
      payload: { companyId: sandbox.companyId, url: receiver.url },
    });
    if (res.statusCode !== 201) throw new Error(res.body);
    companies.push(sandbox);
  }
  // Events from provisioning, if any, are not part of the measurement.
  await ctx.db.execute(sql`UPDATE outbox_events SET dispatched_at = now() WHERE dispatched_at IS NULL`);

  const results: string[] = [];
  const live = new Set<ReturnType<typeof spawn>>();
  process.on('exit', () => {
    for (const child of live) child.kill('SIGKILL');
  });
  for (const [round, workers] of WORKER_COUNTS.entries()) {
    receiver.received.length = 0;
    const children = Array.from({ length: workers }, () =>
      spawn(process.execPath, [self, 'worker'], {
        env: { ...process.env, DATABASE_URL: url, MASTER_KEY: masterKey, EXTRA_CA_CERTS: ca.caFile },
        stdio: ['ignore', 'pipe', 'inherit'],
      }),
    );
    for (const child of children) live.add(child);
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) =>
            child.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve()),
          ),
      ),
    );
    const started = performance.now();
    const values = companies.map((c, i) => sql`(${c.platformId}, ${c.companyId}, ${i}::int)`);
    await ctx.db.execute(sql`
      INSERT INTO outbox_events (id, platform_id, company_id, type, payload, created_at)
      SELECT 'evt_bench_' || ${round} || '_' || lpad(g::text, 8, '0'), c.platform_id, c.company_id, 'payment.sent',
        jsonb_build_object('id', 'evt_bench_' || ${round} || '_' || lpad(g::text, 8, '0'), 'type', 'payment.sent',
          'createdAt', now(), 'apiVersion', '2026-06-01', 'platformId', c.platform_id, 'companyId', c.company_id,
          'data', jsonb_build_object('journalNo', 'OUT-' || g, 'bankKey', 'demo', 'status', 'sent',
            'totals', jsonb_build_array(jsonb_build_object('currency', 'EUR', 'amount', (g % 9999)::text || '.50')))),
        now()
      FROM generate_series(1, ${EVENTS}) AS g
      JOIN (VALUES ${sql.join(values, sql`, `)}) AS c(platform_id, company_id, n) ON c.n = g % ${COMPANIES}::int`);
    for (;;) {
      const r = await database.pool.query(
        `SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'succeeded' AND event_id LIKE $1`,
        [`evt_bench_${round}_%`],
      );
      if (r.rows[0].n >= EVENTS) break;
      await new Promise((res) => setTimeout(res, 25));
    }
    const seconds = (performance.now() - started) / 1000;
    for (const child of children) {
      child.kill('SIGKILL');
      live.delete(child);
    }
    const ids = receiver.received.map((r) => r.headers['x-delivery-id']);
    const duplicates = ids.length - new Set(ids).size;
    const line = `${workers} worker process${workers > 1 ? 'es' : ''}: ${EVENTS} events in ${seconds.toFixed(2)} s = ${Math.round(EVENTS / seconds)} events/s (requests received ${ids.length}, duplicates ${duplicates})`;
    results.push(line);
    process.stdout.write(`${line}\n`);
    await new Promise((r) => setTimeout(r, 300));
  }
  await receiver.close();
  await app.close();
  await jobQueue.stop();
  await database.close();
  await dropDatabase?.();
  await embedded?.stop();
  process.stdout.write(
    `\nwebhook dispatch, HTTPS receiver on 127.0.0.1, ${COMPANIES} endpoints\n${results.join('\n')}\n`,
  );
}

if (process.argv[2] === 'worker') await worker();
else await main();
