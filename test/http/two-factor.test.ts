/**
 * 2FA and sessions through HTTP on real PostgreSQL (DESIGN.md, Identity): enrolment, login with a
 * TOTP code and with a recovery code, reuse refused, the challenge's limits, /me/sessions list and
 * revoke, change-password. No secret (TOTP secret, recovery code, challenge, token, password) in a
 * log line or in any later response.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { totpCode } from '../../src/domain/identity/totp.ts';
import { manualClock } from '../../src/platform/clock.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { assertError, body, nextIp, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';

type Sandbox = Awaited<ReturnType<typeof provisionAndLogin>>;
type Challenge = { twoFactorRequired: true; challengeToken: string; expiresAt: string };
type Opened = { sessionToken: string; expiresAt: string; user: { id: string } };
type SessionItem = {
  id: string;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
  ip: string | null;
  userAgent: string | null;
  current: boolean;
};

const clock = manualClock(new Date('2026-11-26T12:00:10.000Z'));
const lines: string[] = [];
const secrets: string[] = [];
const responses: string[] = [];
let t: TestApp;
let db: pg.Pool;
let sb: Sandbox;

function keep<T extends string>(value: T): T {
  secrets.push(value);
  return value;
}

async function send(options: Parameters<TestApp['request']>[0]) {
  const res = await t.request(options);
  responses.push(res.body);
  return res;
}
const session = (token: string) => ({ 'x-session-token': token });

async function login(email: string, password: string, ip = nextIp(), userAgent = 'test-agent/1') {
  return send({
    method: 'POST',
    url: '/auth/login',
    payload: { email, password },
    remoteAddress: ip,
    headers: { 'user-agent': userAgent },
  });
}
async function answer(challengeToken: string, code: string, ip = nextIp()) {
  return send({ method: 'POST', url: '/auth/login/2fa', payload: { challengeToken, code }, remoteAddress: ip });
}
async function challenge(): Promise<string> {
  const res = await login(sb.dashboardLogin.email, sb.dashboardLogin.password);
  assert.equal(res.statusCode, 200, res.body);
  const issued = body<Challenge>(res);
  assert.equal(issued.twoFactorRequired, true);
  assert.match(issued.challengeToken, /^lc_[0-9a-f]{64}$/);
  assert.equal(new Date(issued.expiresAt).getTime() - clock.now().getTime(), 5 * 60 * 1000);
  assert.equal((res.json() as Record<string, unknown>)['sessionToken'], undefined, 'no session before the code');
  return keep(issued.challengeToken);
}
/** The code of the next time step (each accepted code spends its step). */
function nextCode(secret: string): string {
  clock.advance(30_000);
  return totpCode(secret, clock.now());
}

let secret: string;
let recoveryCodes: string[];

before(async () => {
  t = await startTestApp({
    clock,
    logger: createLogger('trace', { write: (chunk: string) => void lines.push(chunk) }),
  });
  db = new pg.Pool({ connectionString: t.databaseUrl, max: 2 });
  sb = await provisionAndLogin(t);
  keep(sb.sessionToken);
  keep(sb.dashboardLogin.password);
});
after(async () => {
  await db.end();
  await t.close();
});

