import { and, asc, eq, gt, isNull, lt, or, sql } from 'drizzle-orm';
import type { Db } from '../client.ts';
import type { Executor, PlatformScope } from '../executor.ts';
import { apiKeys } from '../schema/index.ts';

export type ApiKeyRow = typeof apiKeys.$inferSelect;

export async function insertApiKey(q: Executor, row: typeof apiKeys.$inferInsert): Promise<ApiKeyRow> {
  const [created] = await q.insert(apiKeys).values(row).returning();
  return created!;
}

/**
 * Credential lookup: the digest identifies the key and, through it, the platform. A named statement
 * (parsed and planned once per connection): it runs on every API-key request.
 */
export async function findActiveApiKeyByDigest(
  db: Db,
  digest: string,
): Promise<{ id: string; platformId: string } | undefined> {
  const result = await db.$client.query<{ id: string; platform_id: string }>({
    name: 'find_active_api_key',
    text: 'SELECT id, platform_id FROM api_keys WHERE digest = $1 AND revoked_at IS NULL LIMIT 1',
    values: [digest],
  });
  const row = result.rows[0];
  return row ? { id: row.id, platformId: row.platform_id } : undefined;
}

/**
 * Whether a key is still active: confirms a key taken from the process's recent keys, and is checked
 * inside a production submit's transaction before it journals.
 */
export async function isApiKeyActive(q: Executor, platformId: string, keyId: string): Promise<boolean> {
  const result = await q.execute<{ active: boolean }>(
    sql`SELECT EXISTS (SELECT 1 FROM api_keys WHERE id = ${keyId} AND platform_id = ${platformId} AND revoked_at IS NULL) AS active`,
  );
  return result.rows[0]?.active === true;
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

/**
 * Whether PostgreSQL's notification queue is empty: a NOTIFY stays queued until every listening
 * session has read it, so after a revocation's commit an empty queue means every API process's
 * listener has been sent it (docs/adr/0049). Any other notification in flight keeps it non-empty.
 */
export async function notificationsDelivered(q: Executor): Promise<boolean> {
  const rows = await q.execute<{ empty: boolean }>(sql`SELECT pg_notification_queue_usage() = 0 AS empty`);
  return rows.rows[0]?.empty === true;
}
