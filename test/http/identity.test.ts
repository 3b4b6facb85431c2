/**
 * Identity and tenancy routes (contract: Workspace admin, companies, keys, users; Authentication):
 * login, logout, /auth/me, company context, companies, API keys, workspace admins, users and
 * invites, each with its exact status, code and body shape.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { assertError, body, nextIp, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';

type Sandbox = Awaited<ReturnType<typeof provisionAndLogin>>;
type UserBody = {
  id: string;
  email: string;
  name: string;
  roles: string[];
  status: string;
  platformId: string;
  companyId: string | null;
  workspaceAdmin: boolean;
};
type LoginBody = { sessionToken: string; expiresAt: string; user: UserBody };
type Page<T> = { items: T[]; nextCursor: string | null };
type Company = { id: string; name: string; createdAt: string };
type KeyMeta = { id: string; label: string; createdAt: string; lastUsedAt: string | null };

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SESSION_TOKEN = /^st_[0-9a-f]{64}$/;
const RAW_KEY = /^key_[0-9a-f]{64}$/;
const INVITE_TOKEN = /inv_[0-9a-f]{64}/;

let t: TestApp;
let db: pg.Pool;
let a: Sandbox; // platform A: its admin is workspace admin and admin of A's company
let b: Sandbox; // platform B: another tenant

before(async () => {
  t = await startTestApp({ env: { BOOTSTRAP: 'true' } });
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

async function login(email: string, password: string, remoteAddress = nextIp()) {
  return t.request({ method: 'POST', url: '/auth/login', payload: { email, password }, remoteAddress });
}

async function loginOk(email: string, password: string): Promise<string> {
  const res = await login(email, password);
  assert.equal(res.statusCode, 200, res.body);
  return body<LoginBody>(res).sessionToken;
}

/** A user of A's company created by A's admin session (with a password: active). */
async function createActiveUser(roles: string[], companyId = a.companyId) {
  const email = uniqueEmail('member');
  const password = `pw-${randomBytes(8).toString('hex')}`;
  const res = await t.request({
    method: 'POST',
    url: '/users',
    headers: session(a.sessionToken),
    payload: { platformId: a.platformId, companyId, email, name: 'Member', roles, password },
  });
  assert.equal(res.statusCode, 201, res.body);
  return { id: body<{ id: string }>(res).id, email, password };
}

async function me(token: string) {
  return t.request({ method: 'GET', url: '/auth/me', headers: session(token) });
}

describe('login, logout, /auth/me', () => {
  test('a good login answers a session token, its expiry and the user', async () => {
    const before = Date.now();
    const res = await login(a.dashboardLogin.email, a.dashboardLogin.password);
    assert.equal(res.statusCode, 200, res.body);
    const out = body<LoginBody>(res);
    assert.deepEqual(Object.keys(out).sort(), ['expiresAt', 'sessionToken', 'user']);
    assert.match(out.sessionToken, SESSION_TOKEN);
    assert.match(out.expiresAt, ISO);
    const ttl = Date.parse(out.expiresAt) - before;
    assert.ok(ttl > 11.9 * 3600_000 && ttl <= 12 * 3600_000 + 5_000, `session lifetime ${ttl} ms`);
    assert.deepEqual(out.user, {
      id: out.user.id,
      email: a.dashboardLogin.email,
      name: 'Sandbox Admin',
      roles: ['admin'],
      status: 'active',
      platformId: a.platformId,
      companyId: a.companyId,
      workspaceAdmin: true,
    });
    assert.match(out.user.id, /^usr_/);
    assert.doesNotMatch(res.body, /passwordHash|argon2/);
  });

  test('the email is matched case-insensitively', async () => {
    const res = await login(`  ${a.dashboardLogin.email.toUpperCase()} `, a.dashboardLogin.password);
    assert.equal(res.statusCode, 200, res.body);
  });

  test('a wrong password and an unknown email both answer 401 unauthorized', async () => {
    assertError(await login(a.dashboardLogin.email, `${a.dashboardLogin.password}x`), 401, 'unauthorized');
    assertError(await login(uniqueEmail('nobody'), 'whatever-password'), 401, 'unauthorized');
  });

  test('a login body without a password is 400 validation_failed', async () => {
    const res = await t.request({ method: 'POST', url: '/auth/login', payload: { email: a.dashboardLogin.email } });
    const error = assertError(res, 400, 'validation_failed');
    assert.ok(Array.isArray(error.details?.issues));
  });

  test('/auth/me answers the session user, platform and company context', async () => {
    const res = await me(a.sessionToken);
    assert.equal(res.statusCode, 200, res.body);
    const out = body<{ user: UserBody; platformId: string; companyContextId: string | null }>(res);
    assert.deepEqual(Object.keys(out).sort(), ['companyContextId', 'platformId', 'user']);
    assert.equal(out.platformId, a.platformId);
    assert.equal(out.companyContextId, null);
    assert.equal(out.user.email, a.dashboardLogin.email);
    assert.equal(out.user.workspaceAdmin, true);
    assert.equal(out.user.status, 'active');
  });

  test('logout revokes only that session: it answers 401 afterwards, others live on', async () => {
    const token = await loginOk(a.dashboardLogin.email, a.dashboardLogin.password);
    assert.equal((await me(token)).statusCode, 200);
    const out = await t.request({ method: 'POST', url: '/auth/logout', headers: session(token) });
    assert.equal(out.statusCode, 200, out.body);
    assert.deepEqual(out.json(), { ok: true });
    assertError(await me(token), 401, 'unauthorized');
    assertError(await t.request({ method: 'POST', url: '/auth/logout', headers: session(token) }), 401, 'unauthorized');
    assert.equal((await me(a.sessionToken)).statusCode, 200, 'the other session of the same user is untouched');
  });

  test('logins are limited per IP and email: the 11th in 15 minutes is 429, another email is not', async () => {
    const ip = nextIp();
    const email = uniqueEmail('brute');
    for (let i = 0; i < 10; i++) assertError(await login(email, 'wrong-password', ip), 401, 'unauthorized');
    const limited = await login(email, 'wrong-password', ip);
    assertError(limited, 429, 'rate_limited');
    assert.match(String(limited.headers['retry-after']), /^\d+$/);
    // The limit is per IP and email: the admin of A still signs in from the same address.
    const other = await login(a.dashboardLogin.email, a.dashboardLogin.password, ip);
    assert.equal(other.statusCode, 200, other.body);
  });
});

