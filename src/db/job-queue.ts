import { sql } from 'drizzle-orm';
import { fromDrizzle, PgBoss } from 'pg-boss';
import { checkPayload, JOBS, type JobKind, type JobQueue } from '../app/jobs.ts';
import type { Logger } from '../platform/logger.ts';

export type JobQueueHandle = { queue: JobQueue; boss: PgBoss; stop(): Promise<void> };

/** The queue options pg-boss keeps per queue, from the job catalogue's policy. */
function queueOptions(kind: JobKind, leaseCap: number | undefined) {
  const { retryLimit, retryDelay, retryBackoff, leaseSeconds, notify } = JOBS[kind].policy;
  const expireInSeconds = leaseCap === undefined ? leaseSeconds : Math.min(leaseSeconds, leaseCap);
  return { retryLimit, retryDelay, retryBackoff, expireInSeconds, notify };
}

/**
 * pg-boss on our PostgreSQL (schema `pgboss`). Every process opens it to enqueue; only worker
 * processes register handlers, and they listen (LISTEN/NOTIFY) so that a job of a `notify` queue
 * wakes them when its transaction commits. Jobs sent with `tx` are written by that drizzle
 * transaction. Every payload is checked against its job's schema before it is written.
 */
export async function openJobQueue(
  connectionString: string,
  logger: Logger,
  options: { supervise?: boolean; leaseSeconds?: number | undefined } = {},
) {
  const supervise = options.supervise ?? true;
  // A lease cap (JOB_LEASE_SECONDS) also has expired leases looked for as often as it runs out.
  const expiryChecks =
    options.leaseSeconds === undefined
      ? {}
      : {
          superviseIntervalSeconds: Math.max(1, Math.floor(options.leaseSeconds / 2)),
          monitorIntervalSeconds: Math.max(1, Math.floor(options.leaseSeconds / 2)),
        };
  const boss = new PgBoss({
    connectionString,
    schema: 'pgboss',
    max: supervise ? 4 : 3,
    application_name: 'payops',
    supervise,
    schedule: supervise,
    useListenNotify: supervise,
    ...expiryChecks,
  });
  // Once stopping, a connection that the (embedded) PostgreSQL's shutdown terminates under pg-boss is
  // expected, not an error worth an alert.
  let stopping = false;
  boss.on('error', (err) =>
    stopping ? logger.debug({ err }, 'job queue error while stopping') : logger.error({ err }, 'job queue error'),
  );
  boss.on('warning', (warning) => logger.warn({ warning }, 'job queue warning'));
  await boss.start();
  for (const kind of Object.keys(JOBS) as JobKind[]) {
    const name = JOBS[kind].name;
    const existing = await boss.getQueue(name);
    const wanted = queueOptions(kind, options.leaseSeconds);
    if (!existing) await boss.createQueue(name, wanted);
    else if (
      existing.retryLimit !== wanted.retryLimit ||
      existing.expireInSeconds !== wanted.expireInSeconds ||
      Boolean(existing.notify) !== wanted.notify
    ) {
      // A catalogue change reaches queues made by an earlier version.
      await boss.updateQueue(name, wanted);
    }
  }
  const inTx = (tx: unknown) => (tx ? { db: fromDrizzle(tx as Parameters<typeof fromDrizzle>[0], sql) } : {});
  const queue: JobQueue = {
    send: async (kind, data, sendOptions = {}) =>
      boss.send(JOBS[kind].name, checkPayload(kind, data), {
        ...(sendOptions.startAfter ? { startAfter: sendOptions.startAfter } : {}),
        ...(sendOptions.singletonKey ? { singletonKey: sendOptions.singletonKey } : {}),
        ...inTx(sendOptions.tx),
      }),
    sendMany: async (kind, items, sendOptions = {}) => {
      if (items.length === 0) return;
      await boss.insert(
        JOBS[kind].name,
        items.map((data) => ({
          data: checkPayload(kind, data),
          ...(sendOptions.startAfter ? { startAfter: sendOptions.startAfter } : {}),
        })),
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
