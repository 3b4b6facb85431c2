/**
 * Structured logs carry the request id and never a secret: no raw API key, session token, invite
 * token or password in any log line, whatever the request did (success, refusal, server error).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createLogger } from '../../src/platform/logger.ts';
import { body, startTestApp, type TestApp } from '../harness.ts';

const lines: string[] = [];
let t: TestApp;
const secrets: string[] = [];

/** A secret and its distinctive part (the hex behind a prefix), so neither may appear in the logs. */
function secret(value: string): string {
  secrets.push(value);
  const underscore = value.indexOf('_');
  if (underscore > 0 && value.length - underscore > 16) secrets.push(value.slice(underscore + 1));
  return value;
}

before(async () => {
  t = await startTestApp({ logger: createLogger('trace', { write: (chunk: string) => void lines.push(chunk) }) });
});
after(() => t.close().catch(() => {}));

test('a login, key calls, sessions, invites and a provision log no secret', async () => {
  const requestIds: string[] = [];
  const send = async (options: Parameters<TestApp['request']>[0]) => {
    const res = await t.request(options);
    requestIds.push(String(res.headers['x-request-id']));
    return res;
  };

  const provisioned = await send({ method: 'POST', url: '/sandbox/provision', payload: { label: 'log test' } });
  assert.equal(provisioned.statusCode, 201);
  const sb = body<{
    apiKey: string;
    platformId: string;
    companyId: string;
    dashboardLogin: { email: string; password: string };
  }>(provisioned);
  secret(sb.apiKey);
  secret(sb.dashboardLogin.password);

  const wrong = secret('Wrong-Password-Zebra-42');
  assert.equal(
    (await send({ method: 'POST', url: '/auth/login', payload: { email: sb.dashboardLogin.email, password: wrong } }))
      .statusCode,
    401,
  );
  const login = await send({
    method: 'POST',
    url: '/auth/login',
    payload: { email: sb.dashboardLogin.email, password: sb.dashboardLogin.password },
  });
  assert.equal(login.statusCode, 200);
  const token = secret(body<{ sessionToken: string }>(login).sessionToken);

  // The key: a call it may make, and one it may not.
  const invited = await send({
    method: 'POST',
    url: '/users',
    headers: { 'x-api-key': sb.apiKey },
    payload: {
      platformId: sb.platformId,
      companyId: sb.companyId,
      email: 'log-invitee@example.com',
      name: 'I',
      roles: ['viewer'],
    },
  });
  assert.equal(invited.statusCode, 201, invited.body);
  const keyRefused = await send({
    method: 'GET',
    url: `/platforms/${sb.platformId}/companies`,
    headers: { 'x-api-key': sb.apiKey },
  });
  assert.equal(keyRefused.statusCode, 403);

  // The session, and a new key created with it.
  assert.equal((await send({ method: 'GET', url: '/auth/me', headers: { 'x-session-token': token } })).statusCode, 200);
  const created = await send({
    method: 'POST',
    url: `/platforms/${sb.platformId}/api-keys`,
    headers: { 'x-session-token': token },
    payload: { label: 'second' },
  });
  secret(body<{ key: string }>(created).key);

  // A user with a password, then the invite redeemed.
  const userPassword = secret('User-Password-Giraffe-77');
  const withPassword = await send({
    method: 'POST',
    url: '/users',
    headers: { 'x-session-token': token },
    payload: {
      platformId: sb.platformId,
      companyId: sb.companyId,
      email: 'log-user@example.com',
      name: 'U',
      roles: ['approver'],
      password: userPassword,
    },
  });
  assert.equal(withPassword.statusCode, 201);
  const invite = secret(/inv_[0-9a-f]{64}/.exec(t.mails[0]?.text ?? '')?.[0] ?? 'missing-invite');
  const invitePassword = secret('Invite-Password-Okapi-13');
  const redeemed = await send({
    method: 'POST',
    url: '/auth/set-password',
    payload: { token: invite, password: invitePassword },
  });
  assert.equal(redeemed.statusCode, 200, redeemed.body);

  // Refusals whose bodies carry secrets: malformed JSON, a schema violation, a bad invite.
  const leaky = secret('Leaky-Password-Narwhal-99');
  await send({
    method: 'POST',
    url: '/auth/login',
    headers: { 'content-type': 'application/json' },
    payload: `{"email":"x@example.com","password":"${leaky}"`,
  });
  await send({
    method: 'POST',
    url: '/auth/login',
    payload: { email: 42, password: leaky, extra: { password: leaky } },
  });
  await send({ method: 'POST', url: '/auth/set-password', payload: { token: invite, password: leaky } });
  await send({ method: 'GET', url: '/auth/me', headers: { 'x-session-token': `${token}x`, 'x-api-key': sb.apiKey } });

  // A server error in the middle of a login: the database goes away.
  await t.ctx.db.$client.end();
  const failed = await send({
    method: 'POST',
    url: '/auth/login',
    payload: { email: sb.dashboardLogin.email, password: sb.dashboardLogin.password },
  });
  assert.equal(failed.statusCode, 500);
  // The failed credential lookups log the failed query with its parameters: digests, never the secret.
  // A key found active moments ago is answered from the 2 s cache (ADR 0049) with no query: /auth/me
  // then wants a session (401). Nothing of the key may be logged either way.
  const keyFailed = await send({ method: 'GET', url: '/auth/me', headers: { 'x-api-key': sb.apiKey } });
  assert.equal(keyFailed.statusCode, 401);
  const sessionFailed = await send({ method: 'GET', url: '/auth/me', headers: { 'x-session-token': token } });
  assert.equal(sessionFailed.statusCode, 500);

  const text = lines.join('');
  assert.ok(lines.length > 20, 'requests are logged');
  for (const s of secrets) assert.ok(!text.includes(s), `the logs contain a secret: ${s.slice(0, 12)}...`);

  // Every line is JSON; request lines carry the request id that the response gave the client.
  const entries = lines
    .flatMap((chunk) => chunk.split('\n').filter(Boolean))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const logged = new Set(entries.map((e) => e.requestId).filter(Boolean));
  for (const id of requestIds) assert.ok(logged.has(id), `request ${id} is logged with its id`);
  const serverError = entries.find((e) => e.requestId === failed.headers['x-request-id'] && e.level === 50);
  assert.ok(serverError, 'the 500 is logged as an error with its request id');
});
