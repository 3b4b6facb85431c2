import { and, asc, eq, gt, isNull, lt, or } from 'drizzle-orm';
import type { Executor, PlatformScope } from '../executor.ts';
import { apiKeys } from '../schema/index.ts';

export type ApiKeyRow = typeof apiKeys.$inferSelect;

export async function insertApiKey(q: Executor, row: typeof apiKeys.$inferInsert): Promise<ApiKeyRow> {
  const [created] = await q.insert(apiKeys).values(row).returning();
  return created!;
}

/** Credential lookup: the digest identifies the key and, through it, the platform. */
export async function findActiveApiKeyByDigest(q: Executor, digest: string): Promise<ApiKeyRow | undefined> {
  const rows = await q
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.digest, digest), isNull(apiKeys.revokedAt)))
    .limit(1);
  return rows[0];
}

export async function listActiveApiKeys(
  q: Executor,
  scope: PlatformScope,
  after: string | undefined,
  limit: number,
): Promise<ApiKeyRow[]> {
  return q
    .select()
    .from(apiKeys)
    .where(
      and(
        eq(apiKeys.platformId, scope.platformId),
        isNull(apiKeys.revokedAt),
        after ? gt(apiKeys.id, after) : undefined,
      ),
    )
    .orderBy(asc(apiKeys.id))
    .limit(limit);
}

/** Soft revoke; answers whether a live key of the platform was revoked. */
export async function revokeApiKey(q: Executor, scope: PlatformScope, keyId: string, at: Date): Promise<boolean> {
  const rows = await q
    .update(apiKeys)
    .set({ revokedAt: at })
    .where(and(eq(apiKeys.platformId, scope.platformId), eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  return rows.length > 0;
}

/** Moves lastUsedAt forward only when it is older than `staleBefore`, so most uses write nothing. */
export async function touchApiKeyLastUsed(q: Executor, keyId: string, at: Date, staleBefore: Date): Promise<void> {
  await q
    .update(apiKeys)
    .set({ lastUsedAt: at })
    .where(and(eq(apiKeys.id, keyId), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, staleBefore))));
}
