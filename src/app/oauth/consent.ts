import { findCompany } from '../../db/repositories/companies.ts';
import { insertOAuthCode } from '../../db/repositories/oauth-codes.ts';
import { AUTHORIZATION_CODE_TTL_MS } from '../../domain/oauth/lifetimes.ts';
import { formatScope, SCOPE_DESCRIPTIONS, type Scope } from '../../domain/oauth/scopes.ts';
import { randomSecret, sha256Hex } from '../../platform/secrets.ts';
import { recordEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import { AppError, forbidden } from '../errors.ts';
import { mayConsent } from '../identity/access.ts';
import type { SessionPrincipal } from '../identity/principal.ts';
import { type AuthorizationRequest, redirectTo } from './authorization-request.ts';

export type Decision = 'approve' | 'deny';

/** What the consent page shows the admin before they decide. */
export type ConsentView = {
  clientName: string;
  redirectUri: string;
  scopes: { scope: Scope; description: string }[];
  userEmail: string;
  /** The companies a token of this grant would reach, as the page words it. */
  reach: string;
};

export function requireConsentingAdmin(session: SessionPrincipal): void {
  if (!mayConsent(session.user)) {
    throw new AppError('forbidden', 'only a company admin or a workspace admin may approve an application');
  }
}

export async function consentView(
  ctx: AppContext,
  session: SessionPrincipal,
  request: AuthorizationRequest,
): Promise<ConsentView> {
  let reach = 'every company of your workspace that you administer';
  if (session.user.workspaceAdmin) reach = 'every company of your workspace';
  else if (session.user.companyId !== null) {
    const company = await findCompany(ctx.db, { platformId: session.platformId }, session.user.companyId);
    reach = company ? `the company ${company.name}` : reach;
  }
  return {
    clientName: request.client.name,
    redirectUri: request.redirectUri,
    scopes: request.scopes.map((scope) => ({ scope, description: SCOPE_DESCRIPTIONS[scope] })),
    userEmail: session.user.email,
    reach,
  };
}

/**
 * The admin's decision on a valid authorization request: approve issues a single-use code (stored
 * as its digest, valid 10 minutes) bound to the client, the redirect URI, the scopes and the PKCE
 * challenge; deny sends `access_denied`. Either way the answer is where to send the browser.
 */
export async function decideConsent(
  ctx: AppContext,
  session: SessionPrincipal,
  request: AuthorizationRequest,
  decision: Decision,
): Promise<string> {
  // The client is the platform's own: a user of another platform may not answer for it.
  if (request.client.platformId !== session.platformId)
    throw forbidden('this application belongs to another workspace');
  const issuer = ctx.config.publicBaseUrl;
  const about = { clientId: request.client.id, scope: formatScope(request.scopes), redirectUri: request.redirectUri };
  if (decision === 'deny') {
    await recordEvent(ctx, ctx.db, {
      platformId: session.platformId,
      type: 'oauth.consent.denied',
      message: `${session.user.email} denied ${request.client.name} (${request.client.id})`,
      actorUserId: session.user.id,
      metadata: about,
    });
    return redirectTo(
      request.redirectUri,
      issuer,
      { error: 'access_denied', error_description: 'the admin denied the request' },
      request.state,
    );
  }
  // Anyone signed in may send the application away empty-handed; only an admin may approve.
  requireConsentingAdmin(session);
  const code = randomSecret('ocd_');
  const now = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    const codeId = ctx.ids.next('ocd');
    await insertOAuthCode(tx, {
      id: codeId,
      digest: sha256Hex(code),
      platformId: session.platformId,
      clientId: request.client.id,
      userId: session.user.id,
      scopes: request.scopes,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      createdAt: now,
      expiresAt: new Date(now.getTime() + AUTHORIZATION_CODE_TTL_MS),
    });
    await recordEvent(ctx, tx, {
      platformId: session.platformId,
      type: 'oauth.consent.approved',
      message: `${session.user.email} approved ${request.client.name} (${request.client.id}) for ${about.scope}`,
      actorUserId: session.user.id,
      metadata: { ...about, codeId },
    });
  });
  return redirectTo(request.redirectUri, issuer, { code }, request.state);
}
