import { findTokenPairByDigest } from '../../db/repositories/oauth-grants.ts';
import { sha256Hex } from '../../platform/secrets.ts';
import type { AppContext } from '../context.ts';
import { invalidRequest } from './oauth-error.ts';
import { revokeGrantIn } from './revoke-grant.ts';

const TOKEN_FORMAT = /^(oat|ort)_[0-9a-f]{64}$/;

/**
 * POST /oauth/revoke (RFC 7009). Answers 200 whatever the token was (unknown, expired, already
 * revoked), so it tells nobody which tokens exist. Either token of a pair revokes its whole grant:
 * the refresh token must take its access tokens with it (§2.1), and an application revoking its
 * access token is signing out. A `client_id` that is not the token's client revokes nothing.
 * Only a request without a token is refused (400 invalid_request).
 */
export async function revokeToken(ctx: AppContext, params: Record<string, string | undefined>): Promise<void> {
  const token = params['token'];
  if (token === undefined || token === '') throw invalidRequest('token is required');
  if (!TOKEN_FORMAT.test(token)) return;
  const pair = await findTokenPairByDigest(ctx.db, sha256Hex(token));
  if (!pair) return;
  const clientId = params['client_id'];
  if (clientId !== undefined && clientId !== pair.clientId) return;
  await ctx.db.transaction((tx) => revokeGrantIn(ctx, tx, { ...pair, reason: 'token-revoked', actorUserId: null }));
}
