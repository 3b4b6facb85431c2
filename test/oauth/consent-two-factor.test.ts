/**
 * The consent page's sign-in asks a user with 2FA for the code (DESIGN.md, Identity; issue 24's
 * leftover): the password alone sets no session cookie; a wrong code shows the code page again; a
 * right one signs in and leads to the consent page; a used challenge or code is refused.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { totpCode } from '../../src/domain/identity/totp.ts';
import { manualClock } from '../../src/platform/clock.ts';
import { freePort } from '../../src/platform/free-port.ts';
import { provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { Browser, formFields } from '../support/browser.ts';
import { pkcePair, registerClient } from '../support/oauth.ts';

const clock = manualClock(new Date('2026-11-26T12:00:10.000Z'));
let t: TestApp;
let base: string;
let sandbox: Awaited<ReturnType<typeof provisionAndLogin>>;
let secret: string;
let clientId: string;
const redirectUri = 'http://127.0.0.1:47123/callback';

before(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  t = await startTestApp({ clock, env: { PUBLIC_BASE_URL: base } });
  await t.app.listen({ host: '127.0.0.1', port });
  sandbox = await provisionAndLogin(t);
  const headers = { 'x-session-token': sandbox.sessionToken };
  secret = (await t.request({ method: 'POST', url: '/2fa/setup', headers })).json().secret as string;
  const enabled = await t.request({
    method: 'POST',
    url: '/2fa/enable',
    headers,
    payload: { code: totpCode(secret, clock.now()) },
  });
  assert.equal(enabled.statusCode, 200, enabled.body);
  clientId = (await registerClient(t, sandbox, [redirectUri])).clientId;
});
after(() => t.close());

function authorizeUrl(): string {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: 'payments:read',
    state: 's-1',
    code_challenge: pkcePair().challenge,
    code_challenge_method: 'S256',
  });
  return `/oauth/authorize?${query}`;
}

test('sign-in of a user with 2FA asks for the code before the session cookie is set', async () => {
  const browser = new Browser(base);
  const page = await browser.get(authorizeUrl());
  assert.equal(page.status, 200);
  const passwordStep = await browser.postForm('/oauth/authorize/sign-in', {
    ...formFields(await page.text()),
    email: sandbox.dashboardLogin.email,
    password: sandbox.dashboardLogin.password,
  });
  assert.equal(passwordStep.status, 200);
  assert.equal(browser.cookie('payops_session'), undefined, 'no session before the second factor');
  const codeHtml = await passwordStep.text();
  assert.match(codeHtml, /action="\/oauth\/authorize\/sign-in\/2fa"/);
  assert.match(codeHtml, /authenticator app/);
  const fields = formFields(codeHtml);
  assert.match(fields['challenge_token'] ?? '', /^lc_[0-9a-f]{64}$/);
  assert.equal(fields['client_id'], clientId);

  const wrong = await browser.postForm('/oauth/authorize/sign-in/2fa', { ...fields, code: '000000' });
  assert.equal(wrong.status, 401);
  const retryHtml = await wrong.text();
  assert.match(retryHtml, /Wrong or already used code/);
  assert.equal(browser.cookie('payops_session'), undefined);

  // Without this browser's sign-in token the code step is refused (login CSRF), whatever the code.
  clock.advance(30_000);
  const forged = await new Browser(base).postForm('/oauth/authorize/sign-in/2fa', {
    ...formFields(retryHtml),
    code: totpCode(secret, clock.now()),
  });
  assert.equal(forged.status, 403);

  const code = totpCode(secret, clock.now());
  const signedIn = await browser.postForm('/oauth/authorize/sign-in/2fa', { ...formFields(retryHtml), code });
  assert.equal(signedIn.status, 303, await signedIn.text());
  assert.match(String(browser.cookie('payops_session')), /^st_[0-9a-f]{64}$/);
  const consent = await browser.get(String(signedIn.headers.get('location')));
  assert.equal(consent.status, 200);
  assert.match(await consent.text(), /Approve ERP connector\?/);

  // The challenge was spent: posting it again starts over at the password.
  const browser2 = new Browser(base);
  const page2 = await browser2.get(authorizeUrl());
  const replay = await browser2.postForm('/oauth/authorize/sign-in/2fa', {
    ...formFields(await page2.text()),
    challenge_token: fields['challenge_token']!,
    code,
  });
  assert.equal(replay.status, 401);
  assert.match(await replay.text(), /sign in again/);
  assert.equal(browser2.cookie('payops_session'), undefined);

  // A new sign-in with the same (spent) code is refused at the code step.
  const page3 = await browser2.get(authorizeUrl());
  const step = await browser2.postForm('/oauth/authorize/sign-in', {
    ...formFields(await page3.text()),
    email: sandbox.dashboardLogin.email,
    password: sandbox.dashboardLogin.password,
  });
  const reuse = await browser2.postForm('/oauth/authorize/sign-in/2fa', { ...formFields(await step.text()), code });
  assert.equal(reuse.status, 401);
  assert.match(await reuse.text(), /Wrong or already used code/);
});
