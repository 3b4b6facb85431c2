/**
 * Cross-cutting HTTP behaviour (contract: Errors, Versioning; DESIGN.md decisions): the error
 * envelope for each error class, X-Request-ID, Service-Version, the /api alias, 5xx hygiene, and the
 * generated OpenAPI document and docs UI.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BODY_LIMIT_BYTES } from '../../src/http/app.ts';
import { MAX_JSON_DEPTH } from '../../src/http/plugins/body-parsers.ts';
import { assertError, body, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';

type Sandbox = Awaited<ReturnType<typeof provisionAndLogin>>;
type Res = Awaited<ReturnType<TestApp['request']>>;

const BASELINE = '2026-06-01';
const GENERATED_ID = /^req_[0-9a-f]{24}$/;

let t: TestApp;
let sb: Sandbox;

before(async () => {
  t = await startTestApp();
  sb = await provisionAndLogin(t);
});
after(() => t.close());

const nested = (depth: number) => `{"email":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)},"password":"x"}`;

/** One response of each kind: success and every error class the foundation can produce. */
const samples: Record<string, () => Promise<Res>> = {
  '200': () => t.request({ method: 'GET', url: '/health' }),
  '201': () =>
    t.request({
      method: 'POST',
      url: `/platforms/${sb.platformId}/companies`,
      headers: { 'x-session-token': sb.sessionToken },
      payload: { name: 'Header Co' },
    }),
  '400 invalid_json': () =>
    t.request({
      method: 'POST',
      url: '/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: '{"email":',
    }),
  '400 validation_failed': () => t.request({ method: 'POST', url: '/auth/login', payload: { email: 'x' } }),
  '400 invalid_service_version': () =>
    t.request({ method: 'GET', url: '/health', headers: { 'service-version': 'yesterday' } }),
  '401': () => t.request({ method: 'GET', url: '/auth/me' }),
  '403': () =>
    t.request({ method: 'GET', url: `/platforms/${sb.platformId}/companies`, headers: { 'x-api-key': sb.apiKey } }),
  '404': () => t.request({ method: 'GET', url: '/no/such/route' }),
  '405': () => t.request({ method: 'DELETE', url: '/health' }),
  '413': () =>
    t.request({
      method: 'POST',
      url: '/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: `{"email":"${'a'.repeat(BODY_LIMIT_BYTES)}","password":"x"}`,
    }),
  '415': () =>
    t.request({ method: 'POST', url: '/auth/login', headers: { 'content-type': 'image/png' }, payload: 'png' }),
};

describe('error envelope per error class', () => {
  test('unknown route: 404 not_found, also under /api and for other methods', async () => {
    for (const [method, url] of [
      ['GET', '/no/such/route'],
      ['POST', '/no/such/route'],
      ['GET', '/api/no/such/route'],
      ['GET', '/api'],
      ['GET', '/apihealth'],
    ] as const) {
      const error = assertError(await t.request({ method, url }), 404, 'not_found');
      assert.ok(!error.message.includes('Route'), 'not the framework message');
    }
  });

  test('wrong method: 405 method_not_allowed with Allow', async () => {
    const health = await t.request({ method: 'DELETE', url: '/health' });
    assertError(health, 405, 'method_not_allowed');
    assert.equal(health.headers.allow, 'GET');
    const companies = await t.request({ method: 'PUT', url: `/platforms/${sb.platformId}/companies` });
    assertError(companies, 405, 'method_not_allowed');
    assert.deepEqual(String(companies.headers.allow).split(', ').sort(), ['GET', 'POST']);
    const viaApi = await t.request({ method: 'PATCH', url: '/api/auth/company-context' });
    assertError(viaApi, 405, 'method_not_allowed');
    assert.deepEqual(String(viaApi.headers.allow).split(', ').sort(), ['DELETE', 'POST']);
  });

  test('malformed or empty JSON: 400 invalid_json', async () => {
    for (const payload of ['{"email":', '{email: "x"}', 'not json', '{"a":1}}']) {
      const res = await t.request({
        method: 'POST',
        url: '/auth/login',
        headers: { 'content-type': 'application/json' },
        payload,
      });
      assertError(res, 400, 'invalid_json');
    }
    const empty = await t.request({
      method: 'POST',
      url: `/platforms/${sb.platformId}/companies`,
      headers: { 'content-type': 'application/json', 'x-session-token': sb.sessionToken },
      payload: '',
    });
    assertError(empty, 400, 'invalid_json');
  });

  test('prototype poisoning in JSON is refused with 400, not merged', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: '{"email":"a@b.co","password":"x","__proto__":{"admin":true}}',
    });
    assert.equal(res.statusCode, 400, res.body);
    assertError(res, 400, 'invalid_json');
  });

  test(`a body over ${BODY_LIMIT_BYTES} bytes: 413 payload_too_large in the envelope`, async () => {
    assertError(await samples['413']!(), 413, 'payload_too_large');
  });

  test(`JSON nested deeper than ${MAX_JSON_DEPTH}: 400; exactly ${MAX_JSON_DEPTH} is parsed`, async () => {
    assert.equal(MAX_JSON_DEPTH, 64);
    const post = (payload: string) =>
      t.request({ method: 'POST', url: '/auth/login', headers: { 'content-type': 'application/json' }, payload });
    const deep = assertError(await post(nested(65)), 400, 'bad_request');
    assert.match(deep.message, /64/);
    // 64 levels pass the depth check and reach schema validation (email must be a string).
    assertError(await post(nested(64)), 400, 'validation_failed');
    // Brackets inside strings do not count.
    const inString = await post(`{"email":"${'['.repeat(200)}","password":"x"}`);
    assertError(inString, 401, 'unauthorized');
  });

  test('schema violations: 400 validation_failed with details.issues naming the field', async () => {
    const res = await t.request({ method: 'POST', url: '/auth/login', payload: { email: 'x' } });
    const error = assertError(res, 400, 'validation_failed');
    const issues = error.details?.issues as { path: string; message: string; field?: string }[];
    assert.ok(Array.isArray(issues) && issues.length > 0);
    assert.ok(
      issues.some((i) => i.field === 'password'),
      JSON.stringify(issues),
    );
  });

  test('an unsupported content type: 415 unsupported_media_type', async () => {
    assertError(await samples['415']!(), 415, 'unsupported_media_type');
  });

  test('a 500 says nothing internal: internal_error, no stack, no driver message', async () => {
    const broken = await startTestApp();
    try {
      const login = await provisionAndLogin(broken);
      await broken.ctx.db.$client.end(); // the database is gone from under the app
      const res = await broken.request({
        method: 'GET',
        url: '/auth/me',
        headers: { 'x-session-token': login.sessionToken, 'x-request-id': 'trace-500' },
      });
      const error = assertError(res, 500, 'internal_error');
      assert.deepEqual(Object.keys(res.json() as object), ['error']);
      assert.equal(error.details, undefined);
      assert.doesNotMatch(res.body, /pool|postgres|select|sql|stack|\.ts|node_modules|Error:/i);
      assert.equal(res.headers['x-request-id'], 'trace-500');
      assert.equal(res.headers['service-version'], BASELINE);
      assert.match(String(res.headers['content-type']), /^application\/json/);
    } finally {
      // Closing the pool a second time fails; the run's clean-up drops the database.
      await broken.close().catch(() => {});
    }
  });
});

