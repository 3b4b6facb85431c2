/**
 * `npm test`: every *.test.ts under src/ and test/ with node:test, against a real PostgreSQL.
 * Without DATABASE_URL an embedded PostgreSQL is started for the run; with it, that server is used.
 * One migrated template database is made per run and each test file clones its own database from
 * it (test/harness.ts), so files run in parallel without sharing state.
 * Arguments narrow the run to the given files: `npm test -- test/http/identity.test.ts`.
 */
import { spawn } from 'node:child_process';
import { globSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../src/db/embedded.ts';
import { runMigrations } from '../src/db/migrate.ts';
import { createLogger } from '../src/platform/logger.ts';
import { openJobQueue } from '../src/workers/job-queue.ts';

const requested = process.argv.slice(2);
const files = requested.length > 0 ? requested : globSync(['src/**/*.test.ts', 'test/**/*.test.ts']).sort();

const logger = createLogger('warn');
let embeddedDir: string | undefined;
let adminUrl = process.env.DATABASE_URL;
let stopEmbedded: (() => Promise<void>) | undefined;
if (!adminUrl) {
  embeddedDir = mkdtempSync(path.join(tmpdir(), 'payops-test-pg-'));
  const server = await startEmbeddedPostgres(embeddedDir, logger);
  adminUrl = server.url;
  stopEmbedded = server.stop;
}

const runId = `${process.pid}_${Date.now().toString(36)}`;
const template = `payops_tpl_${runId}`;
const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
await admin.query(`CREATE DATABASE ${template}`);
const templateUrl = new URL(adminUrl);
templateUrl.pathname = `/${template}`;
const templatePool = new pg.Pool({ connectionString: templateUrl.toString(), max: 1 });
await runMigrations(templatePool);
await templatePool.end();
// The job queue's schema too, so each cloned database starts ready to enqueue.
const queue = await openJobQueue(templateUrl.toString(), logger, { supervise: false });
await queue.stop();

process.stdout.write(
  `test database: ${embeddedDir ? 'embedded PostgreSQL' : 'PostgreSQL server from DATABASE_URL'}; ${files.length} files\n`,
);
const child = spawn(process.execPath, ['--test', '--test-concurrency=2', ...files], {
  stdio: 'inherit',
  env: { ...process.env, TEST_ADMIN_DATABASE_URL: adminUrl, TEST_TEMPLATE_DATABASE: template, TEST_RUN_ID: runId },
});
const exitCode: number = await new Promise((resolve) => child.on('exit', (code) => resolve(code ?? 1)));

// Drop what this run created, even after failures, so a shared server stays clean.
const leftovers = await admin.query<{ datname: string }>(
  `SELECT datname FROM pg_database WHERE datname LIKE $1 OR datname = $2`,
  [`payops_t_${runId}_%`, template],
);
for (const { datname } of leftovers.rows) {
  await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`).catch(() => {});
}
await admin.end();
await stopEmbedded?.();
if (embeddedDir) rmSync(embeddedDir, { recursive: true, force: true });
process.exit(exitCode);
