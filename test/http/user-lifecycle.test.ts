/**
 * User lifecycle through HTTP on real PostgreSQL (DESIGN.md, Identity): re-role and rename, the API
 * key's limits, admin password reset, erasure, and the last-admin rule, including two demotions at once.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { assertError, body, nextIp, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';

type Sandbox = Awaited<ReturnType<typeof provisionAndLogin>>;
type UserOut = { id: string; email: string; name: string; roles: string[]; status: string };

let t: TestApp;
let db: pg.Pool;
let a: Sandbox;
let b: Sandbox;

before(async () => {
  t = await startTestApp();
  db = new pg.Pool({ connectionString: t.databaseUrl, max: 2 });
  a = await provisionAndLogin(t);
  b = await provisionAndLogin(t);
});
after(async () => {
  await db.end();
  await t.close();
});

const session = (token: string) => ({ 'x-session-token': token });
const apiKey = (key: string) => ({ 'x-api-key': key });
const uniqueEmail = (tag: string) => `${tag}-${randomBytes(4).toString('hex')}@example.com`;
const scopeOf = (sb: Sandbox) => ({ platformId: sb.platformId, companyId: sb.companyId });

async function createUser(roles: string[], password = 'Long-Enough-Password-1') {
  const email = uniqueEmail(roles.join('-'));
  const res = await t.request({
    method: 'POST',
    url: '/users',
    headers: session(a.sessionToken),
    payload: { ...scopeOf(a), email, name: 'Person', roles, password },
  });
  assert.equal(res.statusCode, 201, res.body);
  return { id: body<{ id: string }>(res).id, email, password };
}
async function loginToken(email: string, password: string): Promise<string> {
  const res = await t.request({
    method: 'POST',
    url: '/auth/login',
    payload: { email, password },
    remoteAddress: nextIp(),
  });
  assert.equal(res.statusCode, 200, res.body);
  return body<{ sessionToken: string }>(res).sessionToken;
}
const patch = (id: string, headers: Record<string, string>, payload: Record<string, unknown>, sb = a) =>
  t.request({ method: 'PATCH', url: `/users/${id}`, headers, payload: { ...scopeOf(sb), ...payload } });
const erase = (id: string, headers: Record<string, string>, sb = a) =>
  t.request({
    method: 'DELETE',
    url: `/users/${id}?platformId=${sb.platformId}&companyId=${sb.companyId}`,
    headers,
  });
const reset = (id: string, headers: Record<string, string>, sb = a) =>
  t.request({ method: 'POST', url: `/users/${id}/reset-password`, headers, payload: scopeOf(sb) });

test('a company admin re-roles and renames; the change is audited', async () => {
  const user = await createUser(['approver']);
  const res = await patch(user.id, session(a.sessionToken), { roles: ['viewer'], name: '  New Name ' });
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(body<UserOut>(res), {
    id: user.id,
    email: user.email,
    name: 'New Name',
    roles: ['viewer'],
    status: 'active',
  });
  const audit = await db.query(
    `SELECT metadata FROM activity_events WHERE type = 'user.updated' AND metadata->>'userId' = $1`,
    [user.id],
  );
  assert.deepEqual(audit.rows[0].metadata.rolesAfter, ['viewer']);
  assert.deepEqual(audit.rows[0].metadata.rolesBefore, ['approver']);
  assertError(await patch(user.id, session(a.sessionToken), { roles: ['owner'] }), 400, 'bad_request');
  assertError(await patch(user.id, session(a.sessionToken), {}), 400, 'bad_request');
  assertError(await patch('usr_unknown', session(a.sessionToken), { name: 'x' }), 404, 'not_found');
  // Another tenant's admin, and a user of another company: refused, nothing changed.
  assertError(await patch(user.id, session(b.sessionToken), { roles: ['admin'] }), 403, 'forbidden');
  assertError(await patch(user.id, session(b.sessionToken), { roles: ['admin'] }, b), 404, 'not_found');
  const row = await db.query('SELECT roles FROM users WHERE id = $1', [user.id]);
  assert.deepEqual(row.rows[0].roles, ['viewer']);
});

test('an API key re-roles only among approver and viewer, never an admin, and may not reset or erase', async () => {
  const user = await createUser(['viewer']);
  const admin = await createUser(['admin']);
  const ok = await patch(user.id, apiKey(a.apiKey), { roles: ['approver'] });
  assert.equal(ok.statusCode, 200, ok.body);
  assert.deepEqual(body<UserOut>(ok).roles, ['approver']);
  assertError(await patch(user.id, apiKey(a.apiKey), { roles: ['admin'] }), 403, 'forbidden');
  assertError(await patch(admin.id, apiKey(a.apiKey), { roles: ['viewer'] }), 403, 'forbidden');
  assertError(await patch(user.id, apiKey(b.apiKey), { roles: ['viewer'] }), 403, 'forbidden');
  assertError(await reset(user.id, apiKey(a.apiKey)), 403, 'forbidden');
  assertError(await erase(user.id, apiKey(a.apiKey)), 403, 'forbidden');
  const row = await db.query('SELECT roles, status FROM users WHERE id = $1', [admin.id]);
  assert.deepEqual(row.rows[0], { roles: ['admin'], status: 'active' });
});

test('reset-password ends the old password and the sessions, and mails a one-time token', async () => {
  const user = await createUser(['approver']);
  const token = await loginToken(user.email, user.password);
  const res = await reset(user.id, session(a.sessionToken));
  assert.equal(res.statusCode, 200, res.body);
  assertError(await t.request({ method: 'GET', url: '/auth/me', headers: session(token) }), 401, 'unauthorized');
  assertError(
    await t.request({
      method: 'POST',
      url: '/auth/login',
      payload: { email: user.email, password: user.password },
      remoteAddress: nextIp(),
    }),
    401,
    'unauthorized',
  );
  const mail = t.mails.findLast((m) => m.to === user.email);
  assert.ok(mail);
  const resetToken = /inv_[0-9a-f]{64}/.exec(mail.text)?.[0];
  assert.ok(resetToken);
  const set = await t.request({
    method: 'POST',
    url: '/auth/set-password',
    payload: { token: resetToken, password: 'Brand-New-Password-2' },
    remoteAddress: nextIp(),
  });
  assert.equal(set.statusCode, 200, set.body);
  await loginToken(user.email, 'Brand-New-Password-2');
  assertError(
    await t.request({
      method: 'POST',
      url: '/auth/set-password',
      payload: { token: resetToken, password: 'Another-One-3' },
      remoteAddress: nextIp(),
    }),
    400,
    'invalid_token',
  );
});

test('erase removes personal data, sessions and 2FA, keeps the id for the audit trail', async () => {
  const user = await createUser(['approver']);
  const token = await loginToken(user.email, user.password);
  await t.request({ method: 'POST', url: '/2fa/setup', headers: session(token) });
  const res = await erase(user.id, session(a.sessionToken));
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(body(res), { ok: true, id: user.id, status: 'erased' });
  const row = await db.query('SELECT name, email, password_hash, roles, status FROM users WHERE id = $1', [user.id]);
  assert.deepEqual(row.rows[0], {
    name: 'Erased user',
    email: `erased+${user.id}@invalid`,
    password_hash: null,
    roles: [],
    status: 'erased',
  });
  const twoFactor = await db.query('SELECT count(*)::int AS n FROM user_two_factor WHERE user_id = $1', [user.id]);
  assert.equal(twoFactor.rows[0].n, 0);
  assertError(await t.request({ method: 'GET', url: '/auth/me', headers: session(token) }), 401, 'unauthorized');
  assertError(
    await t.request({
      method: 'POST',
      url: '/auth/login',
      payload: { email: user.email, password: user.password },
      remoteAddress: nextIp(),
    }),
    401,
    'unauthorized',
  );
  const list = await t.request({
    method: 'GET',
    url: `/users?platformId=${a.platformId}&companyId=${a.companyId}`,
    headers: session(a.sessionToken),
  });
  assert.ok(!body<{ users: UserOut[] }>(list).users.some((u) => u.id === user.id));
  const events = await db.query(`SELECT type, message, metadata FROM activity_events WHERE metadata->>'userId' = $1`, [
    user.id,
  ]);
  assert.ok(events.rows.some((e) => e.type === 'user.erased'));
  assert.ok(!JSON.stringify(events.rows).includes(user.email), 'no audit event keeps the email');
  assertError(await erase(user.id, session(a.sessionToken)), 404, 'not_found');
  assertError(await patch(user.id, session(a.sessionToken), { name: 'Back' }), 404, 'not_found');
  // The address is free again for a new user.
  const again = await t.request({
    method: 'POST',
    url: '/users',
    headers: session(a.sessionToken),
    payload: {
      ...scopeOf(a),
      email: user.email,
      name: 'Someone',
      roles: ['viewer'],
      password: 'Long-Enough-Password-1',
    },
  });
  assert.equal(again.statusCode, 201, again.body);
});

test('the last admin of a company cannot be demoted or erased; two demotions at once leave one admin', async () => {
  const sb = await provisionAndLogin(t);
  const second = await t.request({
    method: 'POST',
    url: '/users',
    headers: session(sb.sessionToken),
    payload: {
      ...scopeOf(sb),
      email: uniqueEmail('admin2'),
      name: 'Second',
      roles: ['admin'],
      password: 'Long-Enough-Password-1',
    },
  });
  assert.equal(second.statusCode, 201);
  const secondId = body<{ id: string }>(second).id;
  const me = await t.request({ method: 'GET', url: '/auth/me', headers: session(sb.sessionToken) });
  const firstId = body<{ user: { id: string } }>(me).user.id;
  // The demotions come from a workspace admin in the company's context: no demotion changes what it
  // may do, so both requests reach the company lock and the rule decides them.
  const opsEmail = uniqueEmail('ops');
  const ops = await t.request({
    method: 'POST',
    url: `/platforms/${sb.platformId}/admins`,
    headers: session(sb.sessionToken),
    payload: { email: opsEmail, name: 'Ops', password: 'Long-Enough-Password-1' },
  });
  assert.equal(ops.statusCode, 201, ops.body);
  const opsToken = await loginToken(opsEmail, 'Long-Enough-Password-1');
  const context = await t.request({
    method: 'POST',
    url: '/auth/company-context',
    headers: session(opsToken),
    payload: { companyId: sb.companyId },
  });
  assert.equal(context.statusCode, 200, context.body);

  const outcomes = await Promise.all([
    patch(firstId, session(opsToken), { roles: ['viewer'] }, sb),
    patch(secondId, session(opsToken), { roles: ['viewer'] }, sb),
  ]);
  assert.deepEqual(outcomes.map((r) => r.statusCode).sort(), [200, 409], outcomes.map((r) => r.body).join(' | '));
  assertError(outcomes.find((r) => r.statusCode === 409)!, 409, 'last_admin');
  const admins = await db.query(
    `SELECT id FROM users WHERE company_id = $1 AND 'admin' = ANY(roles) AND status <> 'erased'`,
    [sb.companyId],
  );
  assert.equal(admins.rowCount, 1);
  const lastId = admins.rows[0].id as string;
  assertError(await patch(lastId, session(opsToken), { roles: ['approver'] }, sb), 409, 'last_admin');
  assertError(await erase(lastId, session(opsToken), sb), 409, 'last_admin');
  // Keeping admin among other roles is no demotion.
  assert.equal((await patch(lastId, session(opsToken), { roles: ['admin', 'approver'] }, sb)).statusCode, 200);
});