describe('company context', () => {
  let second: Company;
  before(async () => {
    const res = await t.request({
      method: 'POST',
      url: `/platforms/${a.platformId}/companies`,
      headers: session(a.sessionToken),
      payload: { name: 'Second Company' },
    });
    assert.equal(res.statusCode, 201, res.body);
    second = body<{ company: Company }>(res).company;
  });

  const createIn = (token: string, companyId: string) =>
    t.request({
      method: 'POST',
      url: '/users',
      headers: session(token),
      payload: { platformId: a.platformId, companyId, email: uniqueEmail('ctx'), name: 'Ctx', roles: ['viewer'] },
    });

  test('a workspace admin enters a company, acts as its admin, and leaves it', async () => {
    const token = await loginOk(a.dashboardLogin.email, a.dashboardLogin.password);
    assertError(await createIn(token, second.id), 403, 'forbidden');

    const enter = await t.request({
      method: 'POST',
      url: '/auth/company-context',
      headers: session(token),
      payload: { companyId: second.id },
    });
    assert.equal(enter.statusCode, 200, enter.body);
    assert.deepEqual(enter.json(), { ok: true });
    assert.equal(body<{ companyContextId: string }>(await me(token)).companyContextId, second.id);
    assert.equal((await createIn(token, second.id)).statusCode, 201);

    const leave = await t.request({ method: 'DELETE', url: '/auth/company-context', headers: session(token) });
    assert.equal(leave.statusCode, 200, leave.body);
    assert.deepEqual(leave.json(), { ok: true });
    assert.equal(body<{ companyContextId: string | null }>(await me(token)).companyContextId, null);
    assertError(await createIn(token, second.id), 403, 'forbidden');
  });

  test('the context belongs to the session, not to the user', async () => {
    const token = await loginOk(a.dashboardLogin.email, a.dashboardLogin.password);
    await t.request({
      method: 'POST',
      url: '/auth/company-context',
      headers: session(token),
      payload: { companyId: second.id },
    });
    assert.equal(body<{ companyContextId: string | null }>(await me(a.sessionToken)).companyContextId, null);
  });

  test('a company of another platform, or an unknown one, is 404 not_found', async () => {
    for (const companyId of [b.companyId, 'comp_doesnotexist']) {
      const res = await t.request({
        method: 'POST',
        url: '/auth/company-context',
        headers: session(a.sessionToken),
        payload: { companyId },
      });
      assertError(res, 404, 'not_found');
    }
    assert.equal(body<{ companyContextId: string | null }>(await me(a.sessionToken)).companyContextId, null);
  });

  test('a user who is not a workspace admin gets 403 forbidden on enter and leave', async () => {
    const user = await createActiveUser(['admin']);
    const token = await loginOk(user.email, user.password);
    const enter = await t.request({
      method: 'POST',
      url: '/auth/company-context',
      headers: session(token),
      payload: { companyId: a.companyId },
    });
    assertError(enter, 403, 'forbidden');
    assertError(
      await t.request({ method: 'DELETE', url: '/auth/company-context', headers: session(token) }),
      403,
      'forbidden',
    );
  });

  test('an API key on the company context is 403 forbidden (control plane)', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/auth/company-context',
      headers: apiKey(a.apiKey),
      payload: { companyId: a.companyId },
    });
    assertError(res, 403, 'forbidden');
  });
});

