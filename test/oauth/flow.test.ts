/**
 * OAuth 2.0 for installed applications, end to end over real HTTP: the service listens on 127.0.0.1,
 * a real loopback HTTP server is the application's redirect receiver, and a cookie-keeping client
 * plays the admin's browser. Register, consent (sign-in first), exchange, call routes inside and
 * outside the scopes, refresh, replay a rotated refresh token, revoke, delete the grant and the client.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { GRANTABLE_SCOPES } from '../../src/domain/oauth/scopes.ts';
import { freePort } from '../../src/platform/free-port.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { Browser, formFields } from '../support/browser.ts';
import { pkcePair } from '../support/oauth.ts';

let t: TestApp;
let base: string;
let sandbox: Awaited<ReturnType<typeof provisionAndLogin>>;
let other: Awaited<ReturnType<typeof provisionAndLogin>>;
let receiver: Server;
let redirectUri: string;
const received: URLSearchParams[] = [];
const logLines: string[] = [];
let clientId: string;

before(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  t = await startTestApp({
    env: { PUBLIC_BASE_URL: base },
    logger: createLogger('warn', { write: (chunk: string) => void logLines.push(chunk) }),
  });
  await t.app.listen({ host: '127.0.0.1', port });
  sandbox = await provisionAndLogin(t);
  other = await provisionAndLogin(t);
  // The application's redirect receiver: a real HTTP server on the loopback interface (RFC 8252 §7.3).
  receiver = createServer((req, res) => {
    received.push(new URL(req.url ?? '/', 'http://127.0.0.1').searchParams);
    res.writeHead(200, { 'content-type': 'text/plain' }).end('You can close this window.');
  });
  const receiverPort = await freePort();
  await new Promise<void>((resolve) => receiver.listen(receiverPort, '127.0.0.1', resolve));
  redirectUri = `http://127.0.0.1:${receiverPort}/callback`;
});
after(async () => {
  await new Promise((resolve) => receiver.close(resolve));
  await t.close();
});

type Call = { headers?: Record<string, string>; json?: unknown; form?: Record<string, string> };

async function api(method: string, path: string, call: Call = {}) {
  const headers: Record<string, string> = { ...call.headers };
  let body: string | undefined;
  if (call.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(call.json);
  } else if (call.form !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(call.form).toString();
  }
  const res = await fetch(`${base}${path}`, { method, headers, body, redirect: 'manual' });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) as Record<string, unknown> };
}

const admin = () => ({ 'x-session-token': sandbox.sessionToken });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function authorizeUrl(pkce: { challenge: string }, state: string, scope: string, client = clientId): string {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: client,
    redirect_uri: redirectUri,
    scope,
    state,
    code_challenge: pkce.challenge,
    code_challenge_method: 'S256',
  });
  return `/oauth/authorize?${query}`;
}

/** Exchanges a code for tokens at the token endpoint. */
async function exchange(code: string, verifier: string, client = clientId) {
  return api('POST', '/oauth/token', {
    form: {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      client_id: client,
      code_verifier: verifier,
    },
  });
}

async function refresh(refreshToken: string, client = clientId) {
  return api('POST', '/oauth/token', {
    form: { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: client },
  });
}

/** Consent through the programmatic JSON decision, the code delivered to the receiver, then exchanged. */
async function grantTokens(scope: string, session = sandbox.sessionToken, client = clientId) {
  const pkce = pkcePair();
  const decided = await api('POST', '/oauth/authorize/decision', {
    headers: { 'x-session-token': session },
    json: {
      clientId: client,
      redirectUri,
      scope,
      state: 'json-consent',
      codeChallenge: pkce.challenge,
      codeChallengeMethod: 'S256',
      decision: 'approve',
    },
  });
  assert.equal(decided.status, 302, decided.text);
  await fetch(String(decided.headers.get('location')));
  const code = received.at(-1)!.get('code')!;
  const res = await exchange(code, pkce.verifier, client);
  assert.equal(res.status, 200, res.text);
  return res.json() as { access_token: string; refresh_token: string; scope: string };
}

const documentsPath = () => `/journal/documents?companyId=${sandbox.companyId}`;

