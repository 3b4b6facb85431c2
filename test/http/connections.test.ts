import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { allowProductionConnections, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';

let t: TestApp;
let sandbox: Awaited<ReturnType<typeof provisionAndLogin>>;
before(async () => {
  t = await startTestApp();
  sandbox = await provisionAndLogin(t);
  // Its production connections are under test: not a sandbox-only company.
  await allowProductionConnections(t, sandbox.companyId);
});
after(() => t.close());

const scope = () => `platformId=${sandbox.platformId}&companyId=${sandbox.companyId}`;
type Connection = { id: string; bankKey: string; environment: string; status: string; readiness: { ready: boolean } };

test('an API key on /connections is 403 admin_required', async () => {
  for (const [method, url] of [
    ['GET', `/connections?${scope()}`],
    ['POST', '/connections'],
    ['GET', `/connections/conn_x?${scope()}`],
  ] as const) {
    const res = await t.request({
      method,
      url,
      headers: { 'x-api-key': sandbox.apiKey },
      payload: method === 'POST' ? {} : undefined,
    });
    assert.equal(res.statusCode, 403, url);
    assert.equal((res.json() as { error: { code: string } }).error.code, 'admin_required');
  }
});

test('the sandbox has an active, ready demo-bank connection in the test environment', async () => {
  const res = await t.request({
    method: 'GET',
    url: `/connections?${scope()}`,
    headers: { 'x-session-token': sandbox.sessionToken },
  });
  assert.equal(res.statusCode, 200);
  const items = (res.json() as { items: Connection[] }).items;
  assert.equal(items.length, 1);
  assert.deepEqual(
    {
      bankKey: items[0]!.bankKey,
      environment: items[0]!.environment,
      status: items[0]!.status,
      ready: items[0]!.readiness.ready,
    },
    { bankKey: 'demo', environment: 'test', status: 'active', ready: true },
  );
  const one = await t.request({
    method: 'GET',
    url: `/connections/${items[0]!.id}?${scope()}`,
    headers: { 'x-session-token': sandbox.sessionToken },
  });
  assert.equal(one.statusCode, 200);
  assert.equal((one.json() as Connection).id, items[0]!.id);
});

test('POST /connections creates once and then returns the existing connection; unknown bank 404', async () => {
  const body = {
    platformId: sandbox.platformId,
    companyId: sandbox.companyId,
    bankKey: 'demo',
    environment: 'production',
  };
  const headers = { 'x-session-token': sandbox.sessionToken };
  const first = await t.request({ method: 'POST', url: '/connections', headers, payload: body });
  assert.equal(first.statusCode, 201, first.body);
  const second = await t.request({ method: 'POST', url: '/connections', headers, payload: body });
  assert.equal((second.json() as Connection).id, (first.json() as Connection).id);
  assert.equal(
    (first.json() as Connection).readiness.ready,
    false,
    'a host-to-host production connection awaits activation',
  );
  const unknown = await t.request({
    method: 'POST',
    url: '/connections',
    headers,
    payload: { ...body, bankKey: 'nope' },
  });
  assert.equal(unknown.statusCode, 404);
});

test('a connection of another company is 403 for this session', async () => {
  const other = await provisionAndLogin(t);
  const res = await t.request({
    method: 'GET',
    url: `/connections?platformId=${other.platformId}&companyId=${other.companyId}`,
    headers: { 'x-session-token': sandbox.sessionToken },
  });
  assert.equal(res.statusCode, 403);
  assert.equal((res.json() as { error: { code: string } }).error.code, 'forbidden');
});