describe('companies', () => {
  const post = (payload: Record<string, unknown>, token = a.sessionToken, platformId = a.platformId) =>
    t.request({ method: 'POST', url: `/platforms/${platformId}/companies`, headers: session(token), payload });
  const list = (query: string, token = a.sessionToken, platformId = a.platformId) =>
    t.request({ method: 'GET', url: `/platforms/${platformId}/companies${query}`, headers: session(token) });

  test('POST creates a company: 201 {company {id, name, createdAt}}', async () => {
    const res = await post({ name: '  Acme Oy  ' });
    assert.equal(res.statusCode, 201, res.body);
    const out = body<{ company: Company }>(res);
    assert.deepEqual(Object.keys(out), ['company']);
    assert.deepEqual(Object.keys(out.company).sort(), ['createdAt', 'id', 'name']);
    assert.match(out.company.id, /^comp_[0-9a-z]{26}$/);
    assert.equal(out.company.name, 'Acme Oy');
    assert.match(out.company.createdAt, ISO);
    const row = await db.query('SELECT platform_id FROM companies WHERE id = $1', [out.company.id]);
    assert.equal(row.rows[0]?.platform_id, a.platformId);
  });

  test('a name of exactly 200 characters is accepted, 201 is refused with 400', async () => {
    assert.equal((await post({ name: 'x'.repeat(200) })).statusCode, 201);
    assertError(await post({ name: 'x'.repeat(201) }), 400, 'bad_request');
  });

  test('an empty, blank or missing name is 400', async () => {
    assertError(await post({ name: '' }), 400, 'bad_request');
    assertError(await post({ name: '   ' }), 400, 'bad_request');
    assertError(await post({}), 400, 'validation_failed');
  });

  test('pages with an opaque cursor: every company once, nextCursor null at the end', async () => {
    const fresh = await provisionAndLogin(t);
    const created = [fresh.companyId];
    for (let i = 0; i < 6; i++) {
      const res = await post({ name: `Paged ${i}` }, fresh.sessionToken, fresh.platformId);
      created.push(body<{ company: Company }>(res).company.id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor ? `?limit=3&cursor=${encodeURIComponent(cursor)}` : '?limit=3';
      const res = await list(query, fresh.sessionToken, fresh.platformId);
      assert.equal(res.statusCode, 200, res.body);
      const out = body<Page<Company>>(res);
      assert.deepEqual(Object.keys(out).sort(), ['items', 'nextCursor']);
      assert.ok(out.items.length <= 3);
      for (const c of out.items) assert.deepEqual(Object.keys(c).sort(), ['createdAt', 'id', 'name']);
      seen.push(...out.items.map((c) => c.id));
      cursor = out.nextCursor;
      if (cursor !== null) assert.match(cursor, /^[A-Za-z0-9_-]+$/);
      pages++;
    } while (cursor !== null && pages < 10);
    assert.equal(pages, 3, '7 companies in pages of 3');
    assert.equal(new Set(seen).size, seen.length, 'no company twice');
    assert.deepEqual([...seen].sort(), [...created].sort());
    // Without a limit the whole list fits one page and ends with a null cursor.
    const all = body<Page<Company>>(await list('', fresh.sessionToken, fresh.platformId));
    assert.equal(all.items.length, 7);
    assert.equal(all.nextCursor, null);
    assert.ok(!all.items.some((c) => c.id === a.companyId), 'another platform never shows');
  });

  test('a malformed cursor is 400; a limit outside 1..1000 is 400', async () => {
    assertError(await list('?cursor=%25%25not-base64'), 400, 'bad_request');
    assertError(await list('?limit=0'), 400, 'validation_failed');
    assertError(await list('?limit=1001'), 400, 'validation_failed');
    assertError(await list('?limit=ten'), 400, 'validation_failed');
  });

  test('a company admin who is not a workspace admin gets 403 forbidden', async () => {
    const user = await createActiveUser(['admin']);
    const token = await loginOk(user.email, user.password);
    assertError(await list('', token), 403, 'forbidden');
    assertError(await post({ name: 'Nope' }, token), 403, 'forbidden');
  });
});

describe('API keys', () => {
  const keysUrl = (platformId = a.platformId) => `/platforms/${platformId}/api-keys`;
  const listKeys = async (token = a.sessionToken) => {
    const res = await t.request({ method: 'GET', url: keysUrl(), headers: session(token) });
    assert.equal(res.statusCode, 200, res.body);
    return res;
  };
  const createKey = async (label: string) => {
    const res = await t.request({
      method: 'POST',
      url: keysUrl(),
      headers: session(a.sessionToken),
      payload: { label },
    });
    assert.equal(res.statusCode, 201, res.body);
    return body<{ id: string; key: string; label: string; createdAt: string }>(res);
  };
  /** A call that takes an API key: inviting a viewer. */
  const useKey = (key: string) =>
    t.request({
      method: 'POST',
      url: '/users',
      headers: apiKey(key),
      payload: {
        platformId: a.platformId,
        companyId: a.companyId,
        email: uniqueEmail('bykey'),
        name: 'By Key',
        roles: ['viewer'],
      },
    });

  test('POST answers the raw key once; the list and the database never hold it', async () => {
    const created = await createKey('ci pipeline');
    assert.deepEqual(Object.keys(created).sort(), ['createdAt', 'id', 'key', 'label']);
    assert.match(created.id, /^ak_/);
    assert.match(created.key, RAW_KEY);
    assert.equal(created.label, 'ci pipeline');
    assert.match(created.createdAt, ISO);

    const listed = await listKeys();
    assert.ok(!listed.body.includes(created.key), 'the raw key is never listed');
    assert.ok(!listed.body.includes(created.key.slice(4)), 'nor its hex part');
    const out = body<Page<KeyMeta>>(listed);
    assert.equal(out.nextCursor, null);
    const item = out.items.find((k) => k.id === created.id);
    assert.deepEqual(item, { id: created.id, label: 'ci pipeline', createdAt: created.createdAt, lastUsedAt: null });
    for (const k of out.items) assert.deepEqual(Object.keys(k).sort(), ['createdAt', 'id', 'label', 'lastUsedAt']);

    const rows = await db.query('SELECT * FROM api_keys');
    const dump = JSON.stringify(rows.rows);
    assert.ok(!dump.includes(created.key.slice(4)), 'no column holds the raw key');
    const row = rows.rows.find((r: { id: string }) => r.id === created.id) as { digest: string } | undefined;
    assert.equal(row?.digest, createHash('sha256').update(created.key).digest('hex'));
  });

  test('a new key authenticates; lastUsedAt appears after use', async () => {
    const created = await createKey('used');
    assert.equal((await useKey(created.key)).statusCode, 201);
    let lastUsedAt: string | null = null;
    for (let i = 0; i < 40 && lastUsedAt === null; i++) {
      const out = body<Page<KeyMeta>>(await listKeys());
      lastUsedAt = out.items.find((k) => k.id === created.id)?.lastUsedAt ?? null;
      if (lastUsedAt === null) await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(lastUsedAt !== null, 'lastUsedAt is recorded');
    assert.match(lastUsedAt, ISO);
    assert.ok(Date.parse(lastUsedAt) >= Date.parse(created.createdAt));
  });

  test('DELETE revokes softly: 200, gone from the list, 401 at once; a second DELETE is 404', async () => {
    const created = await createKey('to revoke');
    assert.equal((await useKey(created.key)).statusCode, 201);
    const res = await t.request({
      method: 'DELETE',
      url: `${keysUrl()}/${created.id}`,
      headers: session(a.sessionToken),
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { id: created.id, revoked: true });
    assertError(await useKey(created.key), 401, 'unauthorized');
    const out = body<Page<KeyMeta>>(await listKeys());
    assert.ok(!out.items.some((k) => k.id === created.id), 'only non-revoked keys are listed');
    const row = await db.query('SELECT revoked_at FROM api_keys WHERE id = $1', [created.id]);
    assert.ok(row.rows[0]?.revoked_at instanceof Date, 'the row stays, marked revoked');
    const again = await t.request({
      method: 'DELETE',
      url: `${keysUrl()}/${created.id}`,
      headers: session(a.sessionToken),
    });
    assertError(again, 404, 'not_found');
  });

  test('DELETE of an unknown key, or of another platform’s key, is 404', async () => {
    const unknown = await t.request({
      method: 'DELETE',
      url: `${keysUrl()}/ak_doesnotexist`,
      headers: session(a.sessionToken),
    });
    assertError(unknown, 404, 'not_found');
    const bKeys = body<Page<KeyMeta>>(
      await t.request({ method: 'GET', url: keysUrl(b.platformId), headers: session(b.sessionToken) }),
    );
    const bKey = bKeys.items[0];
    assert.ok(bKey);
    const foreign = await t.request({
      method: 'DELETE',
      url: `${keysUrl()}/${bKey.id}`,
      headers: session(a.sessionToken),
    });
    assertError(foreign, 404, 'not_found');
    assert.equal((await useKeyOfB()).statusCode, 201, "B's key still works");
  });

  const useKeyOfB = () =>
    t.request({
      method: 'POST',
      url: '/users',
      headers: apiKey(b.apiKey),
      payload: {
        platformId: b.platformId,
        companyId: b.companyId,
        email: uniqueEmail('b'),
        name: 'B',
        roles: ['viewer'],
      },
    });

  test('a missing or blank label is 400', async () => {
    const blank = await t.request({
      method: 'POST',
      url: keysUrl(),
      headers: session(a.sessionToken),
      payload: { label: '  ' },
    });
    assertError(blank, 400, 'bad_request');
    const missing = await t.request({ method: 'POST', url: keysUrl(), headers: session(a.sessionToken), payload: {} });
    assertError(missing, 400, 'validation_failed');
  });

  test('the key list pages with a cursor', async () => {
    await createKey('page one');
    await createKey('page two');
    const first = body<Page<KeyMeta>>(
      await t.request({ method: 'GET', url: `${keysUrl()}?limit=1`, headers: session(a.sessionToken) }),
    );
    assert.equal(first.items.length, 1);
    assert.ok(first.nextCursor);
    const second = body<Page<KeyMeta>>(
      await t.request({
        method: 'GET',
        url: `${keysUrl()}?limit=1&cursor=${first.nextCursor}`,
        headers: session(a.sessionToken),
      }),
    );
    assert.equal(second.items.length, 1);
    assert.notEqual(second.items[0]?.id, first.items[0]?.id);
  });
});

describe('workspace admins', () => {
  const adminsUrl = (platformId: string) => `/platforms/${platformId}/admins`;
  const newAdmin = (overrides: Record<string, unknown> = {}) => ({
    email: uniqueEmail('wsadmin'),
    name: 'Workspace Admin',
    password: 'correct horse battery',
    ...overrides,
  });

  async function bareplatform(): Promise<string> {
    const id = `plat_boot${randomBytes(8).toString('hex')}`;
    await db.query(
      'INSERT INTO platforms (id, name, sandbox, created_at, last_activity_at) VALUES ($1, $2, false, now(), now())',
      [id, 'Bootstrap platform'],
    );
    return id;
  }

  test('GET lists the platform’s workspace admins', async () => {
    const res = await t.request({ method: 'GET', url: adminsUrl(a.platformId), headers: session(a.sessionToken) });
    assert.equal(res.statusCode, 200, res.body);
    const out = body<Page<{ id: string; email: string; name: string }>>(res);
    assert.equal(out.nextCursor, null);
    assert.equal(out.items.length, 1);
    assert.deepEqual(Object.keys(out.items[0]!).sort(), ['email', 'id', 'name']);
    assert.equal(out.items[0]?.email, a.dashboardLogin.email);
  });

  test('bootstrap: the first admin of a platform without one needs no credential; the second does', async () => {
    const platformId = await bareplatform();
    const first = newAdmin();
    const res = await t.request({ method: 'POST', url: adminsUrl(platformId), payload: first });
    assert.equal(res.statusCode, 201, res.body);
    const created = body<{ id: string; email: string; name: string }>(res);
    assert.deepEqual(Object.keys(created).sort(), ['email', 'id', 'name']);
    assert.match(created.id, /^usr_/);
    assert.equal(created.email, first.email);
    assert.equal(created.name, 'Workspace Admin');

    const second = await t.request({ method: 'POST', url: adminsUrl(platformId), payload: newAdmin() });
    assertError(second, 401, 'unauthorized');

    // The first admin signs in, sees themself, and may add the next admin with a session.
    const login = body<LoginBody>(
      await t.request({
        method: 'POST',
        url: '/auth/login',
        payload: { email: first.email, password: first.password },
        remoteAddress: nextIp(),
      }),
    );
    assert.equal(login.user.workspaceAdmin, true);
    assert.equal(login.user.companyId, null);
    const listed = body<Page<{ email: string }>>(
      await t.request({ method: 'GET', url: adminsUrl(platformId), headers: session(login.sessionToken) }),
    );
    assert.deepEqual(
      listed.items.map((i) => i.email),
      [first.email],
    );
    const third = await t.request({
      method: 'POST',
      url: adminsUrl(platformId),
      headers: session(login.sessionToken),
      payload: newAdmin(),
    });
    assert.equal(third.statusCode, 201, third.body);
  });

  test('concurrent bootstrap requests create exactly one first admin', async () => {
    const platformId = await bareplatform();
    const results = await Promise.all(
      [0, 1, 2, 3].map(() => t.request({ method: 'POST', url: adminsUrl(platformId), payload: newAdmin() })),
    );
    assert.deepEqual(results.map((r) => r.statusCode).sort(), [201, 401, 401, 401]);
    for (const r of results.filter((r) => r.statusCode === 401)) assertError(r, 401, 'unauthorized');
    const admins = await db.query('SELECT count(*)::int AS n FROM users WHERE platform_id = $1', [platformId]);
    assert.equal(admins.rows[0]?.n, 1);
  });

  test('bootstrap on an unknown platform is 401; a bad credential on the bootstrap route is 401', async () => {
    assertError(
      await t.request({ method: 'POST', url: adminsUrl('plat_unknown'), payload: newAdmin() }),
      401,
      'unauthorized',
    );
    const platformId = await bareplatform();
    const bad = await t.request({
      method: 'POST',
      url: adminsUrl(platformId),
      headers: session(`st_${'0'.repeat(64)}`),
      payload: newAdmin(),
    });
    assertError(bad, 401, 'unauthorized');
  });

  test('an API key on the admins route is 403 forbidden', async () => {
    const res = await t.request({
      method: 'POST',
      url: adminsUrl(a.platformId),
      headers: apiKey(a.apiKey),
      payload: newAdmin(),
    });
    assertError(res, 403, 'forbidden');
  });

  test('a password under 8 characters, an invalid or a duplicate email are 400', async () => {
    const post = (payload: Record<string, unknown>) =>
      t.request({ method: 'POST', url: adminsUrl(a.platformId), headers: session(a.sessionToken), payload });
    assertError(await post(newAdmin({ password: '1234567' })), 400, 'bad_request');
    for (const email of ['not-an-email', 'a@b', 'two@@example.com', 'spaces in@example.com']) {
      assertError(await post(newAdmin({ email })), 400, 'bad_request');
    }
    assertError(await post(newAdmin({ email: a.dashboardLogin.email })), 400, 'email_taken');
    assertError(await post(newAdmin({ email: a.dashboardLogin.email.toUpperCase() })), 400, 'email_taken');
    assertError(await post({ email: uniqueEmail('x'), name: 'No password' }), 400, 'validation_failed');
    const exactly8 = await post(newAdmin({ password: '12345678' }));
    assert.equal(exactly8.statusCode, 201, exactly8.body);
  });

  test('a bootstrap request that fails validation does not use up bootstrap mode', async () => {
    const platformId = await bareplatform();
    assertError(
      await t.request({ method: 'POST', url: adminsUrl(platformId), payload: newAdmin({ password: 'short' }) }),
      400,
      'bad_request',
    );
    const ok = await t.request({ method: 'POST', url: adminsUrl(platformId), payload: newAdmin() });
    assert.equal(ok.statusCode, 201, ok.body);
  });
});

describe('users and invites', () => {
  const listUsers = (token: string, platformId = a.platformId, companyId = a.companyId) =>
    t.request({
      method: 'GET',
      url: `/users?platformId=${platformId}&companyId=${companyId}`,
      headers: session(token),
    });
  const postUser = (headers: Record<string, string>, payload: Record<string, unknown>) =>
    t.request({
      method: 'POST',
      url: '/users',
      headers,
      payload: {
        platformId: a.platformId,
        companyId: a.companyId,
        email: uniqueEmail('user'),
        name: 'New User',
        ...payload,
      },
    });
  const inviteTokenFor = (email: string): string => {
    const mails = t.mails.filter((m) => m.to === email);
    assert.equal(mails.length, 1, `one invite mail to ${email}`);
    const token = INVITE_TOKEN.exec(mails[0]!.text)?.[0];
    assert.ok(token, 'the mail carries the invite token');
    return token;
  };
  const setPassword = (token: string, password: string, remoteAddress = nextIp()) =>
    t.request({ method: 'POST', url: '/auth/set-password', payload: { token, password }, remoteAddress });

  test('GET /users lists the company’s users with {id, email, name, roles, status}', async () => {
    const res = await listUsers(a.sessionToken);
    assert.equal(res.statusCode, 200, res.body);
    const out = body<{ users: Record<string, unknown>[] }>(res);
    assert.deepEqual(Object.keys(out), ['users']);
    const admin = out.users.find((u) => u.email === a.dashboardLogin.email);
    assert.ok(admin);
    assert.deepEqual(Object.keys(admin).sort(), ['email', 'id', 'name', 'roles', 'status']);
    assert.deepEqual(admin.roles, ['admin']);
    assert.equal(admin.status, 'active');
    assert.ok(!out.users.some((u) => String(u.email).startsWith('b-')), 'no user of platform B');
  });

  test('a company admin creates a user with a password: active, no invite, can log in', async () => {
    const email = uniqueEmail('withpw');
    const res = await postUser(session(a.sessionToken), {
      email,
      name: 'With Password',
      roles: ['approver', 'viewer'],
      password: 'long enough password',
    });
    assert.equal(res.statusCode, 201, res.body);
    const out = body<{ id: string; email: string; name: string; roles: string[]; invited: boolean }>(res);
    assert.deepEqual(Object.keys(out).sort(), ['email', 'id', 'invited', 'name', 'roles']);
    assert.match(out.id, /^usr_/);
    assert.equal(out.email, email);
    assert.deepEqual(out.roles, ['approver', 'viewer']);
    assert.equal(out.invited, false);
    assert.equal(t.mails.filter((m) => m.to === email).length, 0);
    const listed = body<{ users: { id: string; status: string }[] }>(await listUsers(a.sessionToken));
    assert.equal(listed.users.find((u) => u.id === out.id)?.status, 'active');
    const session2 = body<LoginBody>(await login(email, 'long enough password'));
    assert.equal(session2.user.companyId, a.companyId);
    assert.equal(session2.user.workspaceAdmin, false);
  });

  test('without a password the user is invited: status invited, a mail with the token, no login', async () => {
    const email = uniqueEmail('invitee');
    const res = await postUser(session(a.sessionToken), { email, roles: ['admin'] });
    assert.equal(res.statusCode, 201, res.body);
    const out = body<{ id: string; invited: boolean }>(res);
    assert.equal(out.invited, true);
    inviteTokenFor(email);
    const listed = body<{ users: { id: string; status: string }[] }>(await listUsers(a.sessionToken));
    assert.equal(listed.users.find((u) => u.id === out.id)?.status, 'invited');
    assertError(await login(email, 'any password at all'), 401, 'unauthorized');
  });

  test('an API key may invite approvers and viewers (201), never an admin or a password (403)', async () => {
    for (const roles of [['approver'], ['viewer'], ['approver', 'viewer']]) {
      const email = uniqueEmail('keyuser');
      const res = await postUser(apiKey(a.apiKey), { email, roles });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(body<{ invited: boolean }>(res).invited, true);
      inviteTokenFor(email);
    }
    assertError(await postUser(apiKey(a.apiKey), { roles: ['admin'] }), 403, 'forbidden');
    assertError(await postUser(apiKey(a.apiKey), { roles: ['viewer', 'admin'] }), 403, 'forbidden');
    assertError(
      await postUser(apiKey(a.apiKey), { roles: ['viewer'], password: 'a good long password' }),
      403,
      'forbidden',
    );
  });

  test('an API key stating another platform or a company outside its platform is 403 forbidden', async () => {
    const countB = async () =>
      (await db.query('SELECT count(*)::int AS n FROM users WHERE platform_id = $1', [b.platformId])).rows[0]?.n;
    const before = await countB();
    assertError(
      await postUser(apiKey(a.apiKey), { platformId: b.platformId, companyId: b.companyId, roles: ['viewer'] }),
      403,
      'forbidden',
    );
    assertError(await postUser(apiKey(a.apiKey), { companyId: b.companyId, roles: ['viewer'] }), 403, 'forbidden');
    assert.equal(await countB(), before, 'nothing was created in platform B');
  });

  test('roles empty, unknown, missing; an invalid or duplicate email are 400', async () => {
    assertError(await postUser(session(a.sessionToken), { roles: [] }), 400, 'validation_failed');
    assertError(await postUser(session(a.sessionToken), { roles: ['owner'] }), 400, 'bad_request');
    assertError(await postUser(session(a.sessionToken), { roles: ['viewer', 'root'] }), 400, 'bad_request');
    assertError(await postUser(session(a.sessionToken), { roles: undefined }), 400, 'validation_failed');
    assertError(await postUser(apiKey(a.apiKey), { roles: [] }), 400, 'validation_failed');
    assertError(await postUser(session(a.sessionToken), { roles: ['viewer'], email: 'nope' }), 400, 'bad_request');
    assertError(
      await postUser(session(a.sessionToken), { roles: ['viewer'], email: a.dashboardLogin.email }),
      400,
      'email_taken',
    );
    assertError(await postUser(session(a.sessionToken), { roles: ['viewer'], password: 'short' }), 400, 'bad_request');
  });

  test('a viewer may list its company’s users but not create users; other companies are 403', async () => {
    const viewer = await createActiveUser(['viewer']);
    const token = await loginOk(viewer.email, viewer.password);
    assert.equal((await listUsers(token)).statusCode, 200);
    assertError(await postUser(session(token), { roles: ['viewer'] }), 403, 'forbidden');
    assertError(await listUsers(token, b.platformId, b.companyId), 403, 'forbidden');
    assertError(await listUsers(a.sessionToken, b.platformId, b.companyId), 403, 'forbidden');
  });

  test('GET /users with an API key is 403 forbidden (session route)', async () => {
    const res = await t.request({
      method: 'GET',
      url: `/users?platformId=${a.platformId}&companyId=${a.companyId}`,
      headers: apiKey(a.apiKey),
    });
    assertError(res, 403, 'forbidden');
  });

  test('set-password: the invite token sets the password once; the user logs in', async () => {
    const email = uniqueEmail('setpw');
    const created = body<{ id: string }>(await postUser(apiKey(a.apiKey), { email, roles: ['viewer'] }));
    const token = inviteTokenFor(email);

    // A refused password does not use the token up.
    assertError(await setPassword(token, 'short'), 400, 'bad_request');
    const res = await setPassword(token, 'my new password');
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { ok: true, email });
    const listed = body<{ users: { id: string; status: string }[] }>(await listUsers(a.sessionToken));
    assert.equal(listed.users.find((u) => u.id === created.id)?.status, 'active');
    assert.equal((await login(email, 'my new password')).statusCode, 200);

    assertError(await setPassword(token, 'another password'), 400, 'invalid_token');
    assertError(await login(email, 'another password'), 401, 'unauthorized');
  });

  test('set-password revokes every existing session of the user', async () => {
    const user = await createActiveUser(['viewer']);
    const one = await loginOk(user.email, user.password);
    const two = await loginOk(user.email, user.password);
    assert.equal((await me(one)).statusCode, 200);
    // A fresh invite for this user (e.g. a reset), stored as the service stores invites: by digest.
    const token = `inv_${randomBytes(32).toString('hex')}`;
    await db.query(
      `INSERT INTO invites (id, user_id, digest, created_at, expires_at)
       VALUES ($1, $2, $3, now(), now() + interval '1 day')`,
      [`inv_${randomBytes(8).toString('hex')}`, user.id, createHash('sha256').update(token).digest('hex')],
    );
    const res = await setPassword(token, 'a brand new password');
    assert.equal(res.statusCode, 200, res.body);
    assertError(await me(one), 401, 'unauthorized');
    assertError(await me(two), 401, 'unauthorized');
    assert.equal((await me(a.sessionToken)).statusCode, 200, 'other users keep their sessions');
    assertError(await login(user.email, user.password), 401, 'unauthorized');
    assert.equal((await login(user.email, 'a brand new password')).statusCode, 200);
  });

  test('garbage, unknown and expired tokens are 400 invalid_token', async () => {
    assertError(await setPassword('garbage', 'a good password'), 400, 'invalid_token');
    assertError(await setPassword(`inv_${'a'.repeat(64)}`, 'a good password'), 400, 'invalid_token');
    const user = await createActiveUser(['viewer']);
    const token = `inv_${randomBytes(32).toString('hex')}`;
    await db.query(
      `INSERT INTO invites (id, user_id, digest, created_at, expires_at)
       VALUES ($1, $2, $3, now() - interval '8 days', now() - interval '1 day')`,
      [`inv_${randomBytes(8).toString('hex')}`, user.id, createHash('sha256').update(token).digest('hex')],
    );
    assertError(await setPassword(token, 'a good password'), 400, 'invalid_token');
    assertError(
      await t.request({ method: 'POST', url: '/auth/set-password', payload: { token } }),
      400,
      'validation_failed',
    );
  });

  test('set-password is limited per IP: the 11th attempt in 15 minutes is 429 with Retry-After', async () => {
    const ip = nextIp();
    for (let i = 0; i < 10; i++) assertError(await setPassword('garbage', 'a good password', ip), 400, 'invalid_token');
    const limited = await setPassword('garbage', 'a good password', ip);
    assertError(limited, 429, 'rate_limited');
    assert.match(String(limited.headers['retry-after']), /^\d+$/);
    assertError(await setPassword('garbage', 'a good password'), 400, 'invalid_token');
  });
});