test('a workspace admin registers the application with exact loopback redirect URIs', async () => {
  for (const bad of [
    'http://localhost:8123/cb',
    'https://127.0.0.1:8123/cb',
    'http://127.0.0.1/cb',
    'http://10.0.0.1:80/cb',
  ]) {
    const res = await api('POST', `/platforms/${sandbox.platformId}/oauth-clients`, {
      headers: admin(),
      json: { name: 'bad', redirectUris: [bad] },
    });
    assert.equal(res.status, 400, `${bad}: ${res.text}`);
    assert.equal((res.json().error as { code: string }).code, 'bad_request');
  }
  const byKey = await api('POST', `/platforms/${sandbox.platformId}/oauth-clients`, {
    headers: { 'x-api-key': sandbox.apiKey },
    json: { name: 'ERP', redirectUris: [redirectUri] },
  });
  assert.equal(byKey.status, 403);
  const res = await api('POST', `/platforms/${sandbox.platformId}/oauth-clients`, {
    headers: admin(),
    json: { name: 'Reconciliation <script>', redirectUris: [redirectUri] },
  });
  assert.equal(res.status, 201, res.text);
  const client = res.json() as { clientId: string; redirectUris: string[] };
  assert.match(client.clientId, /^oac_/);
  assert.deepEqual(client.redirectUris, [redirectUri]);
  clientId = client.clientId;
  const listed = await api('GET', `/platforms/${sandbox.platformId}/oauth-clients`, { headers: admin() });
  assert.deepEqual(
    (listed.json().items as { clientId: string }[]).map((c) => c.clientId),
    [clientId],
  );
});

test('RFC 8414 metadata states what the server enforces', async () => {
  const res = await api('GET', '/.well-known/oauth-authorization-server');
  assert.equal(res.status, 200);
  const metadata = res.json();
  assert.equal(metadata.issuer, base);
  assert.equal(metadata.authorization_endpoint, `${base}/oauth/authorize`);
  assert.equal(metadata.token_endpoint, `${base}/oauth/token`);
  assert.equal(metadata.revocation_endpoint, `${base}/oauth/revoke`);
  assert.deepEqual(metadata.scopes_supported, [...GRANTABLE_SCOPES]);
  assert.deepEqual(metadata.grant_types_supported, ['authorization_code', 'refresh_token']);
  assert.deepEqual(metadata.response_types_supported, ['code']);
  assert.deepEqual(metadata.code_challenge_methods_supported, ['S256']);
  assert.deepEqual(metadata.token_endpoint_auth_methods_supported, ['none']);
});

let first: { access_token: string; refresh_token: string };

