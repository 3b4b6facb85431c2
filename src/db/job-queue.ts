import { sql } from 'drizzle-orm';
import { fromDrizzle, PgBoss } from 'pg-boss';
import { type JobQueue, QUEUES } from '../app/jobs.ts';
import type { Logger } from '../platform/logger.ts';

/** Retry policy per queue: conversion retries a few times, then the job is dead. */
const QUEUE_OPTIONS: Record<string, { retryLimit: number; retryDelay: number; retryBackoff: boolean }> = {
  [QUEUES.sandboxRetention]: { retryLimit: 2, retryDelay: 60, retryBackoff: true },
  [QUEUES.conversion]: { retryLimit: 2, retryDelay: 1, retryBackoff: true },
  [QUEUES.bankDelivery]: { retryLimit: 10, retryDelay: 5, retryBackoff: true },
  [QUEUES.demoBankReply]: { retryLimit: 5, retryDelay: 2, retryBackoff: true },
  [QUEUES.bankPickup]: { retryLimit: 1, retryDelay: 30, retryBackoff: false },
  [QUEUES.journalRetention]: { retryLimit: 2, retryDelay: 60, retryBackoff: true },
  [QUEUES.deliveryRelay]: { retryLimit: 0, retryDelay: 60, retryBackoff: false },
  [QUEUES.certificateRenewal]: { retryLimit: 2, retryDelay: 300, retryBackoff: true },
  // The next minute's run is the retry.
  [QUEUES.approvalExpiry]: { retryLimit: 0, retryDelay: 60, retryBackoff: false },
};

export type JobQueueHandle = { queue: JobQueue; boss: PgBoss; stop(): Promise<void> };

/**
 * pg-boss on our PostgreSQL (schema `pgboss`). Every process opens it to enqueue; only worker
 * processes register handlers. Jobs sent with `tx` are written by that drizzle transaction.
 */
export async function openJobQueue(connectionString: string, logger: Logger, options: { supervise?: boolean } = {}) {
  const boss = new PgBoss({
    connectionString,
    schema: 'pgboss',
    max: 3,
    application_name: 'payops',
    supervise: options.supervise ?? true,
    schedule: options.supervise ?? true,
  });
  // Once stopping, a connection that the (embedded) PostgreSQL's shutdown terminates under pg-boss is
  // expected, not an error worth an alert.
  let stopping = false;
  boss.on('error', (err) =>
    stopping ? logger.debug({ err }, 'job queue error while stopping') : logger.error({ err }, 'job queue error'),
  );
  await boss.start();
  for (const [name, opts] of Object.entries(QUEUE_OPTIONS)) {
    if (!(await boss.getQueue(name))) await boss.createQueue(name, opts);
  }
  const inTx = (tx: unknown) => (tx ? { db: fromDrizzle(tx as Parameters<typeof fromDrizzle>[0], sql) } : {});
  const queue: JobQueue = {
    send: (name, data, sendOptions = {}) =>
      boss.send(name, data, {
        ...(sendOptions.startAfter ? { startAfter: sendOptions.startAfter } : {}),
        ...(sendOptions.singletonKey ? { singletonKey: sendOptions.singletonKey } : {}),
        ...inTx(sendOptions.tx),
      }),
    sendMany: async (name, items, sendOptions = {}) => {
      if (items.length === 0) return;
      await boss.insert(
        name,
        items.map((data) => ({ data })),
        { returnId: false, ...inTx(sendOptions.tx) },
      );
    },
  };
  const stop = () => {
    stopping = true;
    return boss.stop({ graceful: true, timeout: 10_000 });
  };
  return { queue, boss, stop } satisfies JobQueueHandle;
}
