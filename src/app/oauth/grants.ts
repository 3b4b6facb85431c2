import { findOAuthGrant, listActiveOAuthGrants } from '../../db/repositories/oauth-grants.ts';
import type { AppContext } from '../context.ts';
import { notFound } from '../errors.ts';
import { requireSession } from '../identity/access.ts';
import type { Principal } from '../identity/principal.ts';
import { decodeCursor, page } from '../pagination.ts';
import { revokeGrantIn } from './revoke-grant.ts';

export type GrantView = {
  id: string;
  clientId: string;
  clientName: string;
  userId: string;
  scopes: string[];
  createdAt: string;
  lastUsedAt: string | null;
};

/**
 * GET /oauth/grants: the active grants of the signed-in user; a workspace admin sees every grant of
 * the platform (DESIGN.md), newest first.
 */
export async function listGrants(ctx: AppContext, principal: Principal, cursor: string | undefined, limit = 100) {
  const session = requireSession(principal);
  const filter = session.user.workspaceAdmin ? {} : { userId: session.user.id };
  const rows = await listActiveOAuthGrants(
    ctx.db,
    { platformId: session.platformId },
    filter,
    decodeCursor(cursor),
    limit + 1,
  );
  const result = page(rows, limit);
  return {
    items: result.items.map(
      (g): GrantView => ({
        id: g.id,
        clientId: g.clientId,
        clientName: g.clientName,
        userId: g.userId,
        scopes: g.scopes,
        createdAt: g.createdAt.toISOString(),
        lastUsedAt: g.lastUsedAt?.toISOString() ?? null,
      }),
    ),
    nextCursor: result.nextCursor,
  };
}

/**
 * DELETE /oauth/grants/{id}: revokes the grant and every token of it. Its own user or a workspace
 * admin of the platform may; to anyone else (and for a grant already revoked) it does not exist.
 */
export async function deleteGrant(ctx: AppContext, principal: Principal, grantId: string) {
  const session = requireSession(principal);
  const scope = { platformId: session.platformId };
  return ctx.db.transaction(async (tx) => {
    const grant = await findOAuthGrant(tx, scope, grantId);
    const own = grant?.userId === session.user.id;
    if (grant?.status !== 'active' || !(own || session.user.workspaceAdmin)) throw notFound('grant');
    const revoked = await revokeGrantIn(ctx, tx, {
      platformId: grant.platformId,
      grantId: grant.id,
      clientId: grant.clientId,
      reason: own ? 'user' : 'admin',
      actorUserId: session.user.id,
    });
    if (!revoked) throw notFound('grant');
    return { id: grant.id, revoked: true };
  });
}
