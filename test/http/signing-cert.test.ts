import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { allowProductionConnections, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';

/** PUT /connections/{id}/signing-cert: subject and expiry shown, certificate never returned. */
let t: TestApp;
let sandbox: Awaited<ReturnType<typeof provisionAndLogin>>;
let pem: string;
let der: string;
let dir: string;

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'cert-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '30',
      '-subj',
      '/CN=Bank Signing/O=Example Bank',
      '-keyout',
      path.join(dir, 'key.pem'),
      '-out',
      path.join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  pem = readFileSync(path.join(dir, 'cert.pem'), 'utf8');
  der = execFileSync('openssl', ['x509', '-in', path.join(dir, 'cert.pem'), '-outform', 'DER']).toString('base64');
  t = await startTestApp();
  sandbox = await provisionAndLogin(t);
  // Its production connections are under test: not a sandbox-only company.
  await allowProductionConnections(t, sandbox.companyId);
});
after(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

const session = () => ({ 'x-session-token': sandbox.sessionToken });

async function connection(bankKey: string): Promise<string> {
  const res = await t.request({
    method: 'POST',
    url: '/connections',
    headers: session(),
    payload: { platformId: sandbox.platformId, companyId: sandbox.companyId, bankKey, environment: 'production' },
  });
  assert.equal(res.statusCode, 201, res.body);
  return (res.json() as { id: string }).id;
}

const put = (id: string, cert: string, headers: Record<string, string> = session()) =>
  t.request({
    method: 'PUT',
    url: `/connections/${id}/signing-cert`,
    headers,
    payload: { platformId: sandbox.platformId, companyId: sandbox.companyId, cert },
  });

test('a PEM certificate is pinned: subject and expiry come back, the certificate never does', async () => {
  const id = await connection('op');
  const res = await put(id, pem);
  assert.equal(res.statusCode, 200, res.body);
  const body = res.json() as { connectionId: string; certSubject: string; certExpiry: string };
  assert.equal(body.connectionId, id);
  assert.match(body.certSubject, /CN=Bank Signing/);
  assert.ok(Date.parse(body.certExpiry) > Date.now());
  const view = await t.request({
    method: 'GET',
    url: `/connections/${id}?platformId=${sandbox.platformId}&companyId=${sandbox.companyId}`,
    headers: session(),
  });
  assert.equal((view.json() as { signingCertSubject: string }).signingCertSubject, body.certSubject);
  assert.ok(!view.body.includes('BEGIN CERTIFICATE'));
  assert.ok(!view.body.includes(der.slice(20, 60)));
  // Stored sealed, not in clear.
  const db = new pg.Client({ connectionString: t.databaseUrl });
  await db.connect();
  const row = await db.query('SELECT signing_cert_sealed FROM connections WHERE id = $1', [id]);
  await db.end();
  assert.ok(!String(row.rows[0].signing_cert_sealed).includes('BEGIN CERTIFICATE'));
});

test('base64 DER is accepted too', async () => {
  const id = await connection('nordea-fi');
  const res = await put(id, der);
  assert.equal(res.statusCode, 200, res.body);
});

test('a bad certificate or a non-web-services connection is 400; an API key is 403 admin_required', async () => {
  const ws = await connection('danske-fi');
  const bad = await put(ws, 'not a certificate');
  assert.equal(bad.statusCode, 400);
  assert.equal((bad.json() as { error: { code: string } }).error.code, 'invalid_certificate');
  const sftp = await connection('nordea-se');
  const wrongChannel = await put(sftp, pem);
  assert.equal(wrongChannel.statusCode, 400);
  assert.equal((wrongChannel.json() as { error: { code: string } }).error.code, 'not_web_services');
  const key = await put(ws, pem, { 'x-api-key': sandbox.apiKey });
  assert.equal(key.statusCode, 403);
  assert.equal((key.json() as { error: { code: string } }).error.code, 'admin_required');
});