describe('2FA enrolment and login', () => {
  test('setup is pending until a code enables it; login without 2FA still opens a session', async () => {
    const status = await send({ method: 'GET', url: '/2fa/status', headers: session(sb.sessionToken) });
    assert.deepEqual(body(status), { enabled: false, pending: false, recoveryCodesLeft: 0 });

    const setup = await send({ method: 'POST', url: '/2fa/setup', headers: session(sb.sessionToken) });
    assert.equal(setup.statusCode, 200, setup.body);
    assert.equal(setup.headers['cache-control'], 'no-store');
    const enrolment = body<{ secret: string; otpauthUrl: string }>(setup);
    secret = keep(enrolment.secret);
    const url = new URL(enrolment.otpauthUrl);
    assert.equal(url.protocol, 'otpauth:');
    assert.equal(url.searchParams.get('secret'), secret);

    const pending = await send({ method: 'GET', url: '/2fa/status', headers: session(sb.sessionToken) });
    assert.deepEqual(body(pending), { enabled: false, pending: true, recoveryCodesLeft: 0 });
    // Pending: the password alone still signs in.
    const plain = await login(sb.dashboardLogin.email, sb.dashboardLogin.password);
    assert.equal(plain.statusCode, 200);
    assert.match(body<Opened>(plain).sessionToken, /^st_/);
    keep(body<Opened>(plain).sessionToken);

    assertError(
      await send({
        method: 'POST',
        url: '/2fa/enable',
        headers: session(sb.sessionToken),
        payload: { code: '000000' },
      }),
      400,
      'wrong_code',
    );
    const enabled = await send({
      method: 'POST',
      url: '/2fa/enable',
      headers: session(sb.sessionToken),
      payload: { code: nextCode(secret) },
    });
    assert.equal(enabled.statusCode, 200, enabled.body);
    const shown = body<{ enabled: true; recoveryCodes: string[] }>(enabled);
    assert.equal(shown.enabled, true);
    assert.equal(shown.recoveryCodes.length, 10);
    recoveryCodes = shown.recoveryCodes.map(keep);

    assertError(
      await send({ method: 'POST', url: '/2fa/setup', headers: session(sb.sessionToken) }),
      409,
      'two_factor_already_enabled',
    );
    const after = await send({ method: 'GET', url: '/2fa/status', headers: session(sb.sessionToken) });
    assert.deepEqual(body(after), { enabled: true, pending: false, recoveryCodesLeft: 10 });
  });

  test('login asks for the code; a TOTP code opens the session once, its reuse is refused', async () => {
    const token = await challenge();
    assertError(await answer(token, '123456'), 401, 'invalid_code');
    const code = nextCode(secret);
    const opened = await answer(token, code);
    assert.equal(opened.statusCode, 200, opened.body);
    const sessionToken = keep(body<Opened>(opened).sessionToken);
    assert.equal((await send({ method: 'GET', url: '/auth/me', headers: session(sessionToken) })).statusCode, 200);

    // The challenge is single use, and the same code on a new challenge is refused.
    assertError(await answer(token, code), 401, 'unauthorized');
    const again = await challenge();
    assertError(await answer(again, code), 401, 'invalid_code');
    assert.equal((await answer(again, nextCode(secret))).statusCode, 200);
  });

  test('a recovery code signs in once and is used up', async () => {
    const [code] = recoveryCodes;
    assert.ok(code);
    const opened = await answer(await challenge(), code.toUpperCase());
    assert.equal(opened.statusCode, 200, opened.body);
    keep(body<Opened>(opened).sessionToken);
    assertError(await answer(await challenge(), code), 401, 'invalid_code');
    const status = await send({ method: 'GET', url: '/2fa/status', headers: session(sb.sessionToken) });
    assert.equal(body<{ recoveryCodesLeft: number }>(status).recoveryCodesLeft, 9);
    const audit = await db.query(
      `SELECT count(*)::int AS n FROM activity_events WHERE type = 'user.recovery_code_used' AND actor_user_id = $1`,
      [body<Opened>(opened).user.id],
    );
    assert.equal(audit.rows[0].n, 1);
  });

  test('the fifth wrong code voids the challenge; an expired challenge is refused', async () => {
    const token = await challenge();
    for (let i = 0; i < 5; i++) assertError(await answer(token, '000000'), 401, 'invalid_code');
    assertError(await answer(token, nextCode(secret)), 401, 'unauthorized');

    const late = await challenge();
    clock.advance(5 * 60 * 1000 + 1000);
    assertError(await answer(late, totpCode(secret, clock.now())), 401, 'unauthorized');
    assertError(await answer('lc_nonsense', '123456'), 401, 'unauthorized');
  });

  test('new recovery codes replace the old; disable needs a code', async () => {
    const res = await send({
      method: 'POST',
      url: '/2fa/recovery-codes',
      headers: session(sb.sessionToken),
      payload: { code: nextCode(secret) },
    });
    assert.equal(res.statusCode, 200, res.body);
    const fresh = body<{ recoveryCodes: string[] }>(res).recoveryCodes.map(keep);
    assert.equal(fresh.length, 10);
    assertError(await answer(await challenge(), recoveryCodes[2]!), 401, 'invalid_code');
    recoveryCodes = fresh;
  });
});

