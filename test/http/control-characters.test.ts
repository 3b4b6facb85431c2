/**
 * Names and labels refuse control characters (CR, LF, tab, NUL, DEL, C1, U+2028/9) with 400
 * `bad_request` naming the field, and nothing is written; e-mails are composed by nodemailer, so a
 * line break in a subject or recipient can never add a header (`Evil Co\r\nBcc: ...`). Also from the
 * same hostile walk (issue 26): listing the users of a company outside the session is refused.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { composeMail, fileDropMailer } from '../../src/platform/mailer.ts';
import { assertError, nextIp, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';

const INJECTED = 'Evil Co\r\nBcc: someone@example.com';
const CONTROLS = ['\r', '\n', '\t', '\u0000', '\u007f', '\u0085', '\u2028'];

let t: TestApp;
let db: pg.Pool;
let a: Awaited<ReturnType<typeof provisionAndLogin>>;

before(async () => {
  t = await startTestApp();
  db = new pg.Pool({ connectionString: t.databaseUrl, max: 1 });
  a = await provisionAndLogin(t);
});
after(async () => {
  await db.end();
  await t.close();
});

const session = () => ({ 'x-session-token': a.sessionToken });
const count = async (table: string) => Number((await db.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n);

describe('names with control characters are refused', () => {
  test('a company name with CR LF: 400 bad_request on field name, no company written', async () => {
    const before = await count('companies');
    for (const c of CONTROLS) {
      const res = await t.request({
        method: 'POST',
        url: `/platforms/${a.platformId}/companies`,
        headers: session(),
        payload: { name: `Evil${c}Co` },
      });
      const error = assertError(res, 400, 'bad_request');
      // NUL is refused for every route at the edge (http/plugins/input-guard.ts), naming the body path.
      assert.deepEqual(error.details, { field: c === '\u0000' ? 'body.name' : 'name' }, JSON.stringify(c));
    }
    const injected = await t.request({
      method: 'POST',
      url: `/platforms/${a.platformId}/companies`,
      headers: session(),
      payload: { name: INJECTED },
    });
    assertError(injected, 400, 'bad_request');
    assert.equal(await count('companies'), before);
  });

  test('an ordinary name with accents and punctuation is still accepted (trimmed)', async () => {
    const res = await t.request({
      method: 'POST',
      url: `/platforms/${a.platformId}/companies`,
      headers: session(),
      payload: { name: '  Åström & Søn Oy (Zürich) ' },
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal((res.json() as { company: { name: string } }).company.name, 'Åström & Søn Oy (Zürich)');
  });

  test('a user name and an e-mail with a line break: 400, no user and no invite mail', async () => {
    const users = await count('users');
    const mails = t.mails.length;
    const badName = await t.request({
      method: 'POST',
      url: '/users',
      headers: session(),
      payload: {
        platformId: a.platformId,
        companyId: a.companyId,
        email: 'new-user@example.com',
        name: 'Mallory\nBcc: x@example.com',
        roles: ['viewer'],
      },
    });
    assert.deepEqual(assertError(badName, 400, 'bad_request').details, { field: 'name' });
    const badEmail = await t.request({
      method: 'POST',
      url: '/users',
      headers: session(),
      payload: {
        platformId: a.platformId,
        companyId: a.companyId,
        email: 'new-user@example.com\u0000',
        name: 'Mallory',
        roles: ['viewer'],
      },
    });
    assert.deepEqual(assertError(badEmail, 400, 'bad_request').details, { field: 'body.email' });
    const badEmailTab = await t.request({
      method: 'POST',
      url: '/users',
      headers: session(),
      payload: {
        platformId: a.platformId,
        companyId: a.companyId,
        email: 'new-user@exam\u0085ple.com',
        name: 'Mallory',
        roles: ['viewer'],
      },
    });
    assert.deepEqual(assertError(badEmailTab, 400, 'bad_request').details, { field: 'email' });
    assert.equal(await count('users'), users);
    assert.equal(t.mails.length, mails);
  });

  test('an API key label, an OAuth client name and a sandbox company name with a line break: 400', async () => {
    const label = await t.request({
      method: 'POST',
      url: `/platforms/${a.platformId}/api-keys`,
      headers: session(),
      payload: { label: 'ci\r\nX-Injected: 1' },
    });
    assert.deepEqual(assertError(label, 400, 'bad_request').details, { field: 'label' });
    const client = await t.request({
      method: 'POST',
      url: `/platforms/${a.platformId}/oauth-clients`,
      headers: session(),
      payload: { name: 'App\nName', redirectUris: ['http://127.0.0.1:8765/callback'] },
    });
    assert.deepEqual(assertError(client, 400, 'bad_request').details, { field: 'name' });
    const sandbox = await t.request({
      method: 'POST',
      url: '/sandbox/provision',
      payload: { companyName: INJECTED },
      remoteAddress: nextIp(),
    });
    assert.deepEqual(assertError(sandbox, 400, 'bad_request').details, { field: 'companyName' });
  });
});

describe('e-mails are composed by a library that encodes headers', () => {
  const headerLines = (message: Buffer) => message.toString('utf8').split('\r\n\r\n')[0]!.split('\r\n');

  test('a subject and a body holding CR LF add no header', async () => {
    const message = await composeMail(
      { to: 'admin@example.com', subject: `You are invited to ${INJECTED}`, text: `hello\r\nBcc: b@example.com` },
      'payops@localhost',
    );
    const headers = headerLines(message);
    assert.equal(headers.filter((h) => /^bcc:/i.test(h)).length, 0, headers.join('\n'));
    const subject = headers.find((h) => h.startsWith('Subject:'));
    assert.equal(subject, 'Subject: You are invited to Evil Co Bcc: someone@example.com');
    assert.deepEqual(
      headers.filter((h) => /^to:/i.test(h)),
      ['To: admin@example.com'],
    );
  });

  test('a non-ASCII subject is RFC 2047 encoded', async () => {
    const message = await composeMail({ to: 'a@example.com', subject: 'Kutsu: Åström Oy', text: 'x' }, 'p@localhost');
    const subject = headerLines(message).find((h) => h.startsWith('Subject:'));
    assert.match(subject ?? '', /^Subject: =\?UTF-8\?[QB]\?/);
  });

  test('the local mail drop writes the composed message', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'payops-mail-'));
    try {
      await fileDropMailer(dir, 'payops@example.org').send({
        to: 'admin@example.com',
        subject: `You are invited to ${INJECTED}`,
        text: 'Set your password',
      });
      const [file] = readdirSync(dir);
      const message = readFileSync(path.join(dir, file!));
      const headers = headerLines(message);
      assert.ok(headers.includes('From: payops@example.org'), headers.join('\n'));
      assert.equal(headers.filter((h) => /^bcc:/i.test(h)).length, 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('listing the users of a company outside the session', () => {
  test("another platform's company is 403 and an unknown company 404, never an empty list", async () => {
    const other = await provisionAndLogin(t);
    const list = (companyId: string) =>
      t.request({
        method: 'GET',
        url: `/users?platformId=${a.platformId}&companyId=${companyId}`,
        headers: session(),
      });
    assertError(await list(other.companyId), 403, 'forbidden');
    assertError(await list('comp_00000000000000000000000000'), 404, 'not_found');
    const own = await list(a.companyId);
    assert.equal(own.statusCode, 200, own.body);
    assert.ok((own.json() as { users: unknown[] }).users.length > 0);
  });
});
