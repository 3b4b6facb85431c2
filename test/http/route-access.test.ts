/**
 * The route access table, proved on every route the app registers (generated from the routes, so a
 * route added anywhere is covered without touching this file):
 * - every route has a line in the table, and every line names a registered route;
 * - without a credential every route answers 401, except those the table marks public;
 * - an API key and an admin session get what their column says;
 * - an OAuth token without the route's scope gets 403 insufficient_scope, one with it gets past the
 *   check, and on a route tokens never reach, even a token with every scope gets 403 forbidden.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { GRANTABLE_SCOPES, type Scope } from '../../src/domain/oauth/scopes.ts';
import {
  type Credentialed,
  isPublic,
  ROUTE_ACCESS,
  type RouteAccess,
  routeKey,
} from '../../src/http/access/route-access.ts';
import { registeredRoutes } from '../../src/http/plugins/auth.ts';
import { assertError, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { bearer, registerClient, tokensFor } from '../support/oauth.ts';

const TABLE_FILE = 'src/http/access/route-access.ts';

let t: TestApp;
let sandbox: Awaited<ReturnType<typeof provisionAndLogin>>;
/** For each scope, a token holding every other scope; and one token holding all of them. */
const withoutScope = new Map<Scope, string>();
let everyScope: string;

type Route = { key: string; method: string; url: string; access: RouteAccess };
const routes: Route[] = [];

before(async () => {
  // With metrics, so GET /metrics (served on the API port unless METRICS_PORT is set) is registered.
  t = await startTestApp({ metrics: true });
  sandbox = await provisionAndLogin(t);
  const seen = new Set<string>();
  for (const { method, url } of registeredRoutes(t.app)) {
    const key = routeKey(method, url);
    if (seen.has(key)) continue;
    seen.add(key);
    routes.push({ key, method: method === 'HEAD' ? 'GET' : method, url, access: ROUTE_ACCESS[key]! });
  }
  const redirectUri = 'http://127.0.0.1:49152/callback';
  const client = await registerClient(t, sandbox, [redirectUri]);
  const target = { clientId: client.clientId, redirectUri };
  everyScope = (await tokensFor(t, sandbox, target, GRANTABLE_SCOPES.join(' '))).access_token;
  for (const scope of GRANTABLE_SCOPES) {
    const others = GRANTABLE_SCOPES.filter((s) => s !== scope).join(' ');
    withoutScope.set(scope, (await tokensFor(t, sandbox, target, others)).access_token);
  }
});
after(() => t.close());

/** The line to add for a route, with the safest answers (session only) for the author to adjust. */
function suggestedLine(route: { method: string; url: string }): string {
  const sessionOnlyIdentity = /^\/(auth|me|2fa)(\/|$)/.test(route.url);
  const key = sessionOnlyIdentity
    ? 'unauthorized'
    : route.url.startsWith('/connections')
      ? 'admin_required'
      : 'forbidden';
  return `  '${routeKey(route.method, route.url)}': { key: '${key}', session: 'accept', token: 'never' },`;
}

const HOW_TO_CHOOSE = `Each line says what each credential gets on the route:
  key: 'accept' | 'forbidden' | 'admin_required' | 'unauthorized'   (the contract's Failure table)
  session: 'accept' | 'forbidden'
  token: one of ${GRANTABLE_SCOPES.map((s) => `'${s}'`).join(', ')} (DESIGN.md, OAuth: scope per route), or 'never'
  or PUBLIC for a route that needs no credential. The suggestions above open the route to an admin session only.`;

/** A request to a route, its path parameters filled in with placeholders. */
function requestTo(route: Route, headers: Record<string, string> = {}): InjectOptions {
  const url = route.url.replace(/:[A-Za-z]+/g, 'x').replace(/\*$/, 'x');
  return { method: route.method as InjectOptions['method'], url, headers };
}

describe('the table covers the app', () => {
  test('every registered route has a line in the route access table', () => {
    const missing = routes.filter((r) => r.access === undefined);
    assert.equal(
      missing.length,
      0,
      `${missing.length} route(s) have no line in the route access table (${TABLE_FILE}), so they refuse every credential. Add:\n${missing.map(suggestedLine).join('\n')}\n${HOW_TO_CHOOSE}`,
    );
  });

  test('every line of the table names a registered route', () => {
    const registered = new Set(routes.map((r) => r.key));
    const stale = Object.keys(ROUTE_ACCESS).filter((key) => !registered.has(key));
    assert.deepEqual(stale, [], `remove these lines from ${TABLE_FILE}: no such route is registered`);
  });
});

function credentialed(): (Route & { access: Credentialed })[] {
  return routes.filter((r): r is Route & { access: Credentialed } => r.access !== undefined && !isPublic(r.access));
}

