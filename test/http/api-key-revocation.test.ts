/**
 * A revoked API key stops authenticating immediately in every API process (issue 41, contract:
 * "stops authenticating immediately"; docs/adr/0049): two app instances on one database, each with
 * its own pool and so its own kept keys, as two API processes. Each LISTENs for revocations
 * (src/db/functions/090_api_key_revoked_notify.sql): a key revoked through one is refused by the
 * other on the very next request, however recently that one found it active; while a listener is
 * not connected its process looks every key up, and once it is connected again it hears again.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { revocationWatchOf } from '../../src/app/identity/key-revocations.ts';
import { assertError, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { eventually } from '../support/server-process.ts';

let one: TestApp;
let two: TestApp;
/** Where each app listens: requests go over HTTP, as they reach two API processes. */
const base = new Map<TestApp, string>();
before(async () => {
  one = await startTestApp();
  two = await startTestApp({ databaseUrl: one.databaseUrl });
  for (const t of [one, two]) base.set(t, await t.app.listen({ port: 0, host: '127.0.0.1' }));
});
after(async () => {
  await two?.close();
  await one?.close();
});

type Sandbox = Awaited<ReturnType<typeof provisionAndLogin>>;
/** GET /journal/documents over HTTP: its status and body, as assertError reads them. */
async function documents(t: TestApp, sb: Sandbox, apiKey = sb.apiKey) {
  const res = await fetch(`${base.get(t)}/journal/documents?companyId=${sb.companyId}`, {
    headers: { 'x-api-key': apiKey },
  });
  const body = await res.text();
  return { statusCode: res.status, body, json: () => JSON.parse(body) as unknown };
}

async function revoke(sb: Sandbox, id: string): Promise<void> {
  const res = await fetch(`${base.get(one)}/platforms/${sb.platformId}/api-keys/${id}`, {
    method: 'DELETE',
    headers: { 'x-session-token': sb.sessionToken },
  });
  assert.equal(res.status, 200, await res.text());
}

async function newKey(sb: Sandbox): Promise<{ id: string; key: string }> {
  const res = await one.request({
    method: 'POST',
    url: `/platforms/${sb.platformId}/api-keys`,
    headers: { 'x-session-token': sb.sessionToken },
    payload: { label: 'revoked soon' },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json() as { id: string; key: string };
}

test('a key revoked through one API process is refused by the other on the very next request', async () => {
  const sb = await provisionAndLogin(one);
  for (let round = 0; round < 5; round++) {
    const { id, key } = await newKey(sb);
    // The other process found it active just now: it keeps it, and would for KEY_CONFIRMED_FOR_MS.
    assert.equal((await documents(two, sb, key)).statusCode, 200);
    assert.equal((await documents(two, sb, key)).statusCode, 200);
    await revoke(sb, id);
    assertError(await documents(two, sb, key), 401, 'unauthorized');
    assertError(await documents(one, sb, key), 401, 'unauthorized');
  }
  // The sandbox's own key was never revoked: still served, from either.
  assert.equal((await documents(two, sb)).statusCode, 200);
});

test('a key revoked in SQL by an operator is forgotten by every process as it commits', async (t) => {
  const sb = await provisionAndLogin(one);
  const { id, key } = await newKey(sb);
  assert.equal((await documents(one, sb, key)).statusCode, 200);
  assert.equal((await documents(two, sb, key)).statusCode, 200);
  const epochs = [revocationWatchOf(one.ctx.db)!.epoch, revocationWatchOf(two.ctx.db)!.epoch];
  await one.ctx.db.execute(sql`UPDATE api_keys SET revoked_at = now() WHERE id = ${id}`);
  const committed = performance.now();
  // Heard by both (the notification arrives a moment after the commit; nothing here waits 2 s).
  await eventually(
    () => revocationWatchOf(one.ctx.db)!.epoch > epochs[0]! && revocationWatchOf(two.ctx.db)!.epoch > epochs[1]!,
    1_000,
    'both processes heard the revocation',
    5,
  );
  t.diagnostic(
    `both processes heard the revocation within ${(performance.now() - committed).toFixed(1)} ms of its commit`,
  );
  assertError(await documents(one, sb, key), 401, 'unauthorized');
  assertError(await documents(two, sb, key), 401, 'unauthorized');
});

test('while its listener is disconnected a process looks every key up; reconnected, it hears again', async () => {
  const sb = await provisionAndLogin(one);
  const { id, key } = await newKey(sb);
  assert.equal((await documents(two, sb, key)).statusCode, 200);
  // The connection of every listener on this database is cut (as a failover or a network cut would).
  await one.ctx.db.execute(
    sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN api_key_revoked'`,
  );
  await eventually(() => revocationWatchOf(two.ctx.db)?.live === false, 5_000, 'the listener noticed the loss');
  // Revoked while nobody listens (triggers off, so not even a late notification): refused anyway.
  await one.ctx.db.transaction(async (tx) => {
    await tx.execute(sql`SET LOCAL session_replication_role = replica`);
    await tx.execute(sql`UPDATE api_keys SET revoked_at = now() WHERE id = ${id}`);
  });
  if (revocationWatchOf(two.ctx.db)?.live === false) {
    assertError(await documents(two, sb, key), 401, 'unauthorized');
  }
  await eventually(() => revocationWatchOf(two.ctx.db)?.live === true, 10_000, 'the listener reconnected');
  // The revoking process's listener was cut too: until it is back, its revoke answers without waiting
  // to hear the revocation, and the request to the other process below could outrun the notification.
  await eventually(() => revocationWatchOf(one.ctx.db)?.live === true, 10_000, "the revoker's listener reconnected");
  // Reconnected, what it kept before was forgotten, and revocations are heard again.
  assertError(await documents(two, sb, key), 401, 'unauthorized');
  const again = await newKey(sb);
  assert.equal((await documents(two, sb, again.key)).statusCode, 200);
  await revoke(sb, again.id);
  assertError(await documents(two, sb, again.key), 401, 'unauthorized');
});
