import { sql } from 'drizzle-orm';
import { fromDrizzle, PgBoss } from 'pg-boss';
import { connectionSettings } from '../db/client.ts';
import { isDatabaseUnavailable } from '../db/errors.ts';
import type { Logger } from '../platform/logger.ts';
import { checkPayload, JOBS, type JobKind, type JobQueue } from './jobs.ts';

export type JobQueueHandle = { queue: JobQueue; boss: PgBoss; stop(): Promise<void> };

/**
 * A claimed job whose worker stopped touching it for this long is failed and retried by any worker
 * process's supervisor (docs/adr/0059): a worker that died, or whose settling of the job was lost
 * with the database connection (its outcome unknown), gives its jobs back in seconds, not after the
 * lease. pg-boss's minimum; workers touch every HEARTBEAT_REFRESH_SECONDS.
 */
export const HEARTBEAT_SECONDS = 10;
export const HEARTBEAT_REFRESH_SECONDS = 2;
/** How often a worker process's supervisor looks for stale heartbeats and expired leases. */
const SUPERVISE_SECONDS = 2;

/** The queue options pg-boss keeps per queue, from the job catalogue's policy. */
function queueOptions(kind: JobKind, leaseCap: number | undefined) {
  const { retryLimit, retryDelay, retryBackoff, leaseSeconds, notify } = JOBS[kind].policy;
  const expireInSeconds = leaseCap === undefined ? leaseSeconds : Math.min(leaseSeconds, leaseCap);
  return { retryLimit, retryDelay, retryBackoff, expireInSeconds, notify, heartbeatSeconds: HEARTBEAT_SECONDS };
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
  const timers = new DueTimers();
  const boss = newBoss(connectionString, options.supervise ?? true, options.leaseSeconds);
  // Once stopping, a connection that the (embedded) PostgreSQL's shutdown terminates under pg-boss is
  // expected, not an error worth an alert. A lost or refused connection is a warning (docs/adr/0059):
  // pg-boss retries it by itself, and a failover produced some 180 of them per worker process in
  // `npm run bench:failover` (every fetch, touch and supervise loop of every queue, each 2 s), which at
  // error level would page on every failover.
  boss.on('error', (err) => {
    if (timers.stopping) logger.debug({ err }, 'job queue error while stopping');
    else if (isDatabaseUnavailable(err)) logger.warn({ err }, 'job queue error: database unavailable');
    else logger.error({ err }, 'job queue error');
  });
  boss.on('warning', (warning) => logger.warn({ warning }, 'job queue warning'));
  await boss.start();
  await ensureQueues(boss, options.leaseSeconds);
  const queue = queueOn(boss, timers);
  const stop = () => {
    timers.stop();
    return boss.stop({ graceful: true, timeout: 10_000 });
  };
  return { queue, boss, stop } satisfies JobQueueHandle;
}

function newBoss(connectionString: string, supervise: boolean, leaseSeconds: number | undefined): PgBoss {
  // A lease cap (JOB_LEASE_SECONDS) also has expired leases looked for as often as it runs out.
  const expiryChecks =
    leaseSeconds === undefined
      ? { superviseIntervalSeconds: SUPERVISE_SECONDS }
      : {
          superviseIntervalSeconds: Math.max(1, Math.min(SUPERVISE_SECONDS, Math.floor(leaseSeconds / 2))),
          monitorIntervalSeconds: Math.max(1, Math.floor(leaseSeconds / 2)),
        };
  return new PgBoss({
    // The pool's bounded waits and keepalive (docs/adr/0059): pg-boss reconnects by itself.
    ...connectionSettings(connectionString),
    schema: 'pgboss',
    max: supervise ? 4 : 3,
    supervise,
    schedule: supervise,
    useListenNotify: supervise,
    ...expiryChecks,
  });
}

/** Every queue of the job catalogue exists with the catalogue's options (a change reaches queues made earlier). */
async function ensureQueues(boss: PgBoss, leaseSeconds: number | undefined): Promise<void> {
  for (const kind of Object.keys(JOBS) as JobKind[]) {
    const name = JOBS[kind].name;
    const existing = await boss.getQueue(name);
    const wanted = queueOptions(kind, leaseSeconds);
    if (!existing) await boss.createQueue(name, wanted);
    else if (
      existing.retryLimit !== wanted.retryLimit ||
      existing.expireInSeconds !== wanted.expireInSeconds ||
      existing.heartbeatSeconds !== wanted.heartbeatSeconds ||
      Boolean(existing.notify) !== wanted.notify
    ) {
      await boss.updateQueue(name, wanted);
    }
  }
}

/** Delayed jobs this process sent, woken when due (JobQueue.whenDue): one timer per 50 ms slot. */
class DueTimers {
  stopping = false;
  readonly wakers = new Map<JobKind, () => void>();
  private readonly slots = new Map<string, NodeJS.Timeout>();

  dueAt(kind: JobKind, startAfter: Date | undefined): void {
    const wake = this.wakers.get(kind);
    if (!wake || !startAfter || this.stopping) return;
    const at = Math.ceil(startAfter.getTime() / 50) * 50;
    const slot = `${kind}@${at}`;
    if (this.slots.has(slot)) return;
    const timer = setTimeout(
      () => {
        this.slots.delete(slot);
        if (!this.stopping) wake();
      },
      Math.max(0, at - Date.now()),
    );
    timer.unref();
    this.slots.set(slot, timer);
  }

  stop(): void {
    this.stopping = true;
    for (const timer of this.slots.values()) clearTimeout(timer);
    this.slots.clear();
  }
}

const inTx = (tx: unknown) => (tx ? { db: fromDrizzle(tx as Parameters<typeof fromDrizzle>[0], sql) } : {});

/** The JobQueue port over pg-boss: every payload checked against its job's schema before it is written. */
function queueOn(boss: PgBoss, timers: DueTimers): JobQueue {
  return {
    send: async (kind, data, sendOptions = {}) => {
      const id = await boss.send(JOBS[kind].name, checkPayload(kind, data), {
        ...(sendOptions.startAfter ? { startAfter: sendOptions.startAfter } : {}),
        ...(sendOptions.singletonKey ? { singletonKey: sendOptions.singletonKey } : {}),
        ...(sendOptions.singletonSeconds ? { singletonSeconds: sendOptions.singletonSeconds } : {}),
        ...(sendOptions.singletonNextSlot ? { singletonNextSlot: true } : {}),
        ...inTx(sendOptions.tx),
      });
      // Sent in a transaction, the job exists once it commits; a wake before that (or after a
      // rollback) only makes the worker fetch and find nothing.
      timers.dueAt(kind, sendOptions.startAfter);
      // A job put into the next slot is due when that slot begins (at most singletonSeconds later).
      if (sendOptions.singletonNextSlot && sendOptions.singletonSeconds && sendOptions.startAfter) {
        timers.dueAt(kind, new Date(sendOptions.startAfter.getTime() + sendOptions.singletonSeconds * 1000));
      }
      return id;
    },
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
      timers.dueAt(kind, sendOptions.startAfter);
    },
    whenDue: (kind, wake) => {
      timers.wakers.set(kind, wake);
    },
  };
}
