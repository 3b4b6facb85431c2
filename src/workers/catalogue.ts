import type { PgBoss } from 'pg-boss';
import type { AppContext } from '../app/context.ts';
import { isDatabaseUnavailable } from '../db/errors.ts';
import { HEARTBEAT_REFRESH_SECONDS } from './job-queue.ts';
import { checkPayload, JOBS, type JobKind, type JobPayload } from './jobs.ts';

export type ClaimedJob<K extends JobKind> = { id: string; data: JobPayload<K>; retryCount: number; retryLimit: number };
/** A job's end: `completed`, or `retry` (failed; the queue runs it again after its backoff while retries are left). */
export type JobEnd = 'completed' | 'retry';

export type BatchOptions = {
  /** Jobs claimed per fetch (one SKIP LOCKED statement; each claim is a lease of the kind's `leaseSeconds`). */
  batchSize: number;
  /** Batches in flight in this process. */
  concurrency: number;
  /** The idle poll: a backstop for `notify` kinds (NOTIFY wakes the workers), the pace for delayed jobs. */
  pollSeconds: number;
};

/**
 * Registers the handler of a job kind of the catalogue (src/workers/jobs.ts) for batches: pg-boss claims
 * up to `batchSize` jobs with FOR UPDATE SKIP LOCKED, keeps fetching at once while batches come back
 * full, and settles each job on its own (`perJobResults`). Each payload is checked against its
 * schema before it runs: one that does not fit is a bug, so it is logged and dead-lettered, never retried.
 */
export async function workBatches<K extends JobKind>(
  ctx: AppContext,
  boss: PgBoss,
  kind: K,
  options: BatchOptions,
  run: (jobs: ClaimedJob<K>[]) => Promise<JobEnd[]>,
): Promise<string> {
  return boss.work(
    JOBS[kind].name,
    {
      batchSize: options.batchSize,
      localConcurrency: options.concurrency,
      burstWhenBatchFull: true,
      pollingIntervalSeconds: options.pollSeconds,
      notifyPollingIntervalSeconds: Math.max(options.pollSeconds, 30),
      includeMetadata: true,
      perJobResults: true,
      // The claim stays ours while this process lives and reaches the database (docs/adr/0059).
      heartbeatRefreshSeconds: HEARTBEAT_REFRESH_SECONDS,
    },
    async (jobs) => {
      const valid: ClaimedJob<K>[] = [];
      const results: { id: string; status: 'completed' | 'failed' | 'deadletter'; output?: object }[] = [];
      for (const job of jobs) {
        try {
          valid.push({
            id: job.id,
            data: checkPayload(kind, job.data),
            retryCount: job.retryCount,
            retryLimit: job.retryLimit,
          });
        } catch (error) {
          ctx.logger.error({ err: error, jobId: job.id, queue: JOBS[kind].name }, 'job payload refused');
          results.push({ id: job.id, status: 'deadletter', output: { error: String(error) } });
        }
      }
      // In a ROLE=all process the batch first yields to a saturated API (docs/adr/0083): claimed, it waits
      // well inside its lease.
      if (valid.length > 0) await ctx.apiLoad?.yieldToApi();
      const ends = valid.length > 0 ? await throughOutage(ctx, kind, () => run(valid)) : [];
      valid.forEach((job, i) => {
        results.push({ id: job.id, status: ends[i] === 'completed' ? 'completed' : 'failed' });
      });
      return results;
    },
  );
}

/** How long a batch waits out a database outage before it gives its jobs back to the queue's retries. */
const OUTAGE_PATIENCE_MS = 45_000;

/**
 * Runs a batch again, after a short pause, while it fails only because the database is unavailable
 * (a failover, a terminated backend: docs/adr/0059). Every handler is safe to run again (its
 * transactions either committed or not; the channel recognises a repeated file), and retrying here
 * keeps such a failure from costing a job one of its attempts and the queue's backoff (5 s doubled
 * per attempt for a delivery), which the outage says nothing about.
 */
async function throughOutage<T>(ctx: AppContext, kind: JobKind, run: () => Promise<T>): Promise<T> {
  const started = Date.now();
  const deadline = started + OUTAGE_PATIENCE_MS;
  for (let pause = 250, tries = 1; ; pause = Math.min(pause * 2, 2_000), tries++) {
    try {
      const result = await run();
      if (tries > 1)
        ctx.logger.warn({ queue: JOBS[kind].name, tries, ms: Date.now() - started }, 'job batch ran after an outage');
      return result;
    } catch (error) {
      const unavailable = isDatabaseUnavailable(error);
      if (!unavailable || Date.now() + pause > deadline) {
        // Why a batch gave its jobs back (their retries and backoff follow): an outage longer than the patience, or another error.
        ctx.logger.warn(
          { err: error, queue: JOBS[kind].name, tries, ms: Date.now() - started, unavailable },
          'job batch failed',
        );
        throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}
