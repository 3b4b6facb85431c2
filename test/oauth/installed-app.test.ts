/**
 * The "done when": the command-line client of scripts/oauth-installed-app.ts (RFC 8252:
 * loopback redirect, PKCE) signs a user in through the browser flow, submits and reads payments with
 * a token limited to its scopes, and loses access the moment its grant is revoked.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { freePort } from '../../src/platform/free-port.ts';
import { provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { Browser, formFields } from '../support/browser.ts';
import { registerClient } from '../support/oauth.ts';

const SCRIPT = path.resolve('scripts/oauth-installed-app.ts');

let t: TestApp;
let base: string;
let sandbox: Awaited<ReturnType<typeof provisionAndLogin>>;
let dir: string;
let cliPort: number;
let clientId: string;

before(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  t = await startTestApp({ env: { PUBLIC_BASE_URL: base } });
  await t.app.listen({ host: '127.0.0.1', port });
  sandbox = await provisionAndLogin(t);
  cliPort = await freePort();
  clientId = (await registerClient(t, sandbox, [`http://127.0.0.1:${cliPort}/callback`], 'payops CLI')).clientId;
  dir = mkdtempSync(path.join(tmpdir(), 'payops-cli-'));
});
after(async () => {
  rmSync(dir, { recursive: true, force: true });
  await t.close();
});

type Result = { code: number | null; stdout: string; stderr: string };
type Run = { output: { stdout: string; stderr: string }; done: Promise<Result> };

function cli(...args: string[]): Run {
  const child = spawn(
    process.execPath,
    [SCRIPT, ...args, '--base', base, '--client-id', clientId, '--tokens', path.join(dir, 'tokens.json')],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => {
    output.stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output.stderr += chunk.toString();
  });
  const done = new Promise<Result>((resolve) => child.on('close', (code) => resolve({ code, ...output })));
  return { output, done };
}

/** The address the client prints for its user to open (waited for, at most 10 s). */
async function printedUrl(run: Run): Promise<string> {
  for (let i = 0; i < 400; i++) {
    const match = /^(http:\/\/\S+\/oauth\/authorize\?\S+)$/m.exec(run.output.stdout);
    if (match) return match[1]!;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`the client printed no authorization address: ${run.output.stderr}`);
}

test('the client signs its user in, submits and reads payments, and loses access when the grant is revoked', async () => {
  const login = cli('login', '--port', String(cliPort), '--scope', 'payments:submit payments:read');
  const url = await printedUrl(login);
  assert.ok(url.startsWith(`${base}/oauth/authorize?`), url);
  const query = new URL(url).searchParams;
  assert.equal(query.get('code_challenge_method'), 'S256');
  assert.equal(query.get('redirect_uri'), `http://127.0.0.1:${cliPort}/callback`);

  // The user, in the browser: sign in, approve; the browser lands on the client's loopback server.
  const browser = new Browser(base);
  const signIn = await (await browser.get(url)).text();
  const signedIn = await browser.postForm('/oauth/authorize/sign-in', {
    ...formFields(signIn),
    email: sandbox.dashboardLogin.email,
    password: sandbox.dashboardLogin.password,
  });
  assert.equal(signedIn.status, 303);
  const consent = await (await browser.get(String(signedIn.headers.get('location')))).text();
  const approved = await browser.postForm('/oauth/authorize/decision', { ...formFields(consent), decision: 'approve' });
  assert.equal(approved.status, 302);
  const landing = await fetch(String(approved.headers.get('location')));
  assert.equal(await landing.text(), 'Signed in. You can close this window.');
  const loggedIn = await login.done;
  assert.equal(loggedIn.code, 0, loggedIn.stderr);
  assert.match(loggedIn.stdout, /Signed in; granted: payments:submit payments:read/);
  assert.equal(statSync(path.join(dir, 'tokens.json')).mode & 0o777, 0o600);

  const paymentFile = path.join(dir, 'payment.json');
  writeFileSync(paymentFile, JSON.stringify(sandbox.firstPayment.body));
  const submitted = await cli('submit', paymentFile).done;
  assert.equal(submitted.code, 0, submitted.stderr);
  const document = JSON.parse(submitted.stdout) as { id: string; journalNo: string; status: string; bankKey: string };
  assert.equal(document.journalNo, 'OUT-1');
  assert.equal(document.bankKey, 'demo');
  assert.match(document.id, /^doc_/);

  const listed = await cli('documents', '--company', sandbox.companyId).done;
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, new RegExp(`^OUT-1\\t\\S+\\t${document.id}$`, 'm'));

  // The admin revokes the grant: the very next call fails, and refreshing does not bring it back.
  const grants = await t.request({
    method: 'GET',
    url: '/oauth/grants',
    headers: { 'x-session-token': sandbox.sessionToken },
  });
  const grant = (grants.json() as { items: { id: string; clientId: string }[] }).items.find(
    (g) => g.clientId === clientId,
  )!;
  const revoked = await t.request({
    method: 'DELETE',
    url: `/oauth/grants/${grant.id}`,
    headers: { 'x-session-token': sandbox.sessionToken },
  });
  assert.equal(revoked.statusCode, 200);
  const refused = await cli('documents', '--company', sandbox.companyId).done;
  assert.equal(refused.code, 2, refused.stdout);
  assert.match(refused.stderr, /access was revoked or has expired \(invalid_grant/);
});
