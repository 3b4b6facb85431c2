/**
 * The real app on a real PostgreSQL (embedded in a temp folder, or a fresh database made on the
 * DATABASE_URL server and dropped at the end) for the HTTP benchmarks: migrated, with a silent logger
 * and enqueue-only jobs. `close()` stops everything.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import type { AppContext } from '../../src/app/context.ts';
import { fxRatesProvider } from '../../src/app/system/fx-rates.ts';
import { openPool } from '../../src/db/client.ts';
import { startEmbeddedPostgres } from '../../src/db/embedded.ts';
import { runMigrations } from '../../src/db/migrate.ts';
import { buildApp } from '../../src/http/app.ts';
import { buildContext } from '../../src/main/context.ts';
import { loadConfig } from '../../src/platform/config.ts';
import { createEncryptor } from '../../src/platform/encryption.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { openJobQueue } from '../../src/workers/job-queue.ts';

export type BenchApp = { app: FastifyInstance; ctx: AppContext; databaseUrl: string; close(): Promise<void> };

/**
 * A database of the run's own on a shared server, so benchmarks never write into another's; or, with
 * `kept`, a database of that name made once and left in place for the next run.
 */
async function scratchDatabase(serverUrl: string, kept?: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = kept ?? `payops_bench_${process.pid}_${randomBytes(3).toString('hex')}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  if (kept === undefined) await admin(`CREATE DATABASE ${name}`);
  else
    await admin(`CREATE DATABASE ${name}`).catch((error: { code?: string }) => {
      if (error.code !== '42P04') throw error; // duplicate_database: made by an earlier run
    });
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const drop = kept === undefined ? () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) : async () => {};
  return { url: url.toString(), drop };
}

/**
 * `keep` names a database kept between runs (its folder under the temp directory for the embedded
 * PostgreSQL, a database of that name on the DATABASE_URL server): the benchmark seeds it once.
 */
export async function startBenchApp(poolSize = 20, keep?: string): Promise<BenchApp> {
  const logger = createLogger((process.env.BENCH_LOG ?? 'silent') as 'silent');
  const dataDir =
    keep === undefined ? mkdtempSync(path.join(tmpdir(), 'payops-bench-')) : path.join(tmpdir(), `payops-${keep}`);
  const embedded = process.env.DATABASE_URL ? undefined : await startEmbeddedPostgres(dataDir, logger);
  const scratch = process.env.DATABASE_URL ? await scratchDatabase(process.env.DATABASE_URL, keep) : undefined;
  const databaseUrl = scratch?.url ?? embedded!.url;
  // A kept database keeps its master key too: its sealed documents must decrypt on the next run.
  const keyFile = path.join(tmpdir(), `payops-${keep}.master-key`);
  if (keep !== undefined && !existsSync(keyFile)) writeFileSync(keyFile, randomBytes(32).toString('base64'));
  const masterKey = keep === undefined ? randomBytes(32).toString('base64') : readFileSync(keyFile, 'utf8');
  const database = openPool(databaseUrl, poolSize);
  await runMigrations(database.pool);
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    MASTER_KEY: masterKey,
    LOG_LEVEL: 'silent',
    SANDBOX: 'true',
  });
  const jobQueue = await openJobQueue(databaseUrl, logger, { supervise: false });
  const ctx = buildContext({
    db: database.db,
    config,
    logger,
    jobs: jobQueue.queue,
    encryptor: createEncryptor(Buffer.from(masterKey, 'base64')),
    mailer: { send: async () => {} },
  });
  const app = await buildApp({ ctx, fx: fxRatesProvider(undefined, logger), version: 'bench' });
  return {
    app,
    ctx,
    databaseUrl,
    async close() {
      await app.close();
      await jobQueue.stop();
      await database.close();
      await scratch?.drop();
      await embedded?.stop();
      if (keep === undefined) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
