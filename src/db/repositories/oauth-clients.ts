import { and, asc, eq, gt, isNull } from 'drizzle-orm';
import type { Executor, PlatformScope } from '../executor.ts';
import { oauthClients } from '../schema/index.ts';

export type OAuthClientRow = typeof oauthClients.$inferSelect;

export async function insertOAuthClient(q: Executor, row: typeof oauthClients.$inferInsert): Promise<OAuthClientRow> {
  const [created] = await q.insert(oauthClients).values(row).returning();
  return created!;
}

/**
 * Client lookup for /oauth/authorize and /oauth/token: the client id is all an application sends, so
 * this is where its platform becomes known (like a credential lookup). Deleted clients are not found.
 */
export async function findLiveOAuthClient(q: Executor, clientId: string): Promise<OAuthClientRow | undefined> {
  const rows = await q
    .select()
    .from(oauthClients)
    .where(and(eq(oauthClients.id, clientId), isNull(oauthClients.deletedAt)))
    .limit(1);
  return rows[0];
}

export async function listLiveOAuthClients(
  q: Executor,
  scope: PlatformScope,
  after: string | undefined,
  limit: number,
): Promise<OAuthClientRow[]> {
  return q
    .select()
    .from(oauthClients)
    .where(
      and(
        eq(oauthClients.platformId, scope.platformId),
        isNull(oauthClients.deletedAt),
        after ? gt(oauthClients.id, after) : undefined,
      ),
    )
    .orderBy(asc(oauthClients.id))
    .limit(limit);
}

/** Marks a live client deleted; false when the platform has no such live client. */
export async function markOAuthClientDeleted(
  q: Executor,
  scope: PlatformScope,
  clientId: string,
  at: Date,
): Promise<boolean> {
  const rows = await q
    .update(oauthClients)
    .set({ deletedAt: at })
    .where(
      and(eq(oauthClients.platformId, scope.platformId), eq(oauthClients.id, clientId), isNull(oauthClients.deletedAt)),
    )
    .returning({ id: oauthClients.id });
  return rows.length > 0;
}
