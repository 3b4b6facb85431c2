import { and, eq, inArray, sql } from 'drizzle-orm';
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

/** Moves a job that is not finished yet to `running` and counts the attempt. */
export async function startConversionAttempt(q: Executor, scope: PlatformScope, jobId: string, at: Date) {
  const rows = await q
    .update(conversionJobs)
    .set({ status: 'running', updatedAt: at, attempts: sql`${conversionJobs.attempts} + 1` })
    .where(
      and(
        eq(conversionJobs.platformId, scope.platformId),
        eq(conversionJobs.id, jobId),
        inArray(conversionJobs.status, ['pending', 'running']),
      ),
    )
    .returning();
  return rows[0];
}

export async function finishConversionJob(
  q: Executor,
  scope: PlatformScope,
  jobId: string,
  patch: Pick<typeof conversionJobs.$inferInsert, 'status' | 'resultSealed' | 'failure' | 'updatedAt'>,
): Promise<void> {
  await q
    .update(conversionJobs)
    .set(patch)
    .where(and(eq(conversionJobs.platformId, scope.platformId), eq(conversionJobs.id, jobId)));
}
