/**
 * Step-up codes that cannot be guessed (issue 41.1, ADR 0057): every route that checks a TOTP or
 * recovery code counts wrong codes per session (5) and per user (10 a quarter hour, sign-in
 * included); a locked step-up answers 429 with Retry-After in the contract's envelope even to the
 * right code, and every lock is an audit event.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { totpCode } from '../../src/domain/identity/totp.ts';
import { manualClock } from '../../src/platform/clock.ts';
import {
  addUser,
  approvalOf,
  createPolicy,
  currentCode,
  decide,
  enrolTwoFactor,
  payment,
  type Sandbox,
  signIn,
  submitted,
  type User,
} from '../approvals/support.ts';
import {
  addCompanyUser,
  assertError,
  body,
  nextIp,
  provisionAndLogin,
  startTestApp,
  type TestApp,
} from '../harness.ts';

const clock = manualClock(new Date());
let t: TestApp;

before(async () => {
  t = await startTestApp({ clock });
});
after(() => t.close());

const QUARTER_HOUR = 15 * 60 * 1000;
/** A code that is certainly not the current one (nor the steps either side). */
function wrongCode(secret: string): string {
  const near = [-30_000, 0, 30_000].map((d) => totpCode(secret, new Date(clock.now().getTime() + d)));
  for (let n = 0; ; n++) {
    const code = String(n).padStart(6, '0');
    if (!near.includes(code)) return code;
  }
}

function assertLocked(res: { statusCode: number; body: string; headers: Record<string, unknown>; json(): unknown }) {
  const error = assertError(res, 429, 'rate_limited');
  const retryAfter = Number(res.headers['retry-after']);
  assert.ok(Number.isInteger(retryAfter) && retryAfter > 0 && retryAfter <= 15 * 60, String(retryAfter));
  assert.equal(error.details?.['retryAfterSeconds'], retryAfter);
}

async function locks(userId: string) {
  const rows = await t.ctx.db.execute<{ per: string; route: string; session_id: string | null }>(
    sql`SELECT metadata->>'per' AS per, metadata->>'route' AS route, metadata->>'sessionId' AS session_id
          FROM activity_events WHERE type = 'user.2fa_locked' AND metadata->>'userId' = ${userId} ORDER BY seq`,
  );
  return rows.rows;
}

describe('approve with a code', () => {
  let sb: Sandbox;
  let bob: User;
  let secret: string;
  before(async () => {
    clock.advance(QUARTER_HOUR);
    sb = await provisionAndLogin(t);
    await addUser(t, sb, 'Alice', ['approver']);
    bob = await addUser(t, sb, 'Bob', ['approver']);
    secret = await enrolTwoFactor(t, bob);
    await createPolicy(t, sb, { name: '2fa', minAmount: '1', twoFactorRequired: true });
  });

  test('300 wrong codes, then the right one, do not approve: the session locks after 5', async () => {
    // Two more sessions of Bob, opened before the guessing (a right code clears the user's count).
    const second = await signInWithCode(bob, secret);
    const third = await signInWithCode(bob, secret);
    const doc = await submitted(t, sb, payment(sb));
    const approval = await approvalOf(t, sb, doc.id);
    const statuses = new Map<number, number>();
    for (let i = 0; i < 300; i++) {
      const res = await decide(t, bob.sessionToken, approval.id, 'approve', { code: wrongCode(secret) });
      statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
      if (i >= 5) assertLocked(res);
    }
    assert.deepEqual(Object.fromEntries(statuses), { 403: 5, 429: 295 });
    assertLocked(await decide(t, bob.sessionToken, approval.id, 'approve', { code: currentCode(t, secret) }));
    const after = await approvalOf(t, sb, doc.id);
    assert.equal(after.status, 'pending');
    assert.deepEqual(after.approvals, []);
    assert.deepEqual(await locks(bob.id), [
      { per: 'session', route: 'POST /approvals/{id}/approve', session_id: await sessionIdOf(bob.sessionToken) },
    ]);

    // Another session of the same user has its own 5, and the user's 10 then lock every session.
    for (let i = 0; i < 5; i++) {
      assertError(
        await decide(t, second, approval.id, 'approve', { code: wrongCode(secret) }),
        403,
        'two_factor_required',
      );
    }
    assertLocked(await decide(t, third, approval.id, 'approve', { code: currentCode(t, secret) }));
    assert.deepEqual(
      (await locks(bob.id)).map((l) => l.per),
      ['session', 'session', 'user'],
    );

    // A quarter hour later the right code approves.
    clock.advance(QUARTER_HOUR);
    const ok = await decide(t, third, approval.id, 'approve', { code: currentCode(t, secret) });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(body<{ status: string }>(ok).status, 'approved');
  });

  test('a right code clears the wrong ones before it: a careful user who mistypes now and then is never locked', async () => {
    clock.advance(QUARTER_HOUR);
    for (let i = 0; i < 8; i++) {
      const doc = await submitted(t, sb, payment(sb));
      const approval = await approvalOf(t, sb, doc.id);
      assertError(
        await decide(t, bob.sessionToken, approval.id, 'approve', { code: wrongCode(secret) }),
        403,
        'two_factor_required',
      );
      clock.advance(30_000);
      const ok = await decide(t, bob.sessionToken, approval.id, 'approve', { code: currentCode(t, secret) });
      assert.equal(ok.statusCode, 200, `approval ${i}: ${ok.body}`);
    }
  });
});