test('the admin signs in on the consent page, approves, and the loopback receiver gets the code', async () => {
  const browser = new Browser(base);
  const pkce = pkcePair();
  const state = 'state-42';
  const page = await browser.get(authorizeUrl(pkce, state, 'payments:submit payments:read'));
  assert.equal(page.status, 200);
  assert.equal(page.headers.get('x-frame-options'), 'DENY');
  assert.match(String(page.headers.get('content-security-policy')), /^default-src 'none'; .*frame-ancestors 'none'/);
  const signIn = await page.text();
  assert.match(signIn, /Sign in to approve Reconciliation &lt;script&gt;/);

  const wrong = await browser.postForm('/oauth/authorize/sign-in', {
    ...formFields(signIn),
    email: sandbox.dashboardLogin.email,
    password: 'not the password',
  });
  assert.equal(wrong.status, 401);
  const retry = await wrong.text();
  assert.match(retry, /Wrong email or password/);

  // A sign-in post without this browser's sign-in token (login CSRF) is refused.
  const forged = await new Browser(base).postForm('/oauth/authorize/sign-in', {
    ...formFields(retry),
    email: sandbox.dashboardLogin.email,
    password: sandbox.dashboardLogin.password,
  });
  assert.equal(forged.status, 403);

  const signedIn = await browser.postForm('/oauth/authorize/sign-in', {
    ...formFields(retry),
    email: sandbox.dashboardLogin.email,
    password: sandbox.dashboardLogin.password,
  });
  assert.equal(signedIn.status, 303, await signedIn.text());
  assert.match(
    signedIn.headers.getSetCookie().join('\n'),
    /payops_session=st_[0-9a-f]{64}; Max-Age=\d+; Path=\/; HttpOnly; SameSite=Strict/,
  );
  const consent = await browser.get(String(signedIn.headers.get('location')));
  assert.equal(consent.status, 200);
  const consentHtml = await consent.text();
  assert.match(consentHtml, /Approve Reconciliation &lt;script&gt;\?/);
  assert.match(consentHtml, /<code>payments:submit<\/code>/);
  assert.match(consentHtml, /<code>payments:read<\/code>/);
  assert.doesNotMatch(consentHtml, /<code>statements:read<\/code>/);

  // The decision form without its CSRF token, or with another one, is refused whatever the cookie.
  const { csrf_token: csrf, ...withoutCsrf } = formFields(consentHtml);
  assert.ok(csrf);
  for (const fields of [withoutCsrf, { ...withoutCsrf, csrf_token: `${csrf}x` }]) {
    const refused = await browser.postForm('/oauth/authorize/decision', { ...fields, decision: 'approve' });
    assert.equal(refused.status, 403);
  }

  const approved = await browser.postForm('/oauth/authorize/decision', {
    ...formFields(consentHtml),
    decision: 'approve',
  });
  assert.equal(approved.status, 302);
  const location = String(approved.headers.get('location'));
  assert.ok(location.startsWith(`${redirectUri}?`), location);
  const delivered = await fetch(location);
  assert.equal(delivered.status, 200);
  const callback = received.at(-1)!;
  assert.equal(callback.get('state'), state);
  assert.equal(callback.get('iss'), base);
  const code = callback.get('code')!;
  assert.match(code, /^ocd_[0-9a-f]{64}$/);

  // PKCE and the redirect URI are checked before the code is spent.
  const badVerifier = await exchange(code, pkcePair().verifier);
  assert.equal(badVerifier.status, 400);
  assert.deepEqual(badVerifier.json(), {
    error: 'invalid_grant',
    error_description: 'code_verifier does not match the code_challenge',
  });
  const badRedirect = await api('POST', '/oauth/token', {
    form: {
      grant_type: 'authorization_code',
      code,
      redirect_uri: `${redirectUri}x`,
      client_id: clientId,
      code_verifier: pkce.verifier,
    },
  });
  assert.equal(badRedirect.json().error, 'invalid_grant');

  const tokens = await exchange(code, pkce.verifier);
  assert.equal(tokens.status, 200, tokens.text);
  assert.equal(tokens.headers.get('cache-control'), 'no-store');
  assert.equal(tokens.headers.get('pragma'), 'no-cache');
  const body = tokens.json();
  assert.deepEqual(Object.keys(body).sort(), ['access_token', 'expires_in', 'refresh_token', 'scope', 'token_type']);
  assert.equal(body.token_type, 'Bearer');
  assert.equal(body.expires_in, 3600);
  assert.equal(body.scope, 'payments:submit payments:read');
  assert.match(String(body.access_token), /^oat_[0-9a-f]{64}$/);
  assert.match(String(body.refresh_token), /^ort_[0-9a-f]{64}$/);
  first = body as typeof first;
});

let documentId: string;

test('the token submits and reads payments, and reaches nothing outside its scopes', async () => {
  const submitted = await api('POST', '/journal/payments', {
    headers: { ...bearer(first.access_token), 'idempotency-key': 'oauth-flow-1' },
    json: sandbox.firstPayment.body,
  });
  assert.equal(submitted.status, 201, submitted.text);
  documentId = String(submitted.json().id);
  const read = await api('GET', `/journal/documents/${documentId}?companyId=${sandbox.companyId}`, {
    headers: bearer(first.access_token),
  });
  assert.equal(read.status, 200, read.text);
  const list = await api('GET', documentsPath(), { headers: bearer(first.access_token) });
  assert.deepEqual(
    (list.json().items as { id: string }[]).map((d) => d.id),
    [documentId],
  );

  for (const [method, path, scope] of [
    ['GET', `/accounts?companyId=${sandbox.companyId}`, 'statements:read'],
    ['POST', '/validate/demo', 'engine:use'],
    ['GET', `/connections?platformId=${sandbox.platformId}&companyId=${sandbox.companyId}`, 'banks:read'],
  ] as const) {
    const res = await api(method, path, {
      headers: bearer(first.access_token),
      ...(method === 'POST' ? { json: {} } : {}),
    });
    assert.equal(res.status, 403, `${path}: ${res.text}`);
    assert.equal((res.json().error as { code: string }).code, 'insufficient_scope');
    assert.equal(
      res.headers.get('www-authenticate'),
      `Bearer realm="payops", error="insufficient_scope", scope="${scope}"`,
    );
  }
  for (const [method, path] of [
    ['GET', `/webhooks?companyId=${sandbox.companyId}`],
    ['POST', '/journal/ingest'],
    ['POST', '/connections'],
    ['GET', '/oauth/grants'],
    ['GET', `/platforms/${sandbox.platformId}/oauth-clients`],
  ] as const) {
    const res = await api(method, path, {
      headers: bearer(first.access_token),
      ...(method === 'POST' ? { json: {} } : {}),
    });
    assert.equal(res.status, 403, `${path}: ${res.text}`);
    assert.equal((res.json().error as { code: string }).code, 'forbidden');
  }
  // Another platform's company is outside the token whatever its scopes.
  const foreign = await api('GET', `/journal/documents?companyId=${other.companyId}`, {
    headers: bearer(first.access_token),
  });
  assert.equal(foreign.status, 403);
});

