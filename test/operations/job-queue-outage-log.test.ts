/**
 * A failover is not an error in the logs (issue 42, found by `npm run bench:failover`): while the
 * database is away, pg-boss emits an `error` for every loop that meets it (fetch, heartbeat touch,
 * supervise, its LISTEN connection), some 180 per worker process in a 20 s failover. They are logged
 * at warn ("job queue error: database unavailable"), never at error level, which pages. An error of
 * another kind stays at error level.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { isDatabaseUnavailable } from '../../src/db/errors.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { type JobQueueHandle, openJobQueue } from '../../src/workers/job-queue.ts';
import { freshDatabase } from '../harness.ts';
import { eventually } from '../webhooks/support.ts';

let database: Awaited<ReturnType<typeof freshDatabase>>;
let admin: pg.Client;
let handle: JobQueueHandle;
const lines: { level: number; msg: string; err?: { message?: string } }[] = [];

before(async () => {
  database = await freshDatabase();
  admin = new pg.Client({ connectionString: process.env.TEST_ADMIN_DATABASE_URL });
  admin.on('error', () => {});
  await admin.connect();
  const logger = createLogger('debug', { write: (chunk: string) => void lines.push(JSON.parse(chunk)) });
  // Supervising, scheduling and listening, as in a worker process.
  handle = await openJobQueue(database.url, logger, { supervise: true });
  // A worker polling a queue, so that fetches meet the outage too.
  await handle.boss.work('webhooks', { pollingIntervalSeconds: 0.5 }, async () => {});
});
after(async () => {
  const name = new URL(database.url).pathname.slice(1);
  await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`).catch(() => {});
  await handle.stop();
  await admin.end();
  await database.drop();
});

test('pg-boss errors while the database is away are warnings; others stay errors', async () => {
  const name = new URL(database.url).pathname.slice(1);
  await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
  await admin.query(
    'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
    [name],
  );
  await eventually(() => lines.some((l) => l.msg === 'job queue error: database unavailable'), 15_000);
  await new Promise((r) => setTimeout(r, 3000));
  await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);

  const queueLines = lines.filter((l) => l.msg.startsWith('job queue error'));
  assert.ok(queueLines.length > 0);
  assert.deepEqual(
    queueLines.filter((l) => l.level >= 50).map((l) => l.err?.message),
    [],
    'no job queue error at error level during the outage',
  );
  assert.ok(queueLines.every((l) => l.level === 40 && l.msg === 'job queue error: database unavailable'));
  // pg-boss's LISTEN connection ending (db.js: `new Error('LISTEN/NOTIFY connection ended')`, no
  // SQLSTATE) is the same event: the bench met it six times per failover.
  assert.equal(isDatabaseUnavailable(new Error('LISTEN/NOTIFY connection ended')), true);

  // The queue keeps working afterwards, and an error of another kind is still an error.
  await eventually(async () => (await handle.boss.getQueue('webhooks').catch(() => null)) !== null, 20_000);
  lines.length = 0;
  handle.boss.emit('error', new Error('a handler bug'));
  assert.deepEqual(
    lines.map((l) => [l.level, l.msg, l.err?.message]),
    [[50, 'job queue error', 'a handler bug']],
  );
});
