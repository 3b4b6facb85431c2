/**
 * Rate limits hold across API processes (DESIGN.md, Identity): two apps on one PostgreSQL database
 * share the counters, so a client that spreads its requests over both gets no more than from one.
 * Login failures per address across emails, login failures per account across addresses, set-password per
 * address, and the production submit limit per company.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { LOGIN_FAILURES_PER_IP } from '../../src/app/rate-limits.ts';
import { countHit, deleteExpiredCounters } from '../../src/db/repositories/rate-limits.ts';
import { PRODUCTION_SUBMITS_PER_MINUTE } from '../../src/http/routes/journal-submit.ts';
import { assertError, nextIp, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';

let one: TestApp;
let two: TestApp;
const email = (tag: string) => `${tag}-${randomBytes(4).toString('hex')}@example.com`;
const login = (app: TestApp, address: string, ip: string, password = 'wrong-password') =>
  app.request({ method: 'POST', url: '/auth/login', payload: { email: address, password }, remoteAddress: ip });

before(async () => {
  const env = { MASTER_KEY: randomBytes(32).toString('base64') };
  one = await startTestApp({ env });
  two = await startTestApp({ env, databaseUrl: one.databaseUrl });
});
after(async () => {
  await two.close();
  await one.close();
});

test('failed logins from one address are limited across emails and across both processes', async () => {
  const ip = nextIp();
  // 50 failures a quarter hour per address, each with another email, alternating between the processes.
  for (let i = 0; i < LOGIN_FAILURES_PER_IP.max; i++) {
    assertError(await login(i % 2 === 0 ? one : two, email(`spray${i}`), ip), 401, 'unauthorized');
  }
  const limited = await login(one, email('spray-last'), ip);
  assertError(limited, 429, 'rate_limited');
  assert.match(String(limited.headers['retry-after']), /^\d+$/);
  assertError(await login(two, email('spray-other'), ip), 429, 'rate_limited');
  // Another address is not affected.
  assertError(await login(two, email('elsewhere'), nextIp()), 401, 'unauthorized');
});

test('failed logins of one account slow it across addresses and processes; the right password does not count', async () => {
  const sb = await provisionAndLogin(one);
  const account = sb.dashboardLogin.email;
  // Successful logins are not failures: many of them do not slow the account.
  for (let i = 0; i < 12; i++) {
    assert.equal((await login(i % 2 ? one : two, account, nextIp(), sb.dashboardLogin.password)).statusCode, 200);
  }
  for (let i = 0; i < 10; i++) assertError(await login(i % 2 ? one : two, account, nextIp()), 401, 'unauthorized');
  // Slowed: one password check a minute on the account, whichever process and address asks.
  assertError(await login(one, account, nextIp()), 401, 'unauthorized');
  const limited = await login(two, account, nextIp(), sb.dashboardLogin.password);
  assertError(limited, 429, 'rate_limited');
  assert.ok(Number(limited.headers['retry-after']) <= 60, String(limited.headers['retry-after']));
  assertError(await login(one, account, nextIp()), 429, 'rate_limited');
});

test('set-password is limited per address across both processes', async () => {
  const ip = nextIp();
  const attempt = (app: TestApp) =>
    app.request({
      method: 'POST',
      url: '/auth/set-password',
      payload: { token: 'garbage', password: 'a good password' },
      remoteAddress: ip,
    });
  for (let i = 0; i < 10; i++) assertError(await attempt(i % 2 ? one : two), 400, 'invalid_token');
  const limited = await attempt(one);
  assertError(limited, 429, 'rate_limited');
  assert.match(String(limited.headers['retry-after']), /^\d+$/);
  assertError(await attempt(two), 429, 'rate_limited');
});

test('the production submit limit of a company is shared by both processes', async () => {
  const sb = await provisionAndLogin(one);
  const submit = (app: TestApp) => {
    const payload = structuredClone(sb.firstPayment.body) as Record<string, unknown> & {
      payment: { payments: { transactions: { amount: string }[] }[] };
    };
    payload['environment'] = 'production';
    // Invalid production submits still count (the limit runs before the use case): cheap 422s.
    payload.payment.payments[0]!.transactions[0]!.amount = 'x';
    return app.request({
      method: 'POST',
      url: '/journal/payments',
      headers: { 'x-api-key': sb.apiKey, 'idempotency-key': randomBytes(8).toString('hex') },
      payload,
    });
  };
  for (let i = 0; i < PRODUCTION_SUBMITS_PER_MINUTE; i++) {
    assert.equal((await submit(i % 2 ? one : two)).statusCode, 422);
  }
  const limited = await submit(one);
  assertError(limited, 429, 'rate_limited');
  const retryAfter = Number(limited.headers['retry-after']);
  assert.ok(retryAfter >= 1 && retryAfter <= 60, String(limited.headers['retry-after']));
  assertError(await submit(two), 429, 'rate_limited');
});

test('a window that ended starts over at one hit, and ended windows are swept', async () => {
  const key = `probe:${randomBytes(4).toString('hex')}`;
  const t0 = new Date('2026-01-01T00:00:00.000Z');
  assert.equal((await countHit(one.ctx.db, key, 60_000, t0)).hits, 1);
  const second = await countHit(two.ctx.db, key, 60_000, new Date(t0.getTime() + 59_000));
  assert.deepEqual(second, { hits: 2, resetAt: new Date(t0.getTime() + 60_000) });
  const fresh = await countHit(one.ctx.db, key, 60_000, new Date(t0.getTime() + 60_000));
  assert.deepEqual(fresh, { hits: 1, resetAt: new Date(t0.getTime() + 120_000) });
  assert.ok((await deleteExpiredCounters(one.ctx.db, new Date(t0.getTime() + 121_000), 1000)) >= 1);
  assert.equal((await countHit(one.ctx.db, key, 60_000, new Date(t0.getTime() + 121_000))).hits, 1);
});
