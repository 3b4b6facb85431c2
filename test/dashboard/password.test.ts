/**
 * The change-password page: the API's rules, errors shown at their fields, the user's other sessions
 * signed out and this one kept, never a password written back into the page.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { addCompanyUser, nextIp, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { type Browser, form, get, post, signIn } from './support.ts';

let t: TestApp;
let sandbox: Awaited<ReturnType<typeof provisionAndLogin>>;
const email = 'pat.password@example.com';
const OLD = 'the old password 123';
const NEW = 'a brand new password 456';

before(async () => {
  t = await startTestApp();
  sandbox = await provisionAndLogin(t);
  await addCompanyUser(t, sandbox, { email, name: 'Pat Password', roles: ['approver'], password: OLD });
});
after(() => t.close());

async function apiLogin(password: string) {
  return t.request({ method: 'POST', url: '/auth/login', payload: { email, password }, remoteAddress: nextIp() });
}

const change = (b: Browser, fields: Record<string, string>) => post(t, b, '/dashboard/security/password', fields);

test('the form: three password fields with the API rules, a CSRF token, linked from the security page', async () => {
  const browser = await signIn(t, email, OLD);
  const security = await get(t, browser, '/dashboard/security');
  assert.match(security.body, /<a href="\/dashboard\/security\/password">Change your password<\/a>/);
  const page = await get(t, browser, '/dashboard/security/password');
  assert.equal(page.statusCode, 200);
  assert.match(
    page.body,
    /<form method="post" action="\/dashboard\/security\/password" class="stack"><input type="hidden" name="csrf_token" value="[^"]+">/,
  );
  assert.match(
    page.body,
    /<input id="pw-current" name="currentPassword" type="password" required maxlength="256" autocomplete="current-password">/,
  );
  assert.match(
    page.body,
    /<input id="pw-new" name="newPassword" type="password" required minlength="8" maxlength="256" autocomplete="new-password">/,
  );
  assert.match(page.body, /<input id="pw-again" name="newPasswordAgain" type="password"/);
});

test('errors are shown at their field, nothing changes, and no password comes back in the page', async () => {
  const browser = await signIn(t, email, OLD);
  const differ = await change(browser, { currentPassword: OLD, newPassword: NEW, newPasswordAgain: `${NEW}x` });
  assert.equal(differ.statusCode, 400);
  assert.match(
    differ.body,
    /name="newPasswordAgain" type="password"[^>]* aria-invalid="true" aria-describedby="pw-again-error"><p class="field-error" id="pw-again-error">the two new passwords differ<\/p>/,
  );
  const wrong = await change(browser, { currentPassword: 'not it at all', newPassword: NEW, newPasswordAgain: NEW });
  assert.equal(wrong.statusCode, 400);
  assert.match(wrong.body, /<p class="field-error" id="pw-current-error">the current password is wrong<\/p>/);
  const short = await change(browser, { currentPassword: OLD, newPassword: 'short', newPasswordAgain: 'short' });
  assert.equal(short.statusCode, 400);
  assert.match(short.body, /<p class="field-error" id="pw-new-error">password must have at least 8 characters<\/p>/);
  for (const res of [differ, wrong, short]) {
    assert.match(res.body, /<p class="notice error" role="alert">Nothing was changed\.<\/p>/);
    assert.equal(res.body.includes(NEW), false);
    assert.equal(res.body.includes(OLD), false);
  }
  assert.equal((await apiLogin(OLD)).statusCode, 200, 'the old password still works');
});

test('a post without the CSRF token is refused', async () => {
  const browser = await signIn(t, email, OLD);
  const res = await t.request({
    method: 'POST',
    url: '/dashboard/security/password',
    headers: { cookie: browser.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: form({ currentPassword: OLD, newPassword: NEW, newPasswordAgain: NEW }),
    remoteAddress: browser.remoteAddress,
  });
  assert.equal(res.statusCode, 403);
  assert.equal((await apiLogin(OLD)).statusCode, 200);
});

test('a change signs out the other sessions and keeps this one; the new password signs in, the old not', async () => {
  const browser = await signIn(t, email, OLD);
  const other = await apiLogin(OLD);
  const otherToken = (other.json() as { sessionToken: string }).sessionToken;
  const me = () => t.request({ method: 'GET', url: '/auth/me', headers: { 'x-session-token': otherToken } });
  assert.equal((await me()).statusCode, 200);
  const done = await change(browser, { currentPassword: OLD, newPassword: NEW, newPasswordAgain: NEW });
  assert.equal(done.statusCode, 200, done.body);
  // Every other session of the user: the three earlier browsers, the two API sign-ins of the earlier
  // tests and this test's.
  assert.match(
    done.body,
    /<p class="notice ok" role="status">Your password is changed\. 6 other sessions were signed out\.<\/p>/,
  );
  assert.equal((await me()).statusCode, 401);
  assert.equal((await get(t, browser, '/dashboard/security')).statusCode, 200, 'this browser stays signed in');
  assert.equal((await apiLogin(OLD)).statusCode, 401);
  assert.equal((await apiLogin(NEW)).statusCode, 200);
});
