import { and, eq, gt, isNull, lt, sql } from 'drizzle-orm';
import type { Executor, PlatformScope } from '../executor.ts';
import { loginChallenges } from '../schema/index.ts';

export type LoginChallengeRow = typeof loginChallenges.$inferSelect;

export async function insertLoginChallenge(q: Executor, row: typeof loginChallenges.$inferInsert): Promise<void> {
  await q.insert(loginChallenges).values(row);
}

/**
 * Credential lookup: a challenge that can still be answered (unused, unexpired, fewer than
 * `maxFailures` wrong codes), locked until the caller's transaction ends so two answers at once
 * are taken one after the other.
 */
export async function lockOpenChallengeByDigest(
  tx: Executor,
  digest: string,
  now: Date,
  maxFailures: number,
): Promise<LoginChallengeRow | undefined> {
  const rows = await tx
    .select()
    .from(loginChallenges)
    .where(openByDigest(digest, now, maxFailures))
    .limit(1)
    .for('update');
  return rows[0];
}

/** The same lookup without a lock: whose challenge it is, before the wrong-code limits are counted. */
export async function findOpenChallengeByDigest(
  q: Executor,
  digest: string,
  now: Date,
  maxFailures: number,
): Promise<Pick<LoginChallengeRow, 'userId' | 'platformId'> | undefined> {
  const rows = await q
    .select({ userId: loginChallenges.userId, platformId: loginChallenges.platformId })
    .from(loginChallenges)
    .where(openByDigest(digest, now, maxFailures))
    .limit(1);
  return rows[0];
}

function openByDigest(digest: string, now: Date, maxFailures: number) {
  return and(
    eq(loginChallenges.digest, digest),
    isNull(loginChallenges.usedAt),
    gt(loginChallenges.expiresAt, now),
    lt(loginChallenges.failedAttempts, maxFailures),
  );
}

export async function markChallengeUsed(q: Executor, scope: PlatformScope, id: string, at: Date): Promise<void> {
  await q
    .update(loginChallenges)
    .set({ usedAt: at })
    .where(and(eq(loginChallenges.platformId, scope.platformId), eq(loginChallenges.id, id)));
}

/** Counts a wrong code; answers the failures so far. */
export async function countChallengeFailure(q: Executor, scope: PlatformScope, id: string): Promise<number> {
  const rows = await q
    .update(loginChallenges)
    .set({ failedAttempts: sql`${loginChallenges.failedAttempts} + 1` })
    .where(and(eq(loginChallenges.platformId, scope.platformId), eq(loginChallenges.id, id)))
    .returning({ failedAttempts: loginChallenges.failedAttempts });
  return rows[0]?.failedAttempts ?? 0;
}

/** Voids the user's open challenges (password changed or reset, user erased, 2FA disabled). */
export async function voidUserChallenges(q: Executor, scope: PlatformScope, userId: string, at: Date): Promise<void> {
  await q
    .update(loginChallenges)
    .set({ usedAt: at })
    .where(
      and(
        eq(loginChallenges.platformId, scope.platformId),
        eq(loginChallenges.userId, userId),
        isNull(loginChallenges.usedAt),
      ),
    );
}