let current: { access_token: string; refresh_token: string };

test('a refresh rotates the pair: the old access token stops working at once', async () => {
  const res = await refresh(first.refresh_token);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.headers.get('cache-control'), 'no-store');
  current = res.json() as typeof current;
  assert.notEqual(current.access_token, first.access_token);
  assert.notEqual(current.refresh_token, first.refresh_token);
  assert.equal(res.json().scope, 'payments:submit payments:read');
  const old = await api('GET', documentsPath(), { headers: bearer(first.access_token) });
  assert.equal(old.status, 401);
  assert.match(String(old.headers.get('www-authenticate')), /error="invalid_token"/);
  const fresh = await api('GET', documentsPath(), { headers: bearer(current.access_token) });
  assert.equal(fresh.status, 200);
});

test('a rotated refresh token presented again kills the whole family, as a security event', async () => {
  const replay = await refresh(first.refresh_token);
  assert.equal(replay.status, 400);
  assert.equal(replay.headers.get('cache-control'), 'no-store');
  assert.deepEqual(replay.json(), {
    error: 'invalid_grant',
    error_description: 'the refresh token was already used; the grant is revoked, consent again',
  });
  assert.equal((await api('GET', documentsPath(), { headers: bearer(current.access_token) })).status, 401);
  assert.equal((await refresh(current.refresh_token)).json().error, 'invalid_grant');

  const db = new pg.Client({ connectionString: t.databaseUrl });
  await db.connect();
  try {
    const events = await db.query(
      `SELECT type, metadata FROM activity_events WHERE platform_id = $1 AND type LIKE 'oauth.%' ORDER BY seq`,
      [sandbox.platformId],
    );
    const types = events.rows.map((r) => r.type);
    assert.deepEqual(types, [
      'oauth.client.registered',
      'oauth.consent.approved',
      'oauth.grant.created',
      'oauth.grant.refresh-replay',
    ]);
    assert.equal(events.rows[3].metadata.security, true);
    assert.equal(events.rows[3].metadata.reason, 'refresh-replay');
  } finally {
    await db.end();
  }
  const warned = logLines.map((l) => JSON.parse(l)).filter((l) => l.event === 'oauth.grant.revoked');
  assert.equal(warned.length, 1);
  assert.equal(warned[0].level, 40);
  assert.equal(warned[0].reason, 'refresh-replay');
  assert.doesNotMatch(logLines.join(''), /o(at|rt|cd)_[0-9a-f]{64}/, 'no token or code in the log');

  // Consent again: a new grant works.
  const again = await grantTokens('payments:read');
  assert.equal((await api('GET', documentsPath(), { headers: bearer(again.access_token) })).status, 200);
});

test('revocation (RFC 7009) ends access at once and always answers 200', async () => {
  const tokens = await grantTokens('payments:read');
  const revoked = await api('POST', '/oauth/revoke', { form: { token: tokens.access_token, client_id: clientId } });
  assert.equal(revoked.status, 200);
  assert.equal(revoked.text, '');
  assert.equal((await api('GET', documentsPath(), { headers: bearer(tokens.access_token) })).status, 401);
  assert.equal((await refresh(tokens.refresh_token)).json().error, 'invalid_grant');
  for (const token of [tokens.access_token, tokens.refresh_token, `oat_${'1'.repeat(64)}`, 'garbage']) {
    assert.equal((await api('POST', '/oauth/revoke', { form: { token } })).status, 200);
  }
  const missing = await api('POST', '/oauth/revoke', { form: {} });
  assert.equal(missing.status, 400);
  assert.deepEqual(missing.json(), { error: 'invalid_request', error_description: 'token is required' });
  // Another client's id revokes nothing.
  const kept = await grantTokens('payments:read');
  await api('POST', '/oauth/revoke', { form: { token: kept.refresh_token, client_id: 'oac_someoneelse' } });
  assert.equal((await api('GET', documentsPath(), { headers: bearer(kept.access_token) })).status, 200);
});

