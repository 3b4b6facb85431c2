import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

test('a provisioned sandbox key calls an authenticated route', async () => {
  const sandbox = await provisionAndLogin(t);
  const res = await t.request({
    method: 'GET',
    url: `/users?platformId=${sandbox.platformId}&companyId=${sandbox.companyId}`,
    headers: { 'x-session-token': sandbox.sessionToken },
  });
  assert.equal(res.statusCode, 200);
  assert.equal((res.json() as { users: unknown[] }).users.length, 1);
});
