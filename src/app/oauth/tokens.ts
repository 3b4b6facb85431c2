import type { Executor } from '../../db/executor.ts';
import { lockOAuthCodeByDigest, markOAuthCodeUsed } from '../../db/repositories/oauth-codes.ts';
import {
  insertOAuthGrant,
  insertOAuthTokenPair,
  lockTokenPairByRefreshDigest,
  rotateTokenPair,
} from '../../db/repositories/oauth-grants.ts';
import { findUser } from '../../db/repositories/users.ts';
import { refreshVerdict } from '../../domain/lifecycle/index.ts';
import { ACCESS_TOKEN_TTL_MS, REFRESH_TOKEN_TTL_MS } from '../../domain/oauth/lifetimes.ts';
import { isCodeVerifier, verifierMatches } from '../../domain/oauth/pkce.ts';
import { formatScope, parseScope, type Scope } from '../../domain/oauth/scopes.ts';
import { randomSecret, sha256Hex } from '../../platform/secrets.ts';
import { recordEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import { liveClient } from './clients.ts';
import { invalidGrant, invalidRequest, OAuthError } from './oauth-error.ts';
import { revokeGrantIn } from './revoke-grant.ts';

/** The successful token response (RFC 6749 §5.1). */
export type TokenResponse = {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
};

/** Form parameters of POST /oauth/token, each sent at most once. */
export type TokenParams = Record<string, string | undefined>;

export const ACCESS_TOKEN_PREFIX = 'oat_';
export const REFRESH_TOKEN_PREFIX = 'ort_';
const REFRESH_FORMAT = /^ort_[0-9a-f]{64}$/;
const CODE_FORMAT = /^ocd_[0-9a-f]{64}$/;

function required(params: TokenParams, name: string): string {
  const value = params[name];
  if (value === undefined || value === '') throw invalidRequest(`${name} is required`);
  return value;
}

async function requireClient(ctx: AppContext, params: TokenParams) {
  const client = await liveClient(ctx, required(params, 'client_id'));
  if (!client) throw new OAuthError('invalid_client', 'client_id names no registered application');
  return client;
}

/** A new access and refresh token pair of a grant; only their digests are stored. */
async function issuePair(
  ctx: AppContext,
  tx: Executor,
  grant: { id: string; platformId: string },
  scopes: readonly Scope[],
): Promise<TokenResponse> {
  const now = ctx.clock.now();
  const access = randomSecret(ACCESS_TOKEN_PREFIX);
  const refresh = randomSecret(REFRESH_TOKEN_PREFIX);
  await insertOAuthTokenPair(tx, {
    id: ctx.ids.next('otk'),
    grantId: grant.id,
    platformId: grant.platformId,
    accessDigest: sha256Hex(access),
    refreshDigest: sha256Hex(refresh),
    scopes: [...scopes],
    status: 'active',
    createdAt: now,
    accessExpiresAt: new Date(now.getTime() + ACCESS_TOKEN_TTL_MS),
    refreshExpiresAt: new Date(now.getTime() + REFRESH_TOKEN_TTL_MS),
  });
  return {
    access_token: access,
    token_type: 'Bearer',
    expires_in: ACCESS_TOKEN_TTL_MS / 1000,
    refresh_token: refresh,
    scope: formatScope(scopes),
  };
}

/**
 * A failure that must still commit what it did (a replay revokes the grant): the transaction
 * returns it, and it is thrown once the revocation is committed.
 */
type Outcome = { ok: TokenResponse } | { fail: OAuthError };

async function settle(outcome: Promise<Outcome>): Promise<TokenResponse> {
  const result = await outcome;
  if ('fail' in result) throw result.fail;
  return result.ok;
}

/**
 * grant_type=authorization_code (RFC 6749 §4.1.3 with RFC 7636 §4.6): the code must be unused,
 * unexpired, the client's, sent with the redirect URI it was issued for and the PKCE verifier of
 * its challenge. It creates the grant (the token family) and its first pair. A code presented
 * again revokes the grant it created (RFC 6749 §4.1.2: "SHOULD revoke").
 */
export async function exchangeCode(ctx: AppContext, params: TokenParams): Promise<TokenResponse> {
  const code = required(params, 'code');
  const redirectUri = required(params, 'redirect_uri');
  const verifier = required(params, 'code_verifier');
  if (!isCodeVerifier(verifier)) throw invalidRequest('code_verifier must be 43 to 128 unreserved characters');
  const client = await requireClient(ctx, params);
  if (!CODE_FORMAT.test(code)) throw invalidGrant('the authorization code is invalid');
  return settle(
    ctx.db.transaction(async (tx): Promise<Outcome> => {
      const now = ctx.clock.now();
      const row = await lockOAuthCodeByDigest(tx, sha256Hex(code));
      if (!row || row.clientId !== client.id) return { fail: invalidGrant('the authorization code is invalid') };
      if (row.usedAt !== null) {
        if (row.grantId !== null) {
          await revokeGrantIn(ctx, tx, {
            platformId: row.platformId,
            grantId: row.grantId,
            clientId: row.clientId,
            reason: 'code-replay',
            actorUserId: null,
          });
        }
        return { fail: invalidGrant('the authorization code was already used; its grant is revoked') };
      }
      if (row.expiresAt.getTime() <= now.getTime()) return { fail: invalidGrant('the authorization code has expired') };
      if (row.redirectUri !== redirectUri) {
        return { fail: invalidGrant('redirect_uri differs from the one the code was issued for') };
      }
      if (!verifierMatches(verifier, row.codeChallenge)) {
        return { fail: invalidGrant('code_verifier does not match the code_challenge') };
      }
      const user = await findUser(tx, { platformId: row.platformId }, row.userId);
      if (user?.status !== 'active') return { fail: invalidGrant('the consenting user is no longer active') };
      const grantId = ctx.ids.next('ogr');
      await insertOAuthGrant(tx, {
        id: grantId,
        platformId: row.platformId,
        clientId: row.clientId,
        userId: row.userId,
        scopes: row.scopes,
        status: 'active',
        createdAt: now,
      });
      await markOAuthCodeUsed(tx, row.id, now, grantId);
      await recordEvent(ctx, tx, {
        platformId: row.platformId,
        type: 'oauth.grant.created',
        message: `OAuth grant ${grantId} created for client ${row.clientId}`,
        actorUserId: row.userId,
        metadata: { grantId, clientId: row.clientId, scope: row.scopes.join(' ') },
      });
      return { ok: await issuePair(ctx, tx, { id: grantId, platformId: row.platformId }, row.scopes as Scope[]) };
    }),
  );
}

/**
 * grant_type=refresh_token (RFC 6749 §6) with rotation on every use: the presented pair becomes
 * `rotated` and a new pair is issued. A rotated refresh token presented again means two parties hold
 * it: the whole grant is revoked (contract, OAuth rule 4) and the user must consent again. `scope`
 * may narrow the new pair within the grant.
 */
export async function refreshTokens(ctx: AppContext, params: TokenParams): Promise<TokenResponse> {
  const refresh = required(params, 'refresh_token');
  const client = await requireClient(ctx, params);
  if (!REFRESH_FORMAT.test(refresh)) throw invalidGrant('the refresh token is invalid');
  return settle(
    ctx.db.transaction(async (tx): Promise<Outcome> => {
      const now = ctx.clock.now();
      const found = await lockTokenPairByRefreshDigest(tx, sha256Hex(refresh));
      if (!found) return { fail: invalidGrant('the refresh token is invalid') };
      const { pair, grant } = found;
      const verdict = refreshVerdict(pair.status);
      if (verdict === 'replay') {
        await revokeGrantIn(ctx, tx, {
          platformId: grant.platformId,
          grantId: grant.id,
          clientId: grant.clientId,
          reason: 'refresh-replay',
          actorUserId: null,
        });
        return { fail: invalidGrant('the refresh token was already used; the grant is revoked, consent again') };
      }
      if (verdict === 'dead' || grant.status !== 'active')
        return { fail: invalidGrant('the refresh token is revoked') };
      if (grant.clientId !== client.id) return { fail: invalidGrant('the refresh token was issued to another client') };
      if (pair.refreshExpiresAt.getTime() <= now.getTime())
        return { fail: invalidGrant('the refresh token has expired') };
      const user = await findUser(tx, { platformId: grant.platformId }, grant.userId);
      if (user?.status !== 'active') return { fail: invalidGrant('the consenting user is no longer active') };
      let scopes = grant.scopes as Scope[];
      if (params['scope'] !== undefined) {
        const asked = parseScope(params['scope']);
        if (!asked.ok) return { fail: new OAuthError('invalid_scope', asked.reason) };
        const extra = asked.scopes.find((s) => !grant.scopes.includes(s));
        if (extra !== undefined) return { fail: new OAuthError('invalid_scope', `${extra} was not granted`) };
        scopes = asked.scopes;
      }
      if (!(await rotateTokenPair(tx, pair.id, now))) return { fail: invalidGrant('the refresh token is revoked') };
      return { ok: await issuePair(ctx, tx, grant, scopes) };
    }),
  );
}

/** POST /oauth/token: the grant types this server supports, as metadata advertises them. */
export const GRANT_TYPES = ['authorization_code', 'refresh_token'] as const;

export async function token(ctx: AppContext, params: TokenParams): Promise<TokenResponse> {
  const grantType = params['grant_type'];
  if (grantType === undefined || grantType === '') throw invalidRequest('grant_type is required');
  if (grantType === 'authorization_code') return exchangeCode(ctx, params);
  if (grantType === 'refresh_token') return refreshTokens(ctx, params);
  throw new OAuthError('unsupported_grant_type', `grant_type ${JSON.stringify(grantType)} is not supported`);
}
