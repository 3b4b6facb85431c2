/**
 * The authentication failure table (contract, Authentication): which status and code each wrong
 * credential gets on each kind of route, always in the standard error envelope.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { InjectOptions } from 'fastify';
import pg from 'pg';
import { assertError, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';

type Sandbox = Awaited<ReturnType<typeof provisionAndLogin>>;

let t: TestApp;
let a: Sandbox;
let b: Sandbox;
let bKeyId: string;

before(async () => {
  t = await startTestApp();
  a = await provisionAndLogin(t);
  b = await provisionAndLogin(t);
  const keys = await t.request({
    method: 'GET',
    url: `/platforms/${b.platformId}/api-keys`,
    headers: { 'x-session-token': b.sessionToken },
  });
  bKeyId = (keys.json() as { items: { id: string }[] }).items[0]!.id;
});
after(() => t.close());

type Route = { name: string; request: (platformId: string) => InjectOptions };

const newAdmin = { email: 'someone@example.com', name: 'Someone', password: 'long enough password' };

/** Control-plane routes: admin session only (workspace admin). */
const controlPlane: Route[] = [
  { name: 'GET companies', request: (p) => ({ method: 'GET', url: `/platforms/${p}/companies` }) },
  {
    name: 'POST companies',
    request: (p) => ({ method: 'POST', url: `/platforms/${p}/companies`, payload: { name: 'Intruder Co' } }),
  },
  { name: 'GET api-keys', request: (p) => ({ method: 'GET', url: `/platforms/${p}/api-keys` }) },
  {
    name: 'POST api-keys',
    request: (p) => ({ method: 'POST', url: `/platforms/${p}/api-keys`, payload: { label: 'intruder' } }),
  },
  { name: 'DELETE api-keys', request: (p) => ({ method: 'DELETE', url: `/platforms/${p}/api-keys/${bKeyId}` }) },
  { name: 'GET admins', request: (p) => ({ method: 'GET', url: `/platforms/${p}/admins` }) },
  { name: 'POST admins', request: (p) => ({ method: 'POST', url: `/platforms/${p}/admins`, payload: newAdmin }) },
];

/** Every authenticated route of the foundation, for the missing and invalid credential rows. */
const authenticated: Route[] = [
  ...controlPlane.filter((r) => r.name !== 'POST admins'), // open in bootstrap mode: covered in identity
  { name: 'GET /auth/me', request: () => ({ method: 'GET', url: '/auth/me' }) },
  { name: 'POST /auth/logout', request: () => ({ method: 'POST', url: '/auth/logout' }) },
  {
    name: 'POST /auth/company-context',
    request: () => ({ method: 'POST', url: '/auth/company-context', payload: { companyId: 'comp_x' } }),
  },
  { name: 'DELETE /auth/company-context', request: () => ({ method: 'DELETE', url: '/auth/company-context' }) },
  {
    name: 'GET /users',
    request: (p) => ({ method: 'GET', url: `/users?platformId=${p}&companyId=${b.companyId}` }),
  },
  {
    name: 'POST /users',
    request: (p) => ({
      method: 'POST',
      url: '/users',
      payload: { platformId: p, companyId: b.companyId, email: 'x@example.com', name: 'X', roles: ['viewer'] },
    }),
  },
];

function withHeaders(options: InjectOptions, headers: Record<string, string>): InjectOptions {
  return { ...options, headers: { ...(options.headers as Record<string, string>), ...headers } };
}

describe('401 unauthorized: missing or invalid credential', () => {
  const invalid: Record<string, Record<string, string>> = {
    'no credential': {},
    'an empty X-API-Key': { 'x-api-key': '' },
    'a well-formed unknown key': { 'x-api-key': `key_${'0'.repeat(64)}` },
    'a malformed key': { 'x-api-key': 'not-a-key' },
    'a key in upper case hex': { 'x-api-key': `key_${'A'.repeat(64)}` },
    'a well-formed unknown session': { 'x-session-token': `st_${'0'.repeat(64)}` },
    'a malformed session token': { 'x-session-token': 'garbage' },
  };
  for (const route of authenticated) {
    test(route.name, async () => {
      for (const [label, headers] of Object.entries(invalid)) {
        const res = await t.request(withHeaders(route.request(b.platformId), headers));
        assert.equal(res.statusCode, 401, `${label}: ${res.body}`);
        assertError(res, 401, 'unauthorized');
      }
    });
  }

  test('an expired session is 401', async () => {
    const login = await t.request({
      method: 'POST',
      url: '/auth/login',
      payload: { email: a.dashboardLogin.email, password: a.dashboardLogin.password },
      remoteAddress: '10.99.0.1',
    });
    const token = (login.json() as { sessionToken: string }).sessionToken;
    const db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
    try {
      const digest = createHash('sha256').update(token).digest('hex');
      const updated = await db.query(`UPDATE sessions SET expires_at = now() - interval '1 second' WHERE digest = $1`, [
        digest,
      ]);
      assert.equal(updated.rowCount, 1);
    } finally {
      await db.end();
    }
    assertError(
      await t.request({ method: 'GET', url: '/auth/me', headers: { 'x-session-token': token } }),
      401,
      'unauthorized',
    );
  });
});

