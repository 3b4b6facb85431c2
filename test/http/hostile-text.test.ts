/**
 * The 500s of issue 41 (item 6) answer 400 with the contract's codes, refused where every route's
 * input passes (src/http/plugins: the input guard, the JSON body parser, the form parser), not per
 * route: a lone UTF-16 surrogate in a JSON text (a company name, an API key label: PostgreSQL's jsonb
 * and its text refuse it); NUL, `1e400` and nesting deeper than 64 in a JSON body sent to the OAuth
 * token and revocation endpoints (400 `invalid_request` in RFC 6749's flat shape, not
 * `server_error`); NUL in a dashboard form (the company switcher).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { post, signIn } from '../dashboard/support.ts';
import { assertError, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';

let t: TestApp;
let sandbox: Awaited<ReturnType<typeof provisionAndLogin>>;
before(async () => {
  t = await startTestApp();
  sandbox = await provisionAndLogin(t);
});
after(async () => t.close());

const json = (url: string, body: string, headers: Record<string, string> = {}) =>
  t.request({ method: 'POST', url, headers: { 'content-type': 'application/json', ...headers }, payload: body });

test('a lone surrogate in a company name or an API key label: 400 bad_request naming the field', async () => {
  const session = { 'x-session-token': sandbox.sessionToken };
  for (const lone of ['\\ud800', '\\udfff', 'a\\udc00b', '\\ud83d']) {
    const company = await json(`/platforms/${sandbox.platformId}/companies`, `{"name":"Lone ${lone} Oy"}`, session);
    assert.deepEqual(assertError(company, 400, 'bad_request').details, { field: 'body.name' });
    const key = await json(`/platforms/${sandbox.platformId}/api-keys`, `{"label":"${lone}"}`, session);
    assert.deepEqual(assertError(key, 400, 'bad_request').details, { field: 'body.label' });
  }
  // A pair is one character, welcome anywhere.
  const paired = await json(`/platforms/${sandbox.platformId}/api-keys`, '{"label":"ERP \\ud83d\\ude00"}', session);
  assert.equal(paired.statusCode, 201, paired.body);
});

test('NUL, 1e400 and deep nesting in a JSON body to /oauth/token and /oauth/revoke: 400 invalid_request', async () => {
  const bodies = [
    '{"grant_type":"refresh_token","refresh_token":"a\\u0000b","client_id":"x"}',
    '{"token":"\\u0000"}',
    '{"grant_type":"refresh_token","refresh_token":1e400}',
    '{"token":-1e400}',
    `${'['.repeat(65)}${']'.repeat(65)}`,
    `{"token":${'{"a":'.repeat(70)}1${'}'.repeat(70)}}`,
    '{"token":"\\ud800"}',
  ];
  for (const url of ['/oauth/token', '/oauth/revoke']) {
    for (const body of bodies) {
      const res = await json(url, body);
      assert.equal(res.statusCode, 400, `${url} ${body.slice(0, 60)}: ${res.body}`);
      const answer = res.json() as { error: unknown; error_description: unknown };
      assert.equal(answer.error, 'invalid_request', res.body);
      assert.equal(typeof answer.error_description, 'string');
    }
  }
});

test('NUL in a dashboard form (the company switcher): 400, nothing changed', async () => {
  const browser = await signIn(t, sandbox.dashboardLogin.email, sandbox.dashboardLogin.password);
  for (const companyId of ['\u0000', `${sandbox.companyId}\u0000`]) {
    const res = await post(t, browser, '/dashboard/company', { companyId });
    assert.equal(res.statusCode, 400, res.body.slice(0, 300));
    assert.match(String(res.headers['content-type']), /text\/html/);
  }
  // The form still works with a real company.
  const switched = await post(t, browser, '/dashboard/company', { companyId: sandbox.companyId });
  assert.equal(switched.statusCode, 303, switched.body.slice(0, 300));
});
