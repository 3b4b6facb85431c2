import { and, desc, eq, gt, isNull, lt, ne, or } from 'drizzle-orm';
import type { Executor, PlatformScope } from '../executor.ts';
import { sessions } from '../schema/index.ts';

export type SessionRow = typeof sessions.$inferSelect;

export async function insertSession(q: Executor, row: typeof sessions.$inferInsert): Promise<SessionRow> {
  const [created] = await q.insert(sessions).values(row).returning();
  return created!;
}

/** Credential lookup: a live session by the digest of its token. */
export async function findLiveSessionByDigest(q: Executor, digest: string, now: Date): Promise<SessionRow | undefined> {
  const rows = await q
    .select()
    .from(sessions)
    .where(and(eq(sessions.digest, digest), isNull(sessions.revokedAt), gt(sessions.expiresAt, now)))
    .limit(1);
  return rows[0];
}

export async function revokeSession(q: Executor, scope: PlatformScope, sessionId: string, at: Date): Promise<void> {
  await q
    .update(sessions)
    .set({ revokedAt: at })
    .where(and(eq(sessions.platformId, scope.platformId), eq(sessions.id, sessionId), isNull(sessions.revokedAt)));
}

export async function revokeUserSessions(q: Executor, scope: PlatformScope, userId: string, at: Date): Promise<void> {
  await q
    .update(sessions)
    .set({ revokedAt: at })
    .where(and(eq(sessions.platformId, scope.platformId), eq(sessions.userId, userId), isNull(sessions.revokedAt)));
}

export async function setSessionCompanyContext(
  q: Executor,
  scope: PlatformScope,
  sessionId: string,
  companyId: string | null,
): Promise<void> {
  await q
    .update(sessions)
    .set({ companyContextId: companyId })
    .where(and(eq(sessions.platformId, scope.platformId), eq(sessions.id, sessionId)));
}

/** The user's sessions that are neither revoked nor expired, newest first (GET /me/sessions). */
export async function listLiveUserSessions(
  q: Executor,
  scope: PlatformScope,
  userId: string,
  now: Date,
): Promise<SessionRow[]> {
  return q
    .select()
    .from(sessions)
    .where(
      and(
        eq(sessions.platformId, scope.platformId),
        eq(sessions.userId, userId),
        isNull(sessions.revokedAt),
        gt(sessions.expiresAt, now),
      ),
    )
    .orderBy(desc(sessions.createdAt), desc(sessions.id));
}

/** Revokes one live session of the user; answers whether there was one (another user's id is not found). */
export async function revokeOwnSession(
  q: Executor,
  scope: PlatformScope,
  userId: string,
  sessionId: string,
  at: Date,
): Promise<boolean> {
  const rows = await q
    .update(sessions)
    .set({ revokedAt: at })
    .where(
      and(
        eq(sessions.platformId, scope.platformId),
        eq(sessions.userId, userId),
        eq(sessions.id, sessionId),
        isNull(sessions.revokedAt),
        gt(sessions.expiresAt, at),
      ),
    )
    .returning({ id: sessions.id });
  return rows.length > 0;
}

/** Revokes every live session of the user except `keepSessionId` (change-password keeps the caller's). */
export async function revokeOtherUserSessions(
  q: Executor,
  scope: PlatformScope,
  userId: string,
  keepSessionId: string,
  at: Date,
): Promise<number> {
  const rows = await q
    .update(sessions)
    .set({ revokedAt: at })
    .where(
      and(
        eq(sessions.platformId, scope.platformId),
        eq(sessions.userId, userId),
        ne(sessions.id, keepSessionId),
        isNull(sessions.revokedAt),
      ),
    )
    .returning({ id: sessions.id });
  return rows.length;
}

/** Moves lastSeenAt, only when it is older than `staleBefore` (at most one write a minute per session). */
export async function touchSessionLastSeen(
  q: Executor,
  scope: PlatformScope,
  sessionId: string,
  now: Date,
  staleBefore: Date,
): Promise<void> {
  await q
    .update(sessions)
    .set({ lastSeenAt: now })
    .where(
      and(
        eq(sessions.platformId, scope.platformId),
        eq(sessions.id, sessionId),
        or(isNull(sessions.lastSeenAt), lt(sessions.lastSeenAt, staleBefore)),
      ),
    );
}
