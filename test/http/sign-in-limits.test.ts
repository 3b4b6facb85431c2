/**
 * Sign-in limits that stop guessing, not colleagues (issue 36.4, ADR 0057): successes never count
 * against an address, failures do (per address and email, per address, per account), and an account
 * under attack is slowed without keeping out its owner's right password and second factor.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { LOGIN_FAILURES_PER_IP } from '../../src/app/rate-limits.ts';
import { totpCode } from '../../src/domain/identity/totp.ts';
import { manualClock } from '../../src/platform/clock.ts';
import {
  addCompanyUser,
  assertError,
  body,
  nextIp,
  provisionAndLogin,
  startTestApp,
  type TestApp,
} from '../harness.ts';

const PASSWORD = 'a colleague knows this one';
const clock = manualClock(new Date('2026-06-01T08:00:00Z'));
let t: TestApp;
let sb: Awaited<ReturnType<typeof provisionAndLogin>>;

const email = (tag: string) => `${tag}-${randomBytes(4).toString('hex')}@example.com`;
const login = (address: string, password: string, ip: string) =>
  t.request({ method: 'POST', url: '/auth/login', payload: { email: address, password }, remoteAddress: ip });

async function colleague(tag: string): Promise<string> {
  const address = email(tag);
  await addCompanyUser(t, sb, { email: address, name: tag, roles: ['viewer'], password: PASSWORD });
  return address;
}

before(async () => {
  t = await startTestApp({ clock });
  sb = await provisionAndLogin(t);
});
after(() => t.close());

describe('one office behind one address', () => {
  test('50 colleagues sign in correctly within a minute; a spray of wrong passwords from there is stopped', async () => {
    const office = nextIp();
    const colleagues: string[] = [];
    for (let i = 0; i < 50; i++) colleagues.push(await colleague(`office${i}`));
    for (const [i, address] of colleagues.entries()) {
      const res = await login(address, PASSWORD, office);
      assert.equal(res.statusCode, 200, `colleague ${i + 1}: ${res.body}`);
      assert.match(body<{ sessionToken: string }>(res).sessionToken, /^st_/);
      clock.advance(1000);
    }
    // The spray: one wrong password over many emails, known and unknown, from the same address.
    const targets = [...colleagues, ...Array.from({ length: 10 }, (_, i) => email(`unknown${i}`))];
    for (let i = 0; i < LOGIN_FAILURES_PER_IP.max; i++) {
      assertError(await login(targets[i]!, 'Summer2026!', office), 401, 'unauthorized');
    }
    const stopped = await login(targets[LOGIN_FAILURES_PER_IP.max]!, 'Summer2026!', office);
    const error = assertError(stopped, 429, 'rate_limited');
    const retryAfter = Number(stopped.headers['retry-after']);
    assert.ok(Number.isInteger(retryAfter) && retryAfter > 0 && retryAfter <= 15 * 60, String(retryAfter));
    assert.equal(error.details?.['retryAfterSeconds'], retryAfter);
    // Another address is not affected; the office's own window ends with the quarter hour.
    assert.equal((await login(colleagues[0]!, PASSWORD, nextIp())).statusCode, 200);
    clock.advance(retryAfter * 1000);
    assert.equal((await login(colleagues[1]!, PASSWORD, office)).statusCode, 200);
  });

  test('one colleague signing in many times from the office is never limited; 10 wrong passwords are', async () => {
    const office = nextIp();
    const address = await colleague('often');
    for (let i = 0; i < 25; i++) assert.equal((await login(address, PASSWORD, office)).statusCode, 200, `sign-in ${i}`);
    for (let i = 0; i < 10; i++) assertError(await login(address, 'typo', office), 401, 'unauthorized');
    const limited = await login(address, PASSWORD, office);
    assertError(limited, 429, 'rate_limited');
    assert.match(String(limited.headers['retry-after']), /^\d+$/);
  });
});

describe('an account under attack from many addresses', () => {
  test('is slowed to one password check a minute from every address', async () => {
    const address = await colleague('target');
    const attackers = Array.from({ length: 10 }, () => nextIp());
    for (const ip of attackers) assertError(await login(address, 'guess', ip), 401, 'unauthorized');
    // The minute's one check goes to the first guess; the rest wait for the next minute.
    assertError(await login(address, 'guess', attackers[0]!), 401, 'unauthorized');
    const slowed = await login(address, 'guess', attackers[1]!);
    assertError(slowed, 429, 'rate_limited');
    const retryAfter = Number(slowed.headers['retry-after']);
    assert.ok(retryAfter > 0 && retryAfter <= 60, String(retryAfter));
    assertError(await login(address, 'guess', nextIp()), 429, 'rate_limited');
    // Without a second factor the owner waits for the account's next check like everyone else.
    assertError(await login(address, PASSWORD, nextIp()), 429, 'rate_limited');
    clock.advance(retryAfter * 1000);
    assert.equal((await login(address, PASSWORD, nextIp())).statusCode, 200);
  });

  test('its owner with 2FA signs in from a new address with the right password and code', async () => {
    const address = await colleague('owner');
    const session = body<{ sessionToken: string }>(await login(address, PASSWORD, nextIp())).sessionToken;
    const headers = { 'x-session-token': session };
    const { secret } = body<{ secret: string }>(await t.request({ method: 'POST', url: '/2fa/setup', headers }));
    const enabled = await t.request({
      method: 'POST',
      url: '/2fa/enable',
      headers,
      payload: { code: totpCode(secret, clock.now()) },
    });
    assert.equal(enabled.statusCode, 200, enabled.body);

    const attacker = nextIp();
    for (let i = 0; i < 10; i++) assertError(await login(address, `guess${i}`, nextIp()), 401, 'unauthorized');
    assertError(await login(address, 'guess', nextIp()), 401, 'unauthorized');
    assertError(await login(address, 'guess', attacker), 429, 'rate_limited');

    clock.advance(30_000);
    const challenge = await login(address, PASSWORD, nextIp());
    assert.equal(challenge.statusCode, 200, challenge.body);
    const { challengeToken } = body<{ twoFactorRequired: boolean; challengeToken: string }>(challenge);
    const opened = await t.request({
      method: 'POST',
      url: '/auth/login/2fa',
      payload: { challengeToken, code: totpCode(secret, clock.now()) },
      remoteAddress: nextIp(),
    });
    assert.equal(opened.statusCode, 200, opened.body);
    assert.match(body<{ sessionToken: string }>(opened).sessionToken, /^st_/);
    // The attacker's address is still held to the account's one check a minute.
    assertError(await login(address, 'guess', attacker), 429, 'rate_limited');
  });
});
