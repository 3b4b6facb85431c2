import { and, eq, lt } from 'drizzle-orm';
import type { Executor } from '../executor.ts';
import { platforms } from '../schema/index.ts';

export async function insertPlatform(q: Executor, row: typeof platforms.$inferInsert): Promise<void> {
  await q.insert(platforms).values(row);
}

export async function platformExists(q: Executor, platformId: string): Promise<boolean> {
  const rows = await q.select({ id: platforms.id }).from(platforms).where(eq(platforms.id, platformId)).limit(1);
  return rows.length > 0;
}

/** Locks the platform row until the transaction ends; answers whether the platform exists. */
export async function lockPlatform(q: Executor, platformId: string): Promise<boolean> {
  const rows = await q.select({ id: platforms.id }).from(platforms).where(eq(platforms.id, platformId)).for('update');
  return rows.length > 0;
}

/**
 * Records use of a platform at `at`, writing only when the recorded use is older than `staleBefore`
 * (callers also throttle in memory, so most requests write nothing).
 */
export async function touchPlatformActivity(
  q: Executor,
  platformId: string,
  at: Date,
  staleBefore: Date = at,
): Promise<void> {
  await q
    .update(platforms)
    .set({ lastActivityAt: at })
    .where(and(eq(platforms.id, platformId), lt(platforms.lastActivityAt, staleBefore)));
}

/** Sandbox platforms idle since before `cutoff`; retention removes them with everything they own. */
export async function deleteIdleSandboxes(q: Executor, cutoff: Date): Promise<string[]> {
  const rows = await q
    .delete(platforms)
    .where(and(eq(platforms.sandbox, true), lt(platforms.lastActivityAt, cutoff)))
    .returning({ id: platforms.id });
  return rows.map((r) => r.id);
}
