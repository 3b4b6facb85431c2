import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { samplePayment } from '../domain-conversion/fixtures.ts';
import { assertError, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { generateSshKey, startSftpServer, type TestSftpServer } from '../support/sftp-server.ts';
import { createConnection, deliver, getConnection, type Sandbox, scopeOf, session, sql } from './support.ts';

/**
 * Channel settings through the API, no SQL: an SFTP connection set up with PUT /connections/{id}/settings
 * becomes active and delivers to the real SFTP test server; its secrets are write-only (never answered,
 * never in the audit trail, kept when omitted). Per-company bank settings through /bank-settings reach
 * the generated file. GET /connectivity/profiles describes activation from the channel's own data.
 */
let t: TestApp;
let server: TestSftpServer;
let sb: Sandbox;
const clientKey = generateSshKey();

before(async () => {
  server = await startSftpServer({ username: 'payops', authorizedKey: clientKey.publicKey, dirs: ['in', 'out'] });
  t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
  sb = await provisionAndLogin(t);
});
after(async () => {
  await t.close();
  await server.close();
});

const sftpSettings = () => ({
  host: server.host,
  port: server.port,
  username: 'payops',
  hostKeySha256: server.hostKeySha256,
  inboundDir: '/in',
  outboundDir: '/out',
  privateKey: clientKey.privateKey,
});

async function putSettings(id: string, body: Record<string, unknown>) {
  return t.request({
    method: 'PUT',
    url: `/connections/${id}/settings`,
    headers: session(sb),
    payload: { ...scopeOf(sb), ...body },
  });
}

test('SFTP configured through the settings route delivers to the real SFTP server; secrets are write-only', async () => {
  const created = await createConnection(t, sb, 'nordea-se');
  assert.equal(created.status, 'pending-activation');

  const wrong = assertError(await putSettings(created.id, { webServices: { customerId: '1' } }), 400, 'wrong_channel');
  assert.equal(wrong.details?.['field'], 'sftp');
  const badKey = assertError(
    await putSettings(created.id, { sftp: { ...sftpSettings(), hostKeySha256: 'not-a-fingerprint' } }),
    400,
    'validation_failed',
  );
  assert.equal(badKey.details?.['field'], 'sftp');
  assert.equal((await getConnection(t, sb, created.id)).status, 'pending-activation');

  const res = await putSettings(created.id, { sftp: sftpSettings() });
  assert.equal(res.statusCode, 200, res.body);
  const configured = res.json() as { status: string; readiness: { ready: boolean }; settings: Record<string, unknown> };
  assert.equal(configured.status, 'active');
  assert.equal(configured.readiness.ready, true);
  assert.equal(configured.settings['privateKeySet'], true);
  assert.equal(configured.settings['passwordSet'], false);
  assert.equal(configured.settings['host'], server.host);
  assert.equal(res.body.includes('PRIVATE KEY'), false, 'the key is never read back');

  // Changing a plain field keeps the stored key.
  const moved = await putSettings(created.id, {
    sftp: { ...sftpSettings(), privateKey: undefined, inboundDir: '/in' },
  });
  assert.equal(moved.statusCode, 200, moved.body);
  assert.equal((moved.json() as { settings: Record<string, unknown> }).settings['privateKeySet'], true);

  const messageId = 'SFTP-SETTINGS-1';
  const submitted = await t.request({
    method: 'POST',
    url: '/journal/payments',
    headers: { 'x-api-key': sb.apiKey, 'idempotency-key': messageId },
    payload: {
      companyId: sb.companyId,
      bankKey: 'nordea-se',
      environment: 'test',
      payment: { ...samplePayment('SEPA_CT', 'SE'), messageId },
    },
  });
  assert.equal(submitted.statusCode, 201, submitted.body);
  const doc = submitted.json() as { id: string; journalNo: string; xml: string };
  await deliver(t, sb, doc.id);
  const uploaded = readdirSync(server.local('/in'));
  assert.deepEqual(uploaded, [`${doc.journalNo}-${doc.id}.xml`]);
  assert.equal(readFileSync(server.local(`/in/${uploaded[0]}`), 'utf8'), doc.xml);

  const events = await sql<{ type: string; metadata: Record<string, unknown> }>(
    t,
    `SELECT type, metadata FROM activity_events WHERE company_id = $1 AND type LIKE 'connection.%' ORDER BY seq`,
    [sb.companyId],
  );
  assert.ok(events.some((e) => e.type === 'connection.settings_updated'));
  assert.deepEqual(events.find((e) => e.type === 'connection.settings_updated')?.metadata['secretsChanged'], [
    'privateKey',
  ]);
  assert.equal(JSON.stringify(events).includes('PRIVATE KEY'), false, 'no secret in the audit trail');
  const stored = await sql<{ channel_sealed: string }>(t, 'SELECT channel_sealed FROM connections WHERE id = $1', [
    created.id,
  ]);
  assert.equal(stored[0]!.channel_sealed.includes('PRIVATE'), false, 'settings are encrypted at rest');
});

test('GET|PUT /bank-settings/{bankKey}: per-company settings, applied on submit; API keys refused', async () => {
  const url = `/bank-settings/demo?platformId=${sb.platformId}&companyId=${sb.companyId}`;
  const initial = await t.request({ method: 'GET', url, headers: session(sb) });
  assert.equal(initial.statusCode, 200, initial.body);
  assert.deepEqual(initial.json(), {
    bankKey: 'demo',
    chargeBearer: null,
    executionDateOffsetDays: null,
    environments: ['test'],
  });
  assertError(await t.request({ method: 'GET', url, headers: { 'x-api-key': sb.apiKey } }), 403, 'admin_required');

  const put = await t.request({
    method: 'PUT',
    url: '/bank-settings/demo',
    headers: session(sb),
    payload: { ...scopeOf(sb), executionDateOffsetDays: 3 },
  });
  assert.equal(put.statusCode, 200, put.body);
  assert.deepEqual(put.json(), {
    bankKey: 'demo',
    chargeBearer: null,
    executionDateOffsetDays: 3,
    environments: ['test'],
  });
  const bad = await t.request({
    method: 'PUT',
    url: '/bank-settings/demo',
    headers: session(sb),
    payload: { ...scopeOf(sb), chargeBearer: 'NONE' },
  });
  assertError(bad, 400, 'validation_failed');
  const none = await t.request({
    method: 'PUT',
    url: '/bank-settings/op',
    headers: session(sb),
    payload: { ...scopeOf(sb), executionDateOffsetDays: 1 },
  });
  assertError(none, 404, 'connection_not_found');

  // A payment without an execution date is dated by the offset (delivery path only).
  const payment = structuredClone(sb.firstPayment.body.payment) as {
    messageId: string;
    payments: Array<{ executionDate?: string }>;
  };
  payment.messageId = 'BANK-SETTINGS-1';
  delete payment.payments[0]!.executionDate;
  const res = await t.request({
    method: 'POST',
    url: '/journal/payments',
    headers: { 'x-api-key': sb.apiKey, 'idempotency-key': payment.messageId },
    payload: { ...sb.firstPayment.body, payment },
  });
  assert.equal(res.statusCode, 201, res.body);
  const expected = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
  assert.match((res.json() as { xml: string }).xml, new RegExp(`<ReqdExctnDt>(<Dt>)?${expected}`));
});

test('GET /connectivity/profiles tells how to activate each web-services bank, from the channel data', async () => {
  const res = await t.request({ method: 'GET', url: '/connectivity/profiles' });
  assert.equal(res.statusCode, 200);
  const items = (res.json() as { items: Array<Record<string, unknown>> }).items;
  const op = items.find((p) => p['bankKey'] === 'op') as { webServices: Record<string, unknown> };
  const nordea = items.find((p) => p['bankKey'] === 'nordea-fi') as { webServices: Record<string, unknown> };
  assert.equal(op.webServices['family'], 'A');
  assert.equal(op.webServices['activationRoute'], 'activate-op');
  assert.equal(op.webServices['compression'], 'GZIP');
  assert.deepEqual(Object.keys(op.webServices['fieldRules'] as object), ['userId', 'pin']);
  assert.equal(nordea.webServices['family'], 'B');
  assert.equal(nordea.webServices['activationRoute'], 'activate-nordea');
  assert.equal(nordea.webServices['compression'], 'NONE');
  assert.deepEqual(Object.keys(nordea.webServices['fieldRules'] as object), [
    'holderName',
    'signerId',
    'country',
    'activationCode',
    'senderId',
  ]);
});

test('a wrong pinned host key, a refused key or a missing folder is refused at save against the real server; never ready', async () => {
  const other = await provisionAndLogin(t);
  const put = (body: Record<string, unknown>, id: string) =>
    t.request({
      method: 'PUT',
      url: `/connections/${id}/settings`,
      headers: session(other),
      payload: { ...scopeOf(other), ...body },
    });
  const created = await createConnection(t, other, 'nordea-se');
  const before = server.connectionCount;
  const wrongPin = `SHA256:${randomBytes(32).toString('base64').replace(/=+$/, '')}`;
  const cases: [Record<string, unknown>, string][] = [
    [{ hostKeySha256: wrongPin }, 'host_key_mismatch'],
    [{ privateKey: generateSshKey().privateKey }, 'auth_failed'],
    [{ inboundDir: '/no-such-folder' }, 'missing_folder'],
  ];
  for (const [change, code] of cases) {
    const error = assertError(
      await put({ sftp: { ...sftpSettings(), ...change } }, created.id),
      400,
      'channel_check_failed',
    );
    const details = (error.details ?? {}) as { check?: { code: string }; readiness?: { missing: string[] } };
    assert.equal(details.check?.code, code);
    assert.deepEqual(details.readiness?.missing, ['channel']);
    const now = await getConnection(t, other, created.id);
    assert.equal(now.status, 'pending-activation');
    assert.equal((now as unknown as { readiness: { ready: boolean } }).readiness.ready, false);
  }
  assert.ok(server.connectionCount >= before + 3, 'each check made a real SSH handshake');
});