describe('X-Request-ID', () => {
  test('every response carries one, success and error alike; each request gets its own', async () => {
    const ids = new Set<string>();
    for (const [name, send] of Object.entries(samples)) {
      const res = await send();
      const id = res.headers['x-request-id'];
      assert.equal(typeof id, 'string', `${name} has X-Request-ID`);
      assert.match(id as string, GENERATED_ID, name);
      ids.add(id as string);
    }
    assert.equal(ids.size, Object.keys(samples).length, 'ids are unique');
  });

  test('a well-formed incoming id is reused, on success and on error', async () => {
    for (const id of ['abc-123', 'a.b_c:d@e-F', 'x'.repeat(128), '550e8400-e29b-41d4-a716-446655440000']) {
      const ok = await t.request({ method: 'GET', url: '/health', headers: { 'x-request-id': id } });
      assert.equal(ok.headers['x-request-id'], id);
      const failed = await t.request({ method: 'GET', url: '/nope', headers: { 'x-request-id': id } });
      assert.equal(failed.headers['x-request-id'], id);
    }
  });

  test('a malformed incoming id is replaced by a fresh one', async () => {
    for (const id of ['has space', 'x'.repeat(129), '<script>', 'a/b', 'ünïcode', '']) {
      const res = await t.request({ method: 'GET', url: '/health', headers: { 'x-request-id': id } });
      assert.match(String(res.headers['x-request-id']), GENERATED_ID, JSON.stringify(id));
    }
  });
});

