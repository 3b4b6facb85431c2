import { and, desc, eq, gt, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import {
  grantTransition,
  mustMove,
  statusesMovingTo,
  TOKEN_PAIR_STATUSES,
  tokenPairTransition,
} from '../../domain/lifecycle/index.ts';
import type { Executor, PlatformScope } from '../executor.ts';
import { oauthClients, oauthGrants, oauthTokens, users } from '../schema/index.ts';

export type OAuthGrantRow = typeof oauthGrants.$inferSelect;
export type OAuthTokenRow = typeof oauthTokens.$inferSelect;

export async function insertOAuthGrant(q: Executor, row: typeof oauthGrants.$inferInsert): Promise<void> {
  await q.insert(oauthGrants).values(row);
}

export async function insertOAuthTokenPair(q: Executor, row: typeof oauthTokens.$inferInsert): Promise<void> {
  await q.insert(oauthTokens).values(row);
}

export async function findOAuthGrant(
  q: Executor,
  scope: PlatformScope,
  grantId: string,
): Promise<OAuthGrantRow | undefined> {
  const rows = await q
    .select()
    .from(oauthGrants)
    .where(and(eq(oauthGrants.platformId, scope.platformId), eq(oauthGrants.id, grantId)))
    .limit(1);
  return rows[0];
}

/** What a Bearer request needs to know about its token, its grant and the consenting user. */
export type LiveAccessToken = {
  tokenId: string;
  scopes: string[];
  grantId: string;
  clientId: string;
  platformId: string;
  grantLastUsedAt: Date | null;
  userId: string;
  workspaceAdmin: boolean;
  companyId: string | null;
  roles: string[];
};

/**
 * Credential lookup of a Bearer token by its digest: live only while the pair is active and unexpired,
 * its grant active, its client not deleted and its user active, all read in this one statement so a
 * revocation anywhere takes effect on the next request.
 */
export async function findLiveAccessToken(
  q: Executor,
  digest: string,
  now: Date,
): Promise<LiveAccessToken | undefined> {
  const rows = await q
    .select({
      tokenId: oauthTokens.id,
      scopes: oauthTokens.scopes,
      grantId: oauthGrants.id,
      clientId: oauthGrants.clientId,
      platformId: oauthGrants.platformId,
      grantLastUsedAt: oauthGrants.lastUsedAt,
      userId: users.id,
      workspaceAdmin: users.workspaceAdmin,
      companyId: users.companyId,
      roles: users.roles,
    })
    .from(oauthTokens)
    .innerJoin(oauthGrants, eq(oauthGrants.id, oauthTokens.grantId))
    .innerJoin(oauthClients, eq(oauthClients.id, oauthGrants.clientId))
    .innerJoin(users, and(eq(users.id, oauthGrants.userId), eq(users.platformId, oauthGrants.platformId)))
    .where(
      and(
        eq(oauthTokens.accessDigest, digest),
        eq(oauthTokens.status, 'active'),
        gt(oauthTokens.accessExpiresAt, now),
        eq(oauthGrants.status, 'active'),
        isNull(oauthClients.deletedAt),
        eq(users.status, 'active'),
      ),
    )
    .limit(1);
  return rows[0];
}

/** A refresh token's pair and grant, the pair locked: two refreshes of one token are serialised. */
export async function lockTokenPairByRefreshDigest(
  q: Executor,
  digest: string,
): Promise<{ pair: OAuthTokenRow; grant: OAuthGrantRow } | undefined> {
  const rows = await q
    .select({ pair: oauthTokens, grant: oauthGrants })
    .from(oauthTokens)
    .innerJoin(oauthGrants, eq(oauthGrants.id, oauthTokens.grantId))
    .where(eq(oauthTokens.refreshDigest, digest))
    .limit(1)
    .for('update', { of: oauthTokens });
  return rows[0];
}

/** The pair holding an access or refresh token with this digest (revocation takes either). */
export async function findTokenPairByDigest(
  q: Executor,
  digest: string,
): Promise<{ grantId: string; platformId: string; clientId: string } | undefined> {
  const rows = await q
    .select({ grantId: oauthGrants.id, platformId: oauthGrants.platformId, clientId: oauthGrants.clientId })
    .from(oauthTokens)
    .innerJoin(oauthGrants, eq(oauthGrants.id, oauthTokens.grantId))
    .where(or(eq(oauthTokens.accessDigest, digest), eq(oauthTokens.refreshDigest, digest)))
    .limit(1);
  return rows[0];
}

/** The statuses a pair may still be revoked from (not revoked already). */
const REVOCABLE_PAIRS = statusesMovingTo(TOKEN_PAIR_STATUSES, tokenPairTransition, 'revoked').filter(
  (s) => s !== 'revoked',
);

/** active -> rotated (src/domain/lifecycle/oauth.ts); false when the pair was not active. */
export async function rotateTokenPair(q: Executor, pairId: string, at: Date): Promise<boolean> {
  const rows = await q
    .update(oauthTokens)
    .set({ status: mustMove(tokenPairTransition, 'active', 'rotated'), endedAt: at })
    .where(and(eq(oauthTokens.id, pairId), eq(oauthTokens.status, 'active')))
    .returning({ id: oauthTokens.id });
  return rows.length > 0;
}

/**
 * active -> revoked for the grant and every pair of it (the whole family); false when the grant was
 * not active. Rotated pairs keep the time they were rotated.
 */
export async function revokeOAuthGrant(
  q: Executor,
  scope: PlatformScope,
  grantId: string,
  reason: OAuthGrantRow['revokedReason'] & string,
  at: Date,
): Promise<boolean> {
  const rows = await q
    .update(oauthGrants)
    .set({ status: mustMove(grantTransition, 'active', 'revoked'), revokedReason: reason, revokedAt: at })
    .where(
      and(eq(oauthGrants.platformId, scope.platformId), eq(oauthGrants.id, grantId), eq(oauthGrants.status, 'active')),
    )
    .returning({ id: oauthGrants.id });
  await q
    .update(oauthTokens)
    .set({ status: 'revoked', endedAt: sql`coalesce(${oauthTokens.endedAt}, ${at})` })
    .where(
      and(
        eq(oauthTokens.platformId, scope.platformId),
        eq(oauthTokens.grantId, grantId),
        inArray(oauthTokens.status, REVOCABLE_PAIRS),
      ),
    );
  return rows.length > 0;
}

/** The ids of a client's active grants (to revoke each, with its audit event, when the client goes). */
export async function activeGrantIdsOfClient(q: Executor, scope: PlatformScope, clientId: string): Promise<string[]> {
  const rows = await q
    .select({ id: oauthGrants.id })
    .from(oauthGrants)
    .where(
      and(
        eq(oauthGrants.platformId, scope.platformId),
        eq(oauthGrants.clientId, clientId),
        eq(oauthGrants.status, 'active'),
      ),
    )
    .for('update');
  return rows.map((r) => r.id);
}

export type GrantListRow = OAuthGrantRow & { clientName: string };

/** Active grants of the platform, newest first; only `userId`'s when given. */
export async function listActiveOAuthGrants(
  q: Executor,
  scope: PlatformScope,
  filter: { userId?: string },
  before: string | undefined,
  limit: number,
): Promise<GrantListRow[]> {
  const rows = await q
    .select({ grant: oauthGrants, clientName: oauthClients.name })
    .from(oauthGrants)
    .innerJoin(oauthClients, eq(oauthClients.id, oauthGrants.clientId))
    .where(
      and(
        eq(oauthGrants.platformId, scope.platformId),
        eq(oauthGrants.status, 'active'),
        filter.userId !== undefined ? eq(oauthGrants.userId, filter.userId) : undefined,
        before ? lt(oauthGrants.id, before) : undefined,
      ),
    )
    .orderBy(desc(oauthGrants.id))
    .limit(limit);
  return rows.map((r) => ({ ...r.grant, clientName: r.clientName }));
}

/** lastUsedAt moves at most once a minute per grant, and only forward. */
export async function touchOAuthGrantLastUsed(
  q: Executor,
  grantId: string,
  at: Date,
  staleBefore: Date,
): Promise<void> {
  await q
    .update(oauthGrants)
    .set({ lastUsedAt: at })
    .where(
      and(eq(oauthGrants.id, grantId), or(isNull(oauthGrants.lastUsedAt), lt(oauthGrants.lastUsedAt, staleBefore))),
    );
}
