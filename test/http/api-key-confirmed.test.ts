/**
 * A key found active is taken as active for KEY_CONFIRMED_FOR_MS without a lookup (docs/adr/0049):
 * revoked in this process, it stops at once; a revocation every process hears (NOTIFY) is
 * test/http/api-key-revocation.test.ts. One that no listener hears (a connection that died without
 * a word; here revoked with triggers off) stops once that time has passed on the app's clock; a
 * submit confirms it as before.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { KEY_CONFIRMED_FOR_MS } from '../../src/app/identity/authenticate.ts';
import { manualClock } from '../../src/platform/clock.ts';
import { assertError, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';

const clock = manualClock(new Date());
let t: TestApp;

before(async () => {
  t = await startTestApp({ clock });
});
after(async () => {
  await t?.close();
});

type Sandbox = Awaited<ReturnType<typeof provisionAndLogin>>;
const documents = (sb: Sandbox) =>
  t.request({
    method: 'GET',
    url: `/journal/documents?companyId=${sb.companyId}`,
    headers: { 'x-api-key': sb.apiKey },
  });
/** Revoked with triggers off (session_replication_role): no NOTIFY, as if the listener missed it. */
const revokeUnheard = (sb: Sandbox) =>
  t.ctx.db.transaction(async (tx) => {
    await tx.execute(sql`SET LOCAL session_replication_role = replica`);
    await tx.execute(sql`UPDATE api_keys SET revoked_at = now() WHERE platform_id = ${sb.platformId}`);
  });

test('a revocation no listener heard is refused once KEY_CONFIRMED_FOR_MS has passed', async () => {
  const sb = await provisionAndLogin(t);
  assert.equal((await documents(sb)).statusCode, 200);
  await revokeUnheard(sb);
  // Within the time: answered from memory (this process has not seen the revocation).
  clock.advance(KEY_CONFIRMED_FOR_MS - 1);
  assert.equal((await documents(sb)).statusCode, 200);
  clock.advance(1);
  assertError(await documents(sb), 401, 'unauthorized');
  // Refused keys are not remembered: later requests are looked up (and refused) too.
  assertError(await documents(sb), 401, 'unauthorized');
});

test('a key revoked through the API in this process is refused at once', async () => {
  const sb = await provisionAndLogin(t);
  assert.equal((await documents(sb)).statusCode, 200);
  const keys = await t.request({
    method: 'GET',
    url: `/platforms/${sb.platformId}/api-keys`,
    headers: { 'x-session-token': sb.sessionToken },
  });
  assert.equal(keys.statusCode, 200, keys.body);
  for (const k of (keys.json() as { items: Array<{ id: string }> }).items) {
    const res = await t.request({
      method: 'DELETE',
      url: `/platforms/${sb.platformId}/api-keys/${k.id}`,
      headers: { 'x-session-token': sb.sessionToken },
    });
    assert.equal(res.statusCode, 200, res.body);
  }
  assertError(await documents(sb), 401, 'unauthorized');
});

test('a submit within the time still confirms its key: 401 once revoked unheard', async () => {
  const sb = await provisionAndLogin(t);
  assert.equal((await documents(sb)).statusCode, 200);
  await revokeUnheard(sb);
  const res = await t.request({
    method: 'POST',
    url: '/journal/payments',
    headers: { 'x-api-key': sb.apiKey },
    payload: sb.firstPayment.body,
  });
  assertError(res, 401, 'unauthorized');
});