describe('Service-Version', () => {
  test(`echoed on every response including errors; the baseline ${BASELINE} without a header`, async () => {
    for (const [name, send] of Object.entries(samples)) {
      const res = await send();
      assert.equal(res.headers['service-version'], BASELINE, name);
    }
  });

  test('a pinned date is served by the newest version on or before it', async () => {
    for (const pinned of [BASELINE, '2026-12-31', '2030-01-01', ` ${BASELINE} `]) {
      const res = await t.request({ method: 'GET', url: '/health', headers: { 'service-version': pinned } });
      assert.equal(res.statusCode, 200, pinned);
      assert.equal(res.headers['service-version'], BASELINE);
    }
  });

  test('a malformed date: 400 invalid_service_version, still echoing the baseline', async () => {
    for (const bad of ['2026-02-30', 'yesterday', '2026-6-1', '2026-13-01', '20260601', '2026-06-01T00:00:00Z']) {
      const res = await t.request({ method: 'GET', url: '/health', headers: { 'service-version': bad } });
      assertError(res, 400, 'invalid_service_version');
      assert.equal(res.headers['service-version'], BASELINE, bad);
      assert.match(String(res.headers['x-request-id']), GENERATED_ID);
    }
    // Checked before authentication: the version error wins over a missing credential.
    const res = await t.request({ method: 'GET', url: '/auth/me', headers: { 'service-version': '2026-02-30' } });
    assertError(res, 400, 'invalid_service_version');
  });
});

describe('/api prefix', () => {
  test('public routes answer the same under /api', async () => {
    for (const path of ['/health', '/version', '/ready', '/fx/rates']) {
      const plain = await t.request({ method: 'GET', url: path });
      const prefixed = await t.request({ method: 'GET', url: `/api${path}` });
      assert.equal(prefixed.statusCode, 200, path);
      assert.deepEqual(prefixed.json(), plain.json(), path);
    }
    const withQuery = await t.request({ method: 'GET', url: '/api/health?x=1' });
    assert.deepEqual(withQuery.json(), { status: 'ok' });
  });

  test('authenticated routes too: /api/auth/me with a session, /api/auth/login, control plane', async () => {
    const me = await t.request({ method: 'GET', url: '/api/auth/me', headers: { 'x-session-token': sb.sessionToken } });
    assert.equal(me.statusCode, 200, me.body);
    assert.equal(body<{ platformId: string }>(me).platformId, sb.platformId);
    assertError(await t.request({ method: 'GET', url: '/api/auth/me' }), 401, 'unauthorized');
    const login = await t.request({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: sb.dashboardLogin.email, password: sb.dashboardLogin.password },
      remoteAddress: '10.250.0.1',
    });
    assert.equal(login.statusCode, 200, login.body);
    const companies = await t.request({
      method: 'GET',
      url: `/api/platforms/${sb.platformId}/companies`,
      headers: { 'x-session-token': sb.sessionToken },
    });
    assert.equal(companies.statusCode, 200);
    assert.ok(body<{ items: { id: string }[] }>(companies).items.some((c) => c.id === sb.companyId));
    const forbidden = await t.request({
      method: 'GET',
      url: `/api/platforms/${sb.platformId}/companies`,
      headers: { 'x-api-key': sb.apiKey },
    });
    assertError(forbidden, 403, 'forbidden');
  });
});

