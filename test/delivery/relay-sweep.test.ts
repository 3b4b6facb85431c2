import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { QUEUES } from '../../src/workers/jobs.ts';
import { startTestApp, type TestApp } from '../harness.ts';

/**
 * Behind each worker's 100 ms polling loop, the delivery relay also runs as a pg-boss job once a
 * minute across all worker processes, so queued documents reach the bank-delivery queue even if one
 * process's loop stopped.
 */
let t: TestApp;
before(async () => {
  t = await startTestApp({ workers: true });
});
after(() => t.close());

test('the delivery relay sweep is scheduled every minute and its job completes', async () => {
  const schedules = await t.ctx.db.execute<{ cron: string }>(
    sql`SELECT cron FROM pgboss.schedule WHERE name = ${QUEUES.deliveryRelay}`,
  );
  assert.deepEqual(schedules.rows, [{ cron: '* * * * *' }]);
  const id = await t.ctx.jobs.send('deliveryRelay', {});
  let state = '';
  for (let i = 0; i < 100 && state !== 'completed'; i++) {
    const row = await t.ctx.db.execute<{ state: string }>(sql`SELECT state FROM pgboss.job WHERE id = ${id}`);
    state = row.rows[0]?.state ?? '';
    if (state !== 'completed') await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(state, 'completed');
});
