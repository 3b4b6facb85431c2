import { findLiveAccessToken, touchOAuthGrantLastUsed } from '../../db/repositories/oauth-grants.ts';
import { isScope, type Scope } from '../../domain/oauth/scopes.ts';
import { sha256Hex } from '../../platform/secrets.ts';
import type { AppContext } from '../context.ts';
import type { TokenPrincipal } from '../identity/principal.ts';

const ACCESS_TOKEN_FORMAT = /^oat_[0-9a-f]{64}$/;
// A grant's lastUsedAt moves at most once a minute: most requests write nothing.
const TOUCH_INTERVAL_MS = 60_000;

/**
 * A Bearer access token: looked up by its digest with its grant, client and user in one statement
 * (so the user's roles are those of now), never cached, so a revocation holds from the next request.
 */
export async function authenticateBearer(ctx: AppContext, raw: string): Promise<TokenPrincipal | null> {
  if (!ACCESS_TOKEN_FORMAT.test(raw)) return null;
  const now = ctx.clock.now();
  const live = await findLiveAccessToken(ctx.db, sha256Hex(raw), now);
  if (!live) return null;
  const staleBefore = new Date(now.getTime() - TOUCH_INTERVAL_MS);
  if (live.grantLastUsedAt === null || live.grantLastUsedAt < staleBefore) {
    touchOAuthGrantLastUsed(ctx.db, live.grantId, now, staleBefore).catch((err: unknown) =>
      ctx.logger.warn({ err }, 'could not record grant use'),
    );
  }
  return {
    kind: 'token',
    platformId: live.platformId,
    grantId: live.grantId,
    clientId: live.clientId,
    scopes: live.scopes.filter(isScope) as Scope[],
    user: { id: live.userId, workspaceAdmin: live.workspaceAdmin, companyId: live.companyId, roles: live.roles },
  };
}
