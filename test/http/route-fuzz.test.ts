/**
 * No 5xx for any client input (issue 26): every route of /openapi.json is walked with generated
 * inputs (src of the generator: test/support/route-fuzz.ts) under a fixed seed, and every answer must
 * be a 4xx in the error envelope or a success; the server is healthy and ready afterwards. The long
 * run is `npm run fuzz:routes` (FUZZ_RUNS requests per route, FUZZ_SEED to vary the inputs). Since
 * issue 41 the inputs include lone surrogates, NUL, huge exponents and deep nesting spliced raw into
 * every JSON body, and the dashboard's form routes are fuzzed too (signed in, with their CSRF token).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ROUTE_ACCESS } from '../../src/http/access/route-access.ts';
import { signIn } from '../dashboard/support.ts';
import { assertError, nextIp, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { fuzzDashboardForms, fuzzRoutes } from '../support/route-fuzz.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_126);
const RUNS = Number(process.env.FUZZ_RUNS ?? 12);

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(async () => t.close());

test(`every route answers generated inputs without a 5xx (seed ${SEED}, ${RUNS} requests per route)`, async (c) => {
  const sandbox = await provisionAndLogin(t);
  const result = await fuzzRoutes(
    t,
    {
      apiKey: sandbox.apiKey,
      sessionToken: sandbox.sessionToken,
      platformId: sandbox.platformId,
      companyId: sandbox.companyId,
    },
    { seed: SEED, runsPerRoute: RUNS, remoteAddress: nextIp },
  );
  c.diagnostic(
    `${result.operations} operations, ${result.requests} requests, ${result.findings.length} findings; statuses ${JSON.stringify(result.statuses)}`,
  );
  assert.ok(result.operations >= 60, `only ${result.operations} operations in /openapi.json`);
  const shown = (text: string) => (text.length > 160 ? `${text.slice(0, 150)}...(${text.length} chars)` : text);
  assert.deepEqual(
    result.findings.map(
      (f) => `${f.method} ${shown(f.url)} -> ${f.status} ${f.body} ${shown(JSON.stringify(f.payload) ?? '')}`,
    ),
    [],
  );
  assert.equal((await t.request({ method: 'GET', url: '/health' })).statusCode, 200);
  const ready = await t.request({ method: 'GET', url: '/ready' });
  assert.equal(ready.statusCode, 200, ready.body);
});

test(`the dashboard's forms answer generated inputs without a 5xx (seed ${SEED}, ${RUNS} requests per form)`, async (c) => {
  const sandbox = await provisionAndLogin(t);
  const browser = await signIn(t, sandbox.dashboardLogin.email, sandbox.dashboardLogin.password);
  const result = await fuzzDashboardForms(
    t,
    {
      apiKey: sandbox.apiKey,
      sessionToken: sandbox.sessionToken,
      platformId: sandbox.platformId,
      companyId: sandbox.companyId,
    },
    browser,
    Object.keys(ROUTE_ACCESS),
    { seed: SEED, runsPerRoute: RUNS },
  );
  c.diagnostic(
    `${result.routes} form routes (${result.formsSeen} with the fields of a rendered form), ${result.requests} requests, ${result.findings.length} findings`,
  );
  assert.ok(result.routes >= 20, `only ${result.routes} dashboard form routes`);
  assert.deepEqual(
    result.findings.map((f) => `${f.method} ${f.url} -> ${f.status} ${f.payload}`),
    [],
  );
  assert.equal((await t.request({ method: 'GET', url: '/health' })).statusCode, 200);
});

test('the inputs that used to answer 500 now answer 4xx in the envelope', async () => {
  const sandbox = await provisionAndLogin(t);
  const key = { 'x-api-key': sandbox.apiKey };
  const session = { 'x-session-token': sandbox.sessionToken };
  const events = (since: string) => `/journal/events?companyId=${sandbox.companyId}&since=${since}`;
  for (const since of ['100000000000000000000', '9223372036854775807', '9007199254740992']) {
    assertError(await t.request({ method: 'GET', url: events(since), headers: key }), 400, 'validation_failed');
  }
  assert.equal((await t.request({ method: 'GET', url: events('9007199254740991'), headers: key })).statusCode, 200);
  for (const limit of ['Infinity', '1e309', '-Infinity']) {
    const res = await t.request({ method: 'GET', url: `/oauth/grants?limit=${limit}`, headers: session });
    assertError(res, 400, 'validation_failed');
  }
  const nul = await t.request({
    method: 'POST',
    url: `/webhooks/%00/test?companyId=${sandbox.companyId}`,
    headers: key,
  });
  assert.deepEqual(assertError(nul, 400, 'bad_request').details, { field: 'params.id' });
  const nulBody = await t.request({
    method: 'POST',
    url: `/platforms/${sandbox.platformId}/companies`,
    headers: session,
    payload: { name: 'Nul\u0000Co' },
  });
  assert.deepEqual(assertError(nulBody, 400, 'bad_request').details, { field: 'body.name' });
  const longId = await t.request({ method: 'GET', url: `/webhooks/${'x'.repeat(5000)}`, headers: key });
  assertError(longId, 414, 'uri_too_long');
  const badEncoding = await t.request({ method: 'GET', url: '/webhooks/%E0%A4%A', headers: key });
  assertError(badEncoding, 400, 'bad_request');
});
