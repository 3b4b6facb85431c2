import { and, eq, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import type { Executor, PlatformScope } from '../executor.ts';
import { recoveryCodes, userTwoFactor } from '../schema/index.ts';

export type TwoFactorRow = typeof userTwoFactor.$inferSelect;

export async function findTwoFactor(
  q: Executor,
  scope: PlatformScope,
  userId: string,
): Promise<TwoFactorRow | undefined> {
  const rows = await q
    .select()
    .from(userTwoFactor)
    .where(and(eq(userTwoFactor.platformId, scope.platformId), eq(userTwoFactor.userId, userId)))
    .limit(1);
  return rows[0];
}

/** Starts (or restarts) a pending enrolment. An enabled one is left alone: answers false. */
export async function putPendingTwoFactor(
  q: Executor,
  scope: PlatformScope,
  userId: string,
  secretSealed: string,
  now: Date,
): Promise<boolean> {
  const rows = await q
    .insert(userTwoFactor)
    .values({ userId, platformId: scope.platformId, secretSealed, createdAt: now })
    .onConflictDoUpdate({
      target: userTwoFactor.userId,
      set: { secretSealed, createdAt: now, lastTimeStep: null },
      setWhere: and(isNull(userTwoFactor.enabledAt), eq(userTwoFactor.platformId, scope.platformId)),
    })
    .returning({ userId: userTwoFactor.userId });
  return rows.length > 0;
}

/**
 * Records an accepted time step, only when it is newer than the last one: two requests presenting the
 * same code at once cannot both win. Answers whether this call recorded it.
 */
export async function claimTimeStep(
  q: Executor,
  scope: PlatformScope,
  userId: string,
  timeStep: number,
): Promise<boolean> {
  const rows = await q
    .update(userTwoFactor)
    .set({ lastTimeStep: timeStep })
    .where(
      and(
        eq(userTwoFactor.platformId, scope.platformId),
        eq(userTwoFactor.userId, userId),
        or(isNull(userTwoFactor.lastTimeStep), lt(userTwoFactor.lastTimeStep, timeStep)),
      ),
    )
    .returning({ userId: userTwoFactor.userId });
  return rows.length > 0;
}

export async function markTwoFactorEnabled(q: Executor, scope: PlatformScope, userId: string, now: Date) {
  const rows = await q
    .update(userTwoFactor)
    .set({ enabledAt: now })
    .where(
      and(
        eq(userTwoFactor.platformId, scope.platformId),
        eq(userTwoFactor.userId, userId),
        isNull(userTwoFactor.enabledAt),
      ),
    )
    .returning({ userId: userTwoFactor.userId });
  return rows.length > 0;
}

export async function deleteTwoFactor(q: Executor, scope: PlatformScope, userId: string): Promise<void> {
  await q
    .delete(userTwoFactor)
    .where(and(eq(userTwoFactor.platformId, scope.platformId), eq(userTwoFactor.userId, userId)));
  await deleteRecoveryCodes(q, scope, userId);
}

export async function deleteRecoveryCodes(q: Executor, scope: PlatformScope, userId: string): Promise<void> {
  await q
    .delete(recoveryCodes)
    .where(and(eq(recoveryCodes.platformId, scope.platformId), eq(recoveryCodes.userId, userId)));
}

/** Replaces the user's recovery codes with new digests. */
export async function replaceRecoveryCodes(
  q: Executor,
  scope: PlatformScope,
  userId: string,
  codes: { id: string; digest: string }[],
  now: Date,
): Promise<void> {
  await deleteRecoveryCodes(q, scope, userId);
  await q
    .insert(recoveryCodes)
    .values(codes.map((c) => ({ ...c, userId, platformId: scope.platformId, createdAt: now })));
}

/** Spends an unused recovery code by digest; answers whether one was spent (single use under races). */
export async function spendRecoveryCode(
  q: Executor,
  scope: PlatformScope,
  userId: string,
  digest: string,
  now: Date,
): Promise<boolean> {
  const rows = await q
    .update(recoveryCodes)
    .set({ usedAt: now })
    .where(
      and(
        eq(recoveryCodes.platformId, scope.platformId),
        eq(recoveryCodes.userId, userId),
        eq(recoveryCodes.digest, digest),
        isNull(recoveryCodes.usedAt),
      ),
    )
    .returning({ id: recoveryCodes.id });
  return rows.length > 0;
}

export async function countUnusedRecoveryCodes(q: Executor, scope: PlatformScope, userId: string): Promise<number> {
  const [row] = await q
    .select({ n: sql<number>`count(*)::int` })
    .from(recoveryCodes)
    .where(
      and(
        eq(recoveryCodes.platformId, scope.platformId),
        eq(recoveryCodes.userId, userId),
        isNull(recoveryCodes.usedAt),
      ),
    );
  return row?.n ?? 0;
}

/** Whether the user has an enabled second factor (login asks for it, approvals may require it). */
export async function hasEnabledTwoFactor(q: Executor, scope: PlatformScope, userId: string): Promise<boolean> {
  const rows = await q
    .select({ userId: userTwoFactor.userId })
    .from(userTwoFactor)
    .where(
      and(
        eq(userTwoFactor.platformId, scope.platformId),
        eq(userTwoFactor.userId, userId),
        isNotNull(userTwoFactor.enabledAt),
      ),
    )
    .limit(1);
  return rows.length > 0;
}