describe('OpenAPI and docs', () => {
  type Operation = {
    requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> };
    responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }>;
  };
  type OpenApi = {
    openapi: string;
    info: { version: string };
    paths: Record<string, Record<string, Operation>>;
    components: { securitySchemes: Record<string, unknown>; schemas?: Record<string, unknown> };
  };

  test('/openapi.json is OpenAPI 3.1 and lists every foundation route with its schemas', async () => {
    const res = await t.request({ method: 'GET', url: '/openapi.json' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    const doc = body<OpenApi>(res);
    assert.match(doc.openapi, /^3\.1\.\d+$/);
    assert.match(doc.info.version, /^0\.\d+\.\d+/);
    const expected: Record<string, string[]> = {
      '/health': ['get'],
      '/version': ['get'],
      '/ready': ['get'],
      '/fx/rates': ['get'],
      '/sandbox/provision': ['post'],
      '/auth/login': ['post'],
      '/auth/logout': ['post'],
      '/auth/me': ['get'],
      '/auth/company-context': ['post', 'delete'],
      '/auth/set-password': ['post'],
      '/platforms/{platformId}/companies': ['get', 'post'],
      '/platforms/{platformId}/api-keys': ['get', 'post'],
      '/platforms/{platformId}/api-keys/{keyId}': ['delete'],
      '/platforms/{platformId}/admins': ['get', 'post'],
      '/users': ['get', 'post'],
    };
    for (const [path, methods] of Object.entries(expected)) {
      assert.ok(doc.paths[path], `${path} is documented`);
      for (const m of methods) assert.ok(doc.paths[path]?.[m], `${m.toUpperCase()} ${path} is documented`);
    }
    assert.ok(!Object.keys(doc.paths).some((p) => p.startsWith('/api/')), 'the alias is not listed twice');
    assert.ok(doc.components.securitySchemes.apiKey && doc.components.securitySchemes.session);

    const login = doc.paths['/auth/login']!.post!;
    const loginBody = login.requestBody?.content['application/json']?.schema.properties ?? {};
    assert.deepEqual(Object.keys(loginBody).sort(), ['email', 'password']);
    const ok = JSON.stringify(login.responses['200']);
    for (const field of ['sessionToken', 'expiresAt', 'user']) assert.ok(ok.includes(field), field);
    const unauthorized = JSON.stringify(login.responses['401']);
    // The envelope of its status: the error-code table's 401 codes (test/http/openapi.test.ts).
    assert.ok(unauthorized.includes('#/components/schemas/Error401'), unauthorized);

    const createUser = doc.paths['/users']!.post!;
    const userFields = createUser.requestBody?.content['application/json']?.schema.properties ?? {};
    for (const field of ['platformId', 'companyId', 'email', 'name', 'roles', 'password']) {
      assert.ok(field in userFields, `POST /users documents ${field}`);
    }
    for (const status of ['201', '400', '401', '403']) assert.ok(createUser.responses[status], status);
    const companies = doc.paths['/platforms/{platformId}/companies']!.post!;
    assert.ok(JSON.stringify(companies.responses['201']).includes('company'));
  });

  test('/docs answers the HTML docs UI', async () => {
    let res = await t.request({ method: 'GET', url: '/docs' });
    for (let hops = 0; hops < 3 && res.statusCode >= 300 && res.statusCode < 400; hops++) {
      const location = String(res.headers.location);
      res = await t.request({ method: 'GET', url: location.startsWith('/') ? location : `/docs/${location}` });
    }
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.match(res.body, /<html/i);
    assert.match(res.body, /swagger/i);
  });
});
