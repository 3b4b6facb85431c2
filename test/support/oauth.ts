/**
 * OAuth helpers for tests: PKCE pairs, client registration, programmatic consent (the JSON decision
 * with X-Session-Token) and the code exchange, all through the real routes.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import type { TestApp } from '../harness.ts';

export type Pkce = { verifier: string; challenge: string };

export function pkcePair(): Pkce {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export type Admin = { platformId: string; sessionToken: string };

export async function registerClient(t: TestApp, admin: Admin, redirectUris: string[], name = 'ERP connector') {
  const res = await t.request({
    method: 'POST',
    url: `/platforms/${admin.platformId}/oauth-clients`,
    headers: { 'x-session-token': admin.sessionToken },
    payload: { name, redirectUris },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json() as { clientId: string; name: string; redirectUris: string[]; createdAt: string };
}

export type ConsentInput = {
  clientId: string;
  redirectUri: string;
  scope: string;
  pkce: Pkce;
  state?: string;
  decision?: 'approve' | 'deny';
};

/** The programmatic consent: answers the Location the decision redirects to, parsed. */
export async function consent(t: TestApp, sessionToken: string, input: ConsentInput): Promise<URL> {
  const res = await t.request({
    method: 'POST',
    url: '/oauth/authorize/decision',
    headers: { 'x-session-token': sessionToken },
    payload: {
      clientId: input.clientId,
      redirectUri: input.redirectUri,
      scope: input.scope,
      state: input.state ?? 'st-1',
      codeChallenge: input.pkce.challenge,
      codeChallengeMethod: 'S256',
      decision: input.decision ?? 'approve',
    },
  });
  assert.equal(res.statusCode, 302, res.body);
  return new URL(String(res.headers.location));
}

export function form(params: Record<string, string>) {
  return {
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(params).toString(),
  };
}

export async function tokenRequest(t: TestApp, params: Record<string, string>) {
  return t.request({ method: 'POST', url: '/oauth/token', ...form(params) });
}

export type Tokens = { access_token: string; refresh_token: string; scope: string; expires_in: number };

/** Consent and exchange: a fresh token pair for `scope` on a client of the admin's platform. */
export async function tokensFor(
  t: TestApp,
  admin: Admin,
  client: { clientId: string; redirectUri: string },
  scope: string,
): Promise<Tokens> {
  const pkce = pkcePair();
  const location = await consent(t, admin.sessionToken, { ...client, scope, pkce });
  const code = location.searchParams.get('code');
  assert.ok(code, `no code in ${location}`);
  const res = await tokenRequest(t, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: client.redirectUri,
    client_id: client.clientId,
    code_verifier: pkce.verifier,
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as Tokens;
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
