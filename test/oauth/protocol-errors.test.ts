/**
 * The OAuth rules one by one, on the injected clock: authorization request errors (never a redirect
 * before the client and redirect URI are trusted), code lifetime and single use, PKCE, the token
 * endpoint's flat errors, token lifetimes, scope narrowing on refresh.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { manualClock } from '../../src/platform/clock.ts';
import { provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { bearer, consent, pkcePair, registerClient, tokenRequest, tokensFor } from '../support/oauth.ts';

const clock = manualClock(new Date('2026-11-02T09:00:00Z'));
let t: TestApp;
let sandbox: Awaited<ReturnType<typeof provisionAndLogin>>;
const redirectUri = 'http://127.0.0.1:53682/oauth/callback';
let client: { clientId: string; redirectUri: string };
let otherClient: { clientId: string; redirectUri: string };

before(async () => {
  t = await startTestApp({ clock });
  sandbox = await provisionAndLogin(t);
  client = { clientId: (await registerClient(t, sandbox, [redirectUri])).clientId, redirectUri };
  otherClient = { clientId: (await registerClient(t, sandbox, [redirectUri], 'Other app')).clientId, redirectUri };
});
after(() => t.close());

function authorize(params: Record<string, string | string[]>) {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    for (const v of Array.isArray(value) ? value : [value]) query.append(name, v);
  }
  return t.request({ method: 'GET', url: `/oauth/authorize?${query}` });
}

const valid = () => ({
  response_type: 'code',
  client_id: client.clientId,
  redirect_uri: redirectUri,
  scope: 'payments:read',
  state: 'xyz',
  code_challenge: pkcePair().challenge,
  code_challenge_method: 'S256',
});

describe('GET /oauth/authorize', () => {
  test('an untrusted client or redirect URI answers a 400 page and never redirects', async () => {
    const cases: [string, Record<string, string | string[]>][] = [
      ['no client_id', { ...valid(), client_id: '' }],
      ['unknown client', { ...valid(), client_id: 'oac_unknown' }],
      ['no redirect_uri', { ...valid(), redirect_uri: '' }],
      ['unregistered port', { ...valid(), redirect_uri: 'http://127.0.0.1:53683/oauth/callback' }],
      ['localhost', { ...valid(), redirect_uri: 'http://localhost:53682/oauth/callback' }],
      ['prefix of a registered URI', { ...valid(), redirect_uri: 'http://127.0.0.1:53682/oauth' }],
      ['registered URI with more path', { ...valid(), redirect_uri: `${redirectUri}/x` }],
      ['registered URI with a query', { ...valid(), redirect_uri: `${redirectUri}?next=evil` }],
      ['client_id twice', { ...valid(), client_id: [client.clientId, client.clientId] }],
      ['redirect_uri twice', { ...valid(), redirect_uri: [redirectUri, redirectUri] }],
    ];
    for (const [label, params] of cases) {
      const res = await authorize(params);
      assert.equal(res.statusCode, 400, label);
      assert.equal(res.headers.location, undefined, label);
      assert.match(String(res.headers['content-type']), /^text\/html/, label);
    }
  });

  test('other errors redirect to the application with error and state', async () => {
    const cases: [Record<string, string | string[]>, string, RegExp][] = [
      [{ ...valid(), response_type: '' }, 'invalid_request', /response_type/],
      [{ ...valid(), response_type: 'token' }, 'unsupported_response_type', /code/],
      [{ ...valid(), code_challenge: '' }, 'invalid_request', /code_challenge is required/],
      [{ ...valid(), code_challenge_method: 'plain' }, 'invalid_request', /S256/],
      [{ ...valid(), code_challenge_method: '' }, 'invalid_request', /S256/],
      [{ ...valid(), code_challenge: 'short' }, 'invalid_request', /43 base64url/],
      [{ ...valid(), scope: '' }, 'invalid_scope', /required/],
      [{ ...valid(), scope: 'payments:read admin' }, 'invalid_scope', /admin/],
      [{ ...valid(), scope: 'payments:read payments:read' }, 'invalid_scope', /repeated/],
      [{ ...valid(), scope: ['payments:read', 'engine:use'] }, 'invalid_request', /scope is sent more than once/],
    ];
    for (const [params, error, description] of cases) {
      const res = await authorize(params);
      assert.equal(res.statusCode, 302, `${error}: ${res.body}`);
      const location = new URL(String(res.headers.location));
      assert.equal(`${location.origin}${location.pathname}`, redirectUri);
      assert.equal(location.searchParams.get('error'), error);
      assert.match(String(location.searchParams.get('error_description')), description);
      if (!Array.isArray(params.scope)) assert.equal(location.searchParams.get('state'), 'xyz');
    }
  });

  test('a valid request without a browser session shows the sign-in form', async () => {
    const res = await authorize(valid());
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /<form method="post" action="\/oauth\/authorize\/sign-in">/);
    assert.match(String(res.headers['set-cookie']), /payops_sign_in=/);
    assert.equal(res.headers['cache-control'], 'no-store');
  });
});

describe('the decision', () => {
  test('deny sends access_denied with the state', async () => {
    const location = await consent(t, sandbox.sessionToken, {
      ...client,
      scope: 'payments:read',
      pkce: pkcePair(),
      state: 'abc',
      decision: 'deny',
    });
    assert.equal(location.searchParams.get('error'), 'access_denied');
    assert.equal(location.searchParams.get('state'), 'abc');
    assert.equal(location.searchParams.get('code'), null);
  });

  test('a JSON decision for an unregistered redirect URI is a 400 and no redirect', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/oauth/authorize/decision',
      headers: { 'x-session-token': sandbox.sessionToken },
      payload: {
        clientId: client.clientId,
        redirectUri: 'http://127.0.0.1:1/elsewhere',
        scope: 'payments:read',
        codeChallenge: pkcePair().challenge,
        codeChallengeMethod: 'S256',
        decision: 'approve',
      },
    });
    assert.equal(res.statusCode, 400);
    assert.equal(res.headers.location, undefined);
  });

  test('an unknown decision is a 400', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/oauth/authorize/decision',
      headers: { 'x-session-token': sandbox.sessionToken },
      payload: { clientId: client.clientId, redirectUri, scope: 'payments:read', decision: 'maybe' },
    });
    assert.equal(res.statusCode, 400);
  });
});

async function codeFor(scope = 'payments:read', target = client) {
  const pkce = pkcePair();
  const location = await consent(t, sandbox.sessionToken, { ...target, scope, pkce });
  return { code: location.searchParams.get('code')!, verifier: pkce.verifier };
}

const exchange = (code: string, verifier: string, clientId = client.clientId) =>
  tokenRequest(t, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    client_id: clientId,
    code_verifier: verifier,
  });

function assertFlat(
  res: { statusCode: number; json(): unknown; headers: Record<string, unknown> },
  status: number,
  error: string,
) {
  assert.equal(res.statusCode, status);
  const body = res.json() as Record<string, unknown>;
  assert.deepEqual(Object.keys(body).sort(), ['error', 'error_description']);
  assert.equal(body.error, error);
  assert.equal(res.headers['cache-control'], 'no-store');
}

describe('authorization codes', () => {
  test('a code is good for 10 minutes and no longer', async () => {
    const inTime = await codeFor();
    clock.advance(10 * 60 * 1000 - 1);
    assert.equal((await exchange(inTime.code, inTime.verifier)).statusCode, 200);
    const late = await codeFor();
    clock.advance(10 * 60 * 1000);
    const res = await exchange(late.code, late.verifier);
    assertFlat(res, 400, 'invalid_grant');
    assert.match(String((res.json() as { error_description: string }).error_description), /expired/);
  });

  test('a code is single use: used again, it is refused and its grant is revoked', async () => {
    const { code, verifier } = await codeFor();
    const firstExchange = await exchange(code, verifier);
    assert.equal(firstExchange.statusCode, 200);
    const tokens = firstExchange.json() as { access_token: string; refresh_token: string };
    assert.equal(
      (await t.request({ method: 'GET', url: '/profiles', headers: bearer(tokens.access_token) })).statusCode,
      403,
    );
    const again = await exchange(code, verifier);
    assertFlat(again, 400, 'invalid_grant');
    assert.equal(
      (
        await t.request({
          method: 'GET',
          url: `/journal/list?companyId=${sandbox.companyId}`,
          headers: bearer(tokens.access_token),
        })
      ).statusCode,
      401,
    );
    assertFlat(
      await tokenRequest(t, {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: client.clientId,
      }),
      400,
      'invalid_grant',
    );
  });

  test("another client's code, a wrong verifier or redirect URI: invalid_grant", async () => {
    const { code, verifier } = await codeFor();
    assertFlat(await exchange(code, verifier, otherClient.clientId), 400, 'invalid_grant');
    assertFlat(await exchange(code, pkcePair().verifier), 400, 'invalid_grant');
    assertFlat(
      await tokenRequest(t, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: 'http://127.0.0.1:53682/other',
        client_id: client.clientId,
        code_verifier: verifier,
      }),
      400,
      'invalid_grant',
    );
    // None of those spent it.
    assert.equal((await exchange(code, verifier)).statusCode, 200);
  });
});

describe('the token endpoint', () => {
  test('malformed requests: flat errors, never the envelope', async () => {
    const { code, verifier } = await codeFor();
    const base = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      client_id: client.clientId,
      code_verifier: verifier,
    };
    assertFlat(await tokenRequest(t, {}), 400, 'invalid_request');
    for (const missing of ['code', 'redirect_uri', 'client_id', 'code_verifier']) {
      const params: Record<string, string> = { ...base };
      delete params[missing];
      const res = await tokenRequest(t, params);
      assertFlat(res, 400, 'invalid_request');
      assert.equal((res.json() as { error_description: string }).error_description, `${missing} is required`);
    }
    assertFlat(await tokenRequest(t, { ...base, code_verifier: 'too-short' }), 400, 'invalid_request');
    assertFlat(await tokenRequest(t, { ...base, grant_type: 'password' }), 400, 'unsupported_grant_type');
    assertFlat(await tokenRequest(t, { ...base, client_id: 'oac_nobody' }), 401, 'invalid_client');
    const twice = await t.request({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `${new URLSearchParams(base)}&code=${code}`,
    });
    assertFlat(twice, 400, 'invalid_request');
    assertFlat(await t.request({ method: 'POST', url: '/oauth/token', payload: base }), 400, 'invalid_request');
    assertFlat(
      await t.request({ method: 'POST', url: '/oauth/token', headers: { 'content-type': 'image/png' }, payload: 'x' }),
      400,
      'invalid_request',
    );
  });

  test('access tokens live 1 hour; refresh tokens 180 days', async () => {
    const tokens = await tokensFor(t, sandbox, client, 'payments:read');
    const call = (token: string) =>
      t.request({ method: 'GET', url: `/journal/list?companyId=${sandbox.companyId}`, headers: bearer(token) });
    clock.advance(60 * 60 * 1000 - 1000);
    assert.equal((await call(tokens.access_token)).statusCode, 200);
    clock.advance(1000);
    const expired = await call(tokens.access_token);
    assert.equal(expired.statusCode, 401);
    assert.match(String(expired.headers['www-authenticate']), /error="invalid_token"/);
    const refreshed = await tokenRequest(t, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: client.clientId,
    });
    assert.equal(refreshed.statusCode, 200);
    const next = refreshed.json() as { refresh_token: string };
    clock.advance(180 * 24 * 60 * 60 * 1000 - 1000);
    const stillGood = await tokenRequest(t, {
      grant_type: 'refresh_token',
      refresh_token: next.refresh_token,
      client_id: client.clientId,
    });
    assert.equal(stillGood.statusCode, 200);
    const last = stillGood.json() as { refresh_token: string };
    clock.advance(180 * 24 * 60 * 60 * 1000);
    const stale = await tokenRequest(t, {
      grant_type: 'refresh_token',
      refresh_token: last.refresh_token,
      client_id: client.clientId,
    });
    assertFlat(stale, 400, 'invalid_grant');
    assert.match(String((stale.json() as { error_description: string }).error_description), /expired/);
    // The admin session of 12 hours is long gone too: sign in again for the tests after this one.
    const login = await t.request({
      method: 'POST',
      url: '/auth/login',
      payload: { email: sandbox.dashboardLogin.email, password: sandbox.dashboardLogin.password },
      remoteAddress: '10.252.0.1',
    });
    sandbox.sessionToken = (login.json() as { sessionToken: string }).sessionToken;
  });

  test('a refresh may narrow the scope within the grant, never widen it', async () => {
    const tokens = await tokensFor(t, sandbox, client, 'payments:read engine:use');
    const wider = await tokenRequest(t, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: client.clientId,
      scope: 'payments:read payments:submit',
    });
    assertFlat(wider, 400, 'invalid_scope');
    const narrower = await tokenRequest(t, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: client.clientId,
      scope: 'engine:use',
    });
    assert.equal(narrower.statusCode, 200, narrower.body);
    const pair = narrower.json() as { access_token: string; scope: string; refresh_token: string };
    assert.equal(pair.scope, 'engine:use');
    const read = await t.request({
      method: 'GET',
      url: `/journal/list?companyId=${sandbox.companyId}`,
      headers: bearer(pair.access_token),
    });
    assert.equal(read.statusCode, 403);
    assert.equal((read.json() as { error: { code: string } }).error.code, 'insufficient_scope');
    // Without scope, the next refresh is the grant's whole scope again (RFC 6749 §6).
    const whole = await tokenRequest(t, {
      grant_type: 'refresh_token',
      refresh_token: pair.refresh_token,
      client_id: client.clientId,
    });
    assert.equal((whole.json() as { scope: string }).scope, 'payments:read engine:use');
  });

  test('a refresh token presented by another client is refused and does not rotate', async () => {
    const tokens = await tokensFor(t, sandbox, client, 'payments:read');
    assertFlat(
      await tokenRequest(t, {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: otherClient.clientId,
      }),
      400,
      'invalid_grant',
    );
    const own = await tokenRequest(t, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: client.clientId,
    });
    assert.equal(own.statusCode, 200);
  });
});

describe('races', () => {
  test('one code exchanged twice at once: one answer gets tokens, the other invalid_grant, and the grant dies', async () => {
    const { code, verifier } = await codeFor();
    const answers = await Promise.all([exchange(code, verifier), exchange(code, verifier)]);
    const statuses = answers.map((a) => a.statusCode).sort();
    assert.deepEqual(statuses, [200, 400]);
    const issued = answers.find((a) => a.statusCode === 200)!.json() as { access_token: string };
    const call = await t.request({
      method: 'GET',
      url: `/journal/list?companyId=${sandbox.companyId}`,
      headers: bearer(issued.access_token),
    });
    assert.equal(call.statusCode, 401, 'a code presented twice revokes what it gave');
  });

  test('one refresh token used twice at once: exactly one rotation, then the family is revoked', async () => {
    const tokens = await tokensFor(t, sandbox, client, 'payments:read');
    const refresh = () =>
      tokenRequest(t, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.clientId });
    const answers = await Promise.all([refresh(), refresh()]);
    assert.deepEqual(answers.map((a) => a.statusCode).sort(), [200, 400]);
    const rotated = answers.find((a) => a.statusCode === 200)!.json() as {
      access_token: string;
      refresh_token: string;
    };
    const call = await t.request({
      method: 'GET',
      url: `/journal/list?companyId=${sandbox.companyId}`,
      headers: bearer(rotated.access_token),
    });
    assert.equal(call.statusCode, 401);
  });
});
