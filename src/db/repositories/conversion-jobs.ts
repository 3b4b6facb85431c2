import { and, eq, inArray, sql } from 'drizzle-orm';
import {
  CONVERSION_JOB_STATUSES,
  type ConversionJobStatus,
  conversionJobTransition,
  mustMove,
  statusesMovingTo,
} from '../../domain/lifecycle/index.ts';
import type { Executor, PlatformScope } from '../executor.ts';
import { conversionJobs } from '../schema/index.ts';

export type ConversionJobRow = typeof conversionJobs.$inferSelect;

export async function insertConversionJob(q: Executor, row: typeof conversionJobs.$inferInsert): Promise<void> {
  await q.insert(conversionJobs).values(row);
}

export async function findConversionJob(
  q: Executor,
  scope: PlatformScope,
  jobId: string,
): Promise<ConversionJobRow | undefined> {
  const rows = await q
    .select()
    .from(conversionJobs)
    .where(and(eq(conversionJobs.platformId, scope.platformId), eq(conversionJobs.id, jobId)))
    .limit(1);
  return rows[0];
}

/** The statuses a job may start an attempt from (`pending`, and `running` taken over after a crash). */
const STARTABLE = statusesMovingTo(CONVERSION_JOB_STATUSES, conversionJobTransition, 'running');

/** Moves a job that is not finished yet to `running` and counts the attempt. */
export async function startConversionAttempt(q: Executor, scope: PlatformScope, jobId: string, at: Date) {
  const rows = await q
    .update(conversionJobs)
    .set({ status: 'running', updatedAt: at, attempts: sql`${conversionJobs.attempts} + 1` })
    .where(
      and(
        eq(conversionJobs.platformId, scope.platformId),
        eq(conversionJobs.id, jobId),
        inArray(conversionJobs.status, STARTABLE),
      ),
    )
    .returning();
  return rows[0];
}

/**
 * Ends a running attempt: `succeeded`, `dead`, or back to `pending` for the next one, as the job
 * transition allows from `running`; only while the job is still running (answers whether it wrote).
 */
export async function finishConversionJob(
  q: Executor,
  scope: PlatformScope,
  jobId: string,
  patch: Pick<typeof conversionJobs.$inferInsert, 'resultSealed' | 'failure' | 'updatedAt'> & {
    status: ConversionJobStatus;
  },
): Promise<boolean> {
  const status = mustMove(conversionJobTransition, 'running', patch.status);
  const rows = await q
    .update(conversionJobs)
    .set({ ...patch, status })
    .where(
      and(
        eq(conversionJobs.platformId, scope.platformId),
        eq(conversionJobs.id, jobId),
        eq(conversionJobs.status, 'running'),
      ),
    )
    .returning({ id: conversionJobs.id });
  return rows.length > 0;
}
