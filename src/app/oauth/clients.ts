import {
  findLiveOAuthClient,
  insertOAuthClient,
  listLiveOAuthClients,
  markOAuthClientDeleted,
  type OAuthClientRow,
} from '../../db/repositories/oauth-clients.ts';
import { activeGrantIdsOfClient } from '../../db/repositories/oauth-grants.ts';
import { checkRedirectUri } from '../../domain/oauth/redirect-uri.ts';
import { recordEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import { badRequest, notFound } from '../errors.ts';
import { requireWorkspaceAdmin } from '../identity/access.ts';
import type { Principal } from '../identity/principal.ts';
import { decodeCursor, page } from '../pagination.ts';
import { plainText } from '../plain-text.ts';
import { revokeGrantIn } from './revoke-grant.ts';

/** At most this many redirect URIs per client: one per port an application may listen on. */
export const MAX_REDIRECT_URIS = 10;

export type ClientView = { clientId: string; name: string; redirectUris: string[]; createdAt: string };

function clientView(row: OAuthClientRow): ClientView {
  return { clientId: row.id, name: row.name, redirectUris: row.redirectUris, createdAt: row.createdAt.toISOString() };
}

/** POST /platforms/{platformId}/oauth-clients: a workspace admin registers an installed application. */
export async function registerClient(
  ctx: AppContext,
  principal: Principal,
  platformId: string,
  input: { name: string; redirectUris: string[] },
): Promise<ClientView> {
  const session = requireWorkspaceAdmin(principal, platformId);
  const name = plainText(input.name, 'name');
  if (input.redirectUris.length === 0 || input.redirectUris.length > MAX_REDIRECT_URIS) {
    throw badRequest(`redirectUris must hold 1 to ${MAX_REDIRECT_URIS} URIs`, { field: 'redirectUris' });
  }
  for (const [index, uri] of input.redirectUris.entries()) {
    const check = checkRedirectUri(uri);
    if (!check.ok) {
      throw badRequest(`redirectUris[${index}] ${check.reason}`, { field: `redirectUris[${index}]`, value: uri });
    }
  }
  if (new Set(input.redirectUris).size !== input.redirectUris.length) {
    throw badRequest('redirectUris holds the same URI twice', { field: 'redirectUris' });
  }
  return ctx.db.transaction(async (tx) => {
    const row = await insertOAuthClient(tx, {
      id: ctx.ids.next('oac'),
      platformId,
      name,
      redirectUris: input.redirectUris,
      createdByUserId: session.user.id,
      createdAt: ctx.clock.now(),
    });
    await recordEvent(ctx, tx, {
      platformId,
      type: 'oauth.client.registered',
      message: `OAuth client ${row.id} (${name}) registered`,
      actorUserId: session.user.id,
      metadata: { clientId: row.id, name, redirectUris: row.redirectUris },
    });
    return clientView(row);
  });
}

export async function listClients(
  ctx: AppContext,
  principal: Principal,
  platformId: string,
  cursor: string | undefined,
  limit = 100,
) {
  requireWorkspaceAdmin(principal, platformId);
  const rows = await listLiveOAuthClients(ctx.db, { platformId }, decodeCursor(cursor), limit + 1);
  const result = page(rows, limit);
  return { items: result.items.map(clientView), nextCursor: result.nextCursor };
}

/** DELETE /platforms/{platformId}/oauth-clients/{clientId}: the client goes, every grant of it is revoked. */
export async function deleteClient(ctx: AppContext, principal: Principal, platformId: string, clientId: string) {
  const session = requireWorkspaceAdmin(principal, platformId);
  return ctx.db.transaction(async (tx) => {
    const now = ctx.clock.now();
    if (!(await markOAuthClientDeleted(tx, { platformId }, clientId, now))) throw notFound('OAuth client');
    const grantIds = await activeGrantIdsOfClient(tx, { platformId }, clientId);
    for (const grantId of grantIds) {
      await revokeGrantIn(ctx, tx, {
        platformId,
        grantId,
        clientId,
        reason: 'client-deleted',
        actorUserId: session.user.id,
      });
    }
    await recordEvent(ctx, tx, {
      platformId,
      type: 'oauth.client.deleted',
      message: `OAuth client ${clientId} deleted; ${grantIds.length} grant(s) revoked`,
      actorUserId: session.user.id,
      metadata: { clientId, revokedGrants: grantIds },
    });
    return { clientId, deleted: true, revokedGrants: grantIds.length };
  });
}

/** The live client an application names (authorize, token): undefined when unknown or deleted. */
export async function liveClient(ctx: AppContext, clientId: string): Promise<OAuthClientRow | undefined> {
  // Ids are short; anything longer is not one of ours and costs no lookup.
  if (clientId === '' || clientId.length > 64) return undefined;
  return findLiveOAuthClient(ctx.db, clientId);
}
