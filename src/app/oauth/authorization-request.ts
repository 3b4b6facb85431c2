import type { OAuthClientRow } from '../../db/repositories/oauth-clients.ts';
import { isCodeChallenge, PKCE_METHODS } from '../../domain/oauth/pkce.ts';
import { parseScope, type Scope } from '../../domain/oauth/scopes.ts';
import type { AppContext } from '../context.ts';
import { liveClient } from './clients.ts';

/** The parameters of an authorization request (RFC 6749 §4.1.1, RFC 7636 §4.3), as sent. */
export type AuthorizationParams = {
  responseType: string | undefined;
  clientId: string | undefined;
  redirectUri: string | undefined;
  scope: string | undefined;
  state: string | undefined;
  codeChallenge: string | undefined;
  codeChallengeMethod: string | undefined;
};

/** A request every check passed: what the consent page shows and a decision acts on. */
export type AuthorizationRequest = {
  client: OAuthClientRow;
  redirectUri: string;
  scopes: Scope[];
  state: string | undefined;
  codeChallenge: string;
};

export type RedirectError = 'invalid_request' | 'unsupported_response_type' | 'invalid_scope' | 'access_denied';

/**
 * What a request amounts to. `untrusted`: the client or the redirect URI cannot be trusted, so the
 * answer is a page and never a redirect (RFC 6749 §4.1.2.1). `redirect-error`: the application
 * is told through its redirect URI. `valid`: ready for consent.
 */
export type AuthorizationCheck =
  | { kind: 'untrusted'; reason: string }
  | {
      kind: 'redirect-error';
      redirectUri: string;
      state: string | undefined;
      error: RedirectError;
      description: string;
    }
  | { kind: 'valid'; request: AuthorizationRequest };

const MAX_STATE_LENGTH = 1024;

export async function checkAuthorizationRequest(
  ctx: AppContext,
  params: AuthorizationParams,
): Promise<AuthorizationCheck> {
  if (!params.clientId) return { kind: 'untrusted', reason: 'client_id is missing' };
  const client = await liveClient(ctx, params.clientId);
  if (!client) return { kind: 'untrusted', reason: 'client_id names no registered application' };
  if (!params.redirectUri) return { kind: 'untrusted', reason: 'redirect_uri is missing' };
  // Exact, character for character (contract, OAuth rule 1): no prefix or pattern matching.
  if (!client.redirectUris.includes(params.redirectUri)) {
    return { kind: 'untrusted', reason: 'redirect_uri is not registered for this application' };
  }
  const redirectUri = params.redirectUri;
  const state = params.state;
  const fail = (error: RedirectError, description: string): AuthorizationCheck => ({
    kind: 'redirect-error',
    redirectUri,
    // A state too long to echo is not echoed.
    state: state !== undefined && state.length <= MAX_STATE_LENGTH ? state : undefined,
    error,
    description,
  });
  if (state !== undefined && state.length > MAX_STATE_LENGTH) {
    return fail('invalid_request', `state is longer than ${MAX_STATE_LENGTH} characters`);
  }
  if (params.responseType === undefined) return fail('invalid_request', 'response_type is missing');
  if (params.responseType !== 'code') return fail('unsupported_response_type', 'only response_type=code is supported');
  if (params.codeChallenge === undefined) return fail('invalid_request', 'code_challenge is required (PKCE)');
  if (
    params.codeChallengeMethod === undefined ||
    !(PKCE_METHODS as readonly string[]).includes(params.codeChallengeMethod)
  ) {
    return fail('invalid_request', 'code_challenge_method must be S256');
  }
  if (!isCodeChallenge(params.codeChallenge)) {
    return fail('invalid_request', 'code_challenge must be 43 base64url characters (the S256 of the verifier)');
  }
  const scope = parseScope(params.scope);
  if (!scope.ok) return fail('invalid_scope', scope.reason);
  return {
    kind: 'valid',
    request: { client, redirectUri, scopes: scope.scopes, state, codeChallenge: params.codeChallenge },
  };
}

/**
 * The URI the browser is sent back to: the registered redirect URI with the answer's parameters,
 * `state` echoed and `iss` naming this server (RFC 9207, against mix-up attacks).
 */
export function redirectTo(
  redirectUri: string,
  issuer: string,
  answer: Record<string, string>,
  state: string | undefined,
): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(answer)) url.searchParams.set(name, value);
  if (state !== undefined) url.searchParams.set('state', state);
  url.searchParams.set('iss', issuer);
  return url.toString();
}

export function errorRedirect(check: Extract<AuthorizationCheck, { kind: 'redirect-error' }>, issuer: string): string {
  return redirectTo(
    check.redirectUri,
    issuer,
    { error: check.error, error_description: check.description },
    check.state,
  );
}
