import type { PgBoss } from 'pg-boss';
import type { AppContext } from '../app/context.ts';
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
      const ends = valid.length > 0 ? await run(valid) : [];
      valid.forEach((job, i) => {
        results.push({ id: job.id, status: ends[i] === 'completed' ? 'completed' : 'failed' });
      });
      return results;
    },
  );
}