/** Whether the auth layer let the request through (whatever the route then answered). */
function passedAuth(res: LightMyRequestResponse): boolean {
  if (res.statusCode === 401) return false;
  if (res.statusCode !== 403) return true;
  const code = (res.json() as { error?: { code?: string; message?: string } }).error;
  return !(
    code?.code === 'insufficient_scope' ||
    code?.code === 'admin_required' ||
    code?.message === 'installed-application tokens cannot use this route' ||
    code?.message === 'API keys cannot use this route; use an admin session' ||
    code?.message === 'this route takes an API key, not a session'
  );
}

describe('without a credential', () => {
  test('every route answers 401 unauthorized, except the public ones', async () => {
    for (const route of credentialed()) {
      if (route.access.optional) continue;
      const res = await t.request(requestTo(route));
      assertError(res, 401, 'unauthorized');
      if (route.access.token !== 'never') {
        assert.match(String(res.headers['www-authenticate']), /^Bearer realm="payops"/, route.key);
      }
    }
  });

  test('public routes answer without one', async () => {
    for (const route of routes.filter((r) => r.access !== undefined && isPublic(r.access))) {
      const res = await t.request({ ...requestTo(route), remoteAddress: '10.250.0.1' });
      assert.notEqual(res.statusCode, 401, `${route.key}: ${res.body.slice(0, 200)}`);
    }
  });
});

describe('an API key and an admin session get what the table says', () => {
  test('API key', async () => {
    for (const route of credentialed()) {
      const res = await t.request(requestTo(route, { 'x-api-key': sandbox.apiKey }));
      const answer = route.access.key;
      if (answer === 'accept') assert.ok(passedAuth(res), `${route.key} refused a key: ${res.body}`);
      else if (answer === 'unauthorized') assertError(res, 401, 'unauthorized');
      else assertError(res, 403, answer);
    }
  });

  test('admin session', async () => {
    let address = 0;
    for (const route of credentialed()) {
      // A session of its own per route: the sweep passes POST /auth/logout.
      const login = await t.request({
        method: 'POST',
        url: '/auth/login',
        payload: { email: sandbox.dashboardLogin.email, password: sandbox.dashboardLogin.password },
        remoteAddress: `10.251.0.${++address}`,
      });
      const session = (login.json() as { sessionToken: string }).sessionToken;
      const res = await t.request(requestTo(route, { 'x-session-token': session }));
      if (route.access.session === 'accept') assert.ok(passedAuth(res), `${route.key} refused a session: ${res.body}`);
      else assertError(res, 403, 'forbidden');
    }
  });
});

describe('an OAuth access token', () => {
  test("without the route's scope: 403 insufficient_scope with WWW-Authenticate", async () => {
    for (const route of credentialed()) {
      const scope = route.access.token;
      if (scope === 'never') continue;
      const res = await t.request(requestTo(route, bearer(withoutScope.get(scope)!)));
      const error = assertError(res, 403, 'insufficient_scope');
      assert.deepEqual(error.details, { requiredScope: scope }, route.key);
      assert.equal(
        res.headers['www-authenticate'],
        `Bearer realm="payops", error="insufficient_scope", scope="${scope}"`,
        route.key,
      );
    }
  });

  test("with the route's scope: let through", async () => {
    for (const route of credentialed()) {
      if (route.access.token === 'never') continue;
      const res = await t.request(requestTo(route, bearer(everyScope)));
      assert.ok(passedAuth(res), `${route.key} refused a token with ${route.access.token}: ${res.body}`);
    }
  });

  test('on a never-delegable route: 403 forbidden even with every scope', async () => {
    const never = credentialed().filter((r) => r.access.token === 'never');
    assert.ok(never.length > 20);
    for (const route of never) {
      const res = await t.request(requestTo(route, bearer(everyScope)));
      const error = assertError(res, 403, 'forbidden');
      assert.equal(error.message, 'installed-application tokens cannot use this route', route.key);
    }
  });

  test('webhooks:manage opens no route', () => {
    const opened = credentialed().filter((r) => r.access.token === 'webhooks:manage');
    assert.deepEqual(
      opened.map((r) => r.key),
      [],
    );
  });

  test('an unknown, malformed or wrong-scheme token is 401 with error="invalid_token"', async () => {
    const route = credentialed().find((r) => r.key === 'GET /journal/documents')!;
    for (const authorization of [`Bearer oat_${'0'.repeat(64)}`, 'Bearer nonsense', 'Basic dXNlcjpwYXNz', 'Bearer']) {
      const res = await t.request(requestTo(route, { authorization }));
      assertError(res, 401, 'unauthorized');
      if (authorization.startsWith('Bearer oat_') || authorization === 'Bearer nonsense') {
        assert.match(String(res.headers['www-authenticate']), /error="invalid_token"/);
      }
    }
  });

  test('two credentials on one request are refused', async () => {
    const route = credentialed().find((r) => r.key === 'GET /profiles')!;
    const res = await t.request(requestTo(route, { ...bearer(everyScope), 'x-api-key': sandbox.apiKey }));
    assertError(res, 401, 'unauthorized');
  });
});