test('grants are listed and deleted by their user; deleting the client revokes the rest', async () => {
  const tokens = await grantTokens('payments:read engine:use');
  const listed = await api('GET', '/oauth/grants', { headers: admin() });
  assert.equal(listed.status, 200);
  const items = listed.json().items as {
    id: string;
    clientId: string;
    clientName: string;
    scopes: string[];
    userId: string;
  }[];
  const grant = items[0]!;
  assert.equal(grant.clientId, clientId);
  assert.equal(grant.clientName, 'Reconciliation <script>');
  assert.deepEqual(grant.scopes, ['payments:read', 'engine:use']);
  assert.match(grant.id, /^ogr_/);
  // Another platform's admin cannot see or delete it.
  const foreign = await api('DELETE', `/oauth/grants/${grant.id}`, {
    headers: { 'x-session-token': other.sessionToken },
  });
  assert.equal(foreign.status, 404);
  const deleted = await api('DELETE', `/oauth/grants/${grant.id}`, { headers: admin() });
  assert.equal(deleted.status, 200, deleted.text);
  assert.deepEqual(deleted.json(), { id: grant.id, revoked: true });
  assert.equal((await api('GET', '/profiles', { headers: bearer(tokens.access_token) })).status, 401);
  assert.equal((await api('DELETE', `/oauth/grants/${grant.id}`, { headers: admin() })).status, 404);
  const after = await api('GET', '/oauth/grants', { headers: admin() });
  assert.ok(!(after.json().items as { id: string }[]).some((g) => g.id === grant.id));

  const survivor = await grantTokens('payments:read');
  const gone = await api('DELETE', `/platforms/${sandbox.platformId}/oauth-clients/${clientId}`, { headers: admin() });
  assert.equal(gone.status, 200, gone.text);
  assert.ok(Number(gone.json().revokedGrants) >= 1);
  assert.equal((await api('GET', documentsPath(), { headers: bearer(survivor.access_token) })).status, 401);
  const refreshGone = await refresh(survivor.refresh_token);
  assert.equal(refreshGone.status, 401);
  assert.equal(refreshGone.json().error, 'invalid_client');
  const page = await fetch(`${base}${authorizeUrl(pkcePair(), 's', 'payments:read')}`, { redirect: 'manual' });
  assert.equal(page.status, 400);
  assert.equal(page.headers.get('location'), null);
});

test('a token reaches only what its user administers at the time of each request', async () => {
  const registered = await api('POST', `/platforms/${sandbox.platformId}/oauth-clients`, {
    headers: admin(),
    json: { name: 'Treasury CLI', redirectUris: [redirectUri] },
  });
  const client = String(registered.json().clientId);
  const password = 'a long enough password';
  for (const [email, roles] of [
    ['company.admin@example.com', ['admin']],
    ['viewer@example.com', ['viewer']],
  ] as const) {
    const created = await api('POST', '/users', {
      headers: admin(),
      json: { platformId: sandbox.platformId, companyId: sandbox.companyId, email, name: email, roles, password },
    });
    assert.equal(created.status, 201, created.text);
  }
  const login = async (email: string) =>
    String((await api('POST', '/auth/login', { json: { email, password } })).json().sessionToken);

  // A viewer may not approve an application.
  const viewer = await login('viewer@example.com');
  const refused = await api('POST', '/oauth/authorize/decision', {
    headers: { 'x-session-token': viewer },
    json: {
      clientId: client,
      redirectUri,
      scope: 'payments:read',
      codeChallenge: pkcePair().challenge,
      codeChallengeMethod: 'S256',
      decision: 'approve',
    },
  });
  assert.equal(refused.status, 403, refused.text);

  const companyAdmin = await login('company.admin@example.com');
  const tokens = await grantTokens('payments:read', companyAdmin, client);
  assert.equal((await api('GET', documentsPath(), { headers: bearer(tokens.access_token) })).status, 200);
  const db = new pg.Client({ connectionString: t.databaseUrl });
  await db.connect();
  try {
    await db.query(`UPDATE users SET roles = '{viewer}' WHERE email = 'company.admin@example.com'`);
  } finally {
    await db.end();
  }
  const demoted = await api('GET', documentsPath(), { headers: bearer(tokens.access_token) });
  assert.equal(demoted.status, 403, demoted.text);
  assert.equal((demoted.json().error as { code: string }).code, 'forbidden');
});