describe('403 forbidden: an API key on a control-plane route', () => {
  for (const route of controlPlane) {
    test(route.name, async () => {
      const res = await t.request(withHeaders(route.request(a.platformId), { 'x-api-key': a.apiKey }));
      assertError(res, 403, 'forbidden');
    });
  }
  test('the company context and GET /users refuse a key with 403 forbidden too', async () => {
    const ctx = await t.request({
      method: 'POST',
      url: '/auth/company-context',
      headers: { 'x-api-key': a.apiKey },
      payload: { companyId: a.companyId },
    });
    assertError(ctx, 403, 'forbidden');
    const users = await t.request({
      method: 'GET',
      url: `/users?platformId=${a.platformId}&companyId=${a.companyId}`,
      headers: { 'x-api-key': a.apiKey },
    });
    assertError(users, 403, 'forbidden');
  });
});

describe('401 unauthorized: an API key on a session-only identity route', () => {
  test('GET /auth/me and POST /auth/logout', async () => {
    assertError(
      await t.request({ method: 'GET', url: '/auth/me', headers: { 'x-api-key': a.apiKey } }),
      401,
      'unauthorized',
    );
    assertError(
      await t.request({ method: 'POST', url: '/auth/logout', headers: { 'x-api-key': a.apiKey } }),
      401,
      'unauthorized',
    );
  });
});

describe('403 forbidden: a valid credential outside its scope', () => {
  for (const route of controlPlane) {
    test(`A's session on platform B: ${route.name}`, async () => {
      const res = await t.request(withHeaders(route.request(b.platformId), { 'x-session-token': a.sessionToken }));
      assertError(res, 403, 'forbidden');
    });
  }

  test('nothing of platform B changed through those refusals', async () => {
    const companies = await t.request({
      method: 'GET',
      url: `/platforms/${b.platformId}/companies`,
      headers: { 'x-session-token': b.sessionToken },
    });
    assert.deepEqual(
      (companies.json() as { items: { id: string }[] }).items.map((c) => c.id),
      [b.companyId],
    );
    const keys = await t.request({
      method: 'GET',
      url: `/platforms/${b.platformId}/api-keys`,
      headers: { 'x-session-token': b.sessionToken },
    });
    assert.deepEqual(
      (keys.json() as { items: { id: string }[] }).items.map((k) => k.id),
      [bKeyId],
    );
    const admins = await t.request({
      method: 'GET',
      url: `/platforms/${b.platformId}/admins`,
      headers: { 'x-session-token': b.sessionToken },
    });
    assert.equal((admins.json() as { items: unknown[] }).items.length, 1);
  });

  test("A's session on B's users, and A's key stating platform B or B's company", async () => {
    assertError(
      await t.request({
        method: 'GET',
        url: `/users?platformId=${b.platformId}&companyId=${b.companyId}`,
        headers: { 'x-session-token': a.sessionToken },
      }),
      403,
      'forbidden',
    );
    for (const platformId of [b.platformId, a.platformId]) {
      const res = await t.request({
        method: 'POST',
        url: '/users',
        headers: { 'x-api-key': a.apiKey },
        payload: { platformId, companyId: b.companyId, email: 'scope@example.com', name: 'S', roles: ['viewer'] },
      });
      assertError(res, 403, 'forbidden');
    }
  });

  test("A's session entering B's company is 404 (contract: company not in the admin's platform)", async () => {
    const res = await t.request({
      method: 'POST',
      url: '/auth/company-context',
      headers: { 'x-session-token': a.sessionToken },
      payload: { companyId: b.companyId },
    });
    assertError(res, 404, 'not_found');
  });
});

test('403 forbidden: a session on a key-only route', async () => {
  for (const url of ['/convert/demo', '/validate/demo', '/convert-async/demo']) {
    const res = await t.request({ method: 'POST', url, headers: { 'x-session-token': a.sessionToken }, payload: {} });
    assertError(res, 403, 'forbidden');
  }
});

test('403 admin_required: an API key on /connections', async () => {
  const res = await t.request({
    method: 'GET',
    url: `/connections?platformId=${a.platformId}&companyId=${a.companyId}`,
    headers: { 'x-api-key': a.apiKey },
  });
  assertError(res, 403, 'admin_required');
});
