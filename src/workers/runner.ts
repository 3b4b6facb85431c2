import { PgBoss } from 'pg-boss';
import type { AppContext } from '../app/context.ts';
import { removeIdleSandboxes } from '../app/sandbox/retention.ts';

/**
 * Durable jobs on pg-boss (docs/adr/0002-job-queue.md): jobs live in the same PostgreSQL, are
 * enqueued in the transaction of the state change that causes them, and are claimed with
 * SKIP LOCKED by any number of worker processes.
 */
export type Workers = { stop(): Promise<void> };

/** The job catalogue: one queue per kind of work. */
export const QUEUES = { sandboxRetention: 'sandbox-retention' } as const;

export async function startWorkers(ctx: AppContext, connectionString: string): Promise<Workers> {
  const boss = new PgBoss({ connectionString, schema: 'pgboss', max: 4, application_name: 'payops-worker' });
  boss.on('error', (err) => ctx.logger.error({ err }, 'job queue error'));
  await boss.start();

  await boss.createQueue(QUEUES.sandboxRetention);
  // Daily at 03:17 UTC; pg-boss makes a schedule fire once across all worker processes.
  await boss.schedule(QUEUES.sandboxRetention, '17 3 * * *');
  await boss.work(QUEUES.sandboxRetention, async () => {
    await removeIdleSandboxes(ctx);
  });

  ctx.logger.info('workers started');
  return { stop: () => boss.stop({ graceful: true, timeout: 10_000 }) };
}