describe('sessions', () => {
  // A new quarter hour, so the sign-ins below start from fresh per-address counts (ADR 0057).
  before(() => clock.advance(15 * 60 * 1000));
  test('GET /me/sessions lists live sessions with the current one marked; DELETE revokes one', async () => {
    const ip = nextIp();
    const first = await answer(await challenge(), nextCode(secret), ip);
    const other = keep(body<Opened>(first).sessionToken);
    const list = await send({
      method: 'GET',
      url: '/me/sessions',
      headers: { ...session(sb.sessionToken), 'user-agent': 'x' },
    });
    assert.equal(list.statusCode, 200, list.body);
    const items = body<{ items: SessionItem[] }>(list).items;
    const current = items.filter((s) => s.current);
    assert.equal(current.length, 1);
    assert.ok(items.length >= 3);
    for (const s of items) {
      assert.deepEqual(Object.keys(s).sort(), [
        'createdAt',
        'current',
        'expiresAt',
        'id',
        'ip',
        'lastSeenAt',
        'userAgent',
      ]);
      assert.match(s.id, /^sess_/);
    }
    // Newest first: the session the second step just opened, with the address it came from.
    const newest = items[0]!;
    assert.equal(newest.ip, ip);
    assert.equal(newest.userAgent, 'lightMyRequest');
    assert.equal(newest.lastSeenAt, newest.createdAt);

    // Another user's session id is not found; revoking the other session ends it, not this one.
    const b = await provisionAndLogin(t);
    const bSessions = body<{ items: SessionItem[] }>(
      await send({ method: 'GET', url: '/me/sessions', headers: session(b.sessionToken) }),
    ).items;
    assertError(
      await send({ method: 'DELETE', url: `/me/sessions/${bSessions[0]!.id}`, headers: session(sb.sessionToken) }),
      404,
      'not_found',
    );
    const otherId = body<{ items: SessionItem[] }>(
      await send({ method: 'GET', url: '/me/sessions', headers: session(other) }),
    ).items.find((s) => s.current)!.id;
    const revoked = await send({ method: 'DELETE', url: `/me/sessions/${otherId}`, headers: session(sb.sessionToken) });
    assert.equal(revoked.statusCode, 200, revoked.body);
    assertError(await send({ method: 'GET', url: '/auth/me', headers: session(other) }), 401, 'unauthorized');
    assert.equal((await send({ method: 'GET', url: '/auth/me', headers: session(sb.sessionToken) })).statusCode, 200);
    assertError(
      await send({ method: 'DELETE', url: `/me/sessions/${otherId}`, headers: session(sb.sessionToken) }),
      404,
      'not_found',
    );
    // An API key on session-only identity routes: 401 (contract, Failure table).
    assertError(
      await send({ method: 'GET', url: '/me/sessions', headers: { 'x-api-key': sb.apiKey } }),
      401,
      'unauthorized',
    );
    assertError(
      await send({ method: 'POST', url: '/2fa/setup', headers: { 'x-api-key': sb.apiKey } }),
      401,
      'unauthorized',
    );
  });

  test('change-password checks the current password and revokes the other sessions', async () => {
    const other = keep(body<Opened>(await answer(await challenge(), nextCode(secret))).sessionToken);
    assertError(
      await send({
        method: 'POST',
        url: '/auth/change-password',
        headers: session(sb.sessionToken),
        payload: { currentPassword: keep('not-the-password'), newPassword: 'a new long password' },
      }),
      400,
      'wrong_password',
    );
    const newPassword = keep('Correct-Horse-Battery-9');
    const changed = await send({
      method: 'POST',
      url: '/auth/change-password',
      headers: session(sb.sessionToken),
      payload: { currentPassword: sb.dashboardLogin.password, newPassword },
    });
    assert.equal(changed.statusCode, 200, changed.body);
    assert.ok(body<{ sessionsRevoked: number }>(changed).sessionsRevoked >= 1);
    assertError(await send({ method: 'GET', url: '/auth/me', headers: session(other) }), 401, 'unauthorized');
    assert.equal((await send({ method: 'GET', url: '/auth/me', headers: session(sb.sessionToken) })).statusCode, 200);
    assertError(await login(sb.dashboardLogin.email, sb.dashboardLogin.password), 401, 'unauthorized');
    const withNew = await login(sb.dashboardLogin.email, newPassword);
    assert.equal(body<Challenge>(withNew).twoFactorRequired, true);
    sb.dashboardLogin.password = newPassword;
  });

  test('disable with a code turns 2FA off: the password alone signs in again', async () => {
    assertError(
      await send({
        method: 'POST',
        url: '/2fa/disable',
        headers: session(sb.sessionToken),
        payload: { code: '000000' },
      }),
      400,
      'wrong_code',
    );
    const off = await send({
      method: 'POST',
      url: '/2fa/disable',
      headers: session(sb.sessionToken),
      payload: { code: nextCode(secret) },
    });
    assert.equal(off.statusCode, 200, off.body);
    const res = await login(sb.dashboardLogin.email, sb.dashboardLogin.password);
    keep(body<Opened>(res).sessionToken);
    const events = await db.query(
      `SELECT type FROM activity_events WHERE type LIKE 'user.%' AND metadata->>'userId' = $1 ORDER BY seq`,
      [body<Opened>(res).user.id],
    );
    assert.deepEqual(
      events.rows.map((r) => r.type),
      [
        'user.2fa_enabled',
        'user.recovery_code_used',
        'user.2fa_recovery_codes_regenerated',
        // No user.2fa_locked: every right code above cleared the user's count of wrong ones (ADR 0057).
        'user.session_revoked',
        'user.password_changed',
        'user.2fa_disabled',
      ],
    );
  });

  test('no secret appears in a log line or in a later response', () => {
    assert.ok(lines.length > 50);
    const logs = lines.join('\n');
    for (const value of secrets) {
      assert.ok(!logs.includes(value), `a secret (${value.slice(0, 4)}...) appears in the logs`);
    }
    // The TOTP secret and recovery codes are shown once: in no response after the one that showed them.
    const shownAt = (value: string) => responses.findIndex((r) => r.includes(value));
    for (const value of [secret, ...recoveryCodes]) {
      const first = shownAt(value);
      assert.ok(first >= 0);
      assert.ok(!responses.slice(first + 1).some((r) => r.includes(value)), 'shown again later');
    }
  });
});