describe('the 2FA routes of a session', () => {
  let sb: Sandbox;
  let user: User;
  let secret: string;
  let other: string;
  const post = (url: string, code: string, token = user.sessionToken) =>
    t.request({ method: 'POST', url, headers: { 'x-session-token': token }, payload: { code } });

  before(async () => {
    clock.advance(QUARTER_HOUR);
    sb = await provisionAndLogin(t);
    user = await addUser(t, sb, 'Carol', ['approver']);
    secret = await enrolTwoFactor(t, user);
    other = await signInWithCode(user, secret);
  });

  test('POST /2fa/recovery-codes: 40 wrong codes at once on one session get exactly 5 tries', async () => {
    const answers = await Promise.all(Array.from({ length: 40 }, () => post('/2fa/recovery-codes', wrongCode(secret))));
    const codes = answers.map((r) => r.statusCode).sort();
    assert.deepEqual(
      { wrong: codes.filter((c) => c === 400).length, locked: codes.filter((c) => c === 429).length },
      { wrong: 5, locked: 35 },
    );
    for (const res of answers.filter((r) => r.statusCode === 429)) assertLocked(res);
    assertLocked(await post('/2fa/recovery-codes', currentCode(t, secret)));
    assert.deepEqual(
      (await locks(user.id)).map((l) => [l.per, l.route]),
      [['session', 'POST /2fa/recovery-codes']],
    );
  });

  test('POST /2fa/disable on another session: locked with the user at 10, the right code does not disable', async () => {
    for (let i = 0; i < 5; i++) assertError(await post('/2fa/disable', wrongCode(secret), other), 400, 'wrong_code');
    assertLocked(await post('/2fa/disable', currentCode(t, secret), other));
    const status = await t.request({ method: 'GET', url: '/2fa/status', headers: { 'x-session-token': other } });
    assert.equal(body<{ enabled: boolean }>(status).enabled, true);
    assert.deepEqual(
      (await locks(user.id)).map((l) => l.per),
      ['session', 'session', 'user'],
    );
  });

  test('POST /2fa/enable counts wrong codes too', async () => {
    clock.advance(QUARTER_HOUR);
    const fresh = await addUser(t, sb, 'Dave', ['approver']);
    const headers = { 'x-session-token': fresh.sessionToken };
    const { secret: pending } = body<{ secret: string }>(
      await t.request({ method: 'POST', url: '/2fa/setup', headers }),
    );
    for (let i = 0; i < 5; i++) {
      assertError(await post('/2fa/enable', wrongCode(pending), fresh.sessionToken), 400, 'wrong_code');
    }
    assertLocked(await post('/2fa/enable', currentCode(t, pending), fresh.sessionToken));
    assert.deepEqual(
      (await locks(fresh.id)).map((l) => [l.per, l.route]),
      [['session', 'POST /2fa/enable']],
    );
  });
});

describe('the sign-in challenge', () => {
  test('wrong codes count per user across challenges: after 10 the right code is 429 until the quarter hour ends', async () => {
    clock.advance(QUARTER_HOUR);
    const sb = await provisionAndLogin(t);
    const email = `erin.${Date.now()}@example.com`;
    const password = 'correct horse battery staple 42';
    const id = await addCompanyUser(t, sb, { email, name: 'Erin', roles: ['viewer'], password });
    const secret = await enrolTwoFactor(t, { id, name: 'Erin', email, sessionToken: await signIn(t, { email }) });
    const challenge = async () => {
      const res = await t.request({
        method: 'POST',
        url: '/auth/login',
        payload: { email, password },
        remoteAddress: nextIp(),
      });
      assert.equal(res.statusCode, 200, res.body);
      return body<{ challengeToken: string }>(res).challengeToken;
    };
    const answer = (challengeToken: string, code: string) =>
      t.request({ method: 'POST', url: '/auth/login/2fa', payload: { challengeToken, code }, remoteAddress: nextIp() });
    for (let round = 0; round < 2; round++) {
      const token = await challenge();
      for (let i = 0; i < 5; i++) assertError(await answer(token, wrongCode(secret)), 401, 'invalid_code');
    }
    clock.advance(30_000);
    const token = await challenge();
    assertLocked(await answer(token, currentCode(t, secret)));
    assert.deepEqual(
      (await locks(id)).map((l) => [l.per, l.route]),
      [['user', 'POST /auth/login/2fa']],
    );
    clock.advance(QUARTER_HOUR);
    const opened = await answer(await challenge(), currentCode(t, secret));
    assert.equal(opened.statusCode, 200, opened.body);
  });
});

/** A new session of a user with 2FA: password, then the next time step's code. */
async function signInWithCode(user: Pick<User, 'email'>, secret: string): Promise<string> {
  const res = await t.request({
    method: 'POST',
    url: '/auth/login',
    payload: { email: user.email, password: 'correct horse battery staple 42' },
    remoteAddress: nextIp(),
  });
  const { challengeToken } = body<{ challengeToken: string }>(res);
  clock.advance(30_000);
  const opened = await t.request({
    method: 'POST',
    url: '/auth/login/2fa',
    payload: { challengeToken, code: currentCode(t, secret) },
    remoteAddress: nextIp(),
  });
  assert.equal(opened.statusCode, 200, opened.body);
  return body<{ sessionToken: string }>(opened).sessionToken;
}

async function sessionIdOf(token: string): Promise<string> {
  const res = await t.request({ method: 'GET', url: '/me/sessions', headers: { 'x-session-token': token } });
  return body<{ items: { id: string; current: boolean }[] }>(res).items.find((s) => s.current)!.id;
}
