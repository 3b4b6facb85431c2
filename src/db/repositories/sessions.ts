import { and, eq, gt, isNull } from 'drizzle-orm';
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
