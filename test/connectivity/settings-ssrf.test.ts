import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertError, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { generateSshKey } from '../support/sftp-server.ts';
import { createConnection, getConnection, type Sandbox, scopeOf, session } from './support.ts';

/**
 * The SSRF guard at save time (issue 41.7): without WEBHOOK_ALLOW_PRIVATE_TARGETS, SFTP hosts and
 * web-services endpoints that are loopback, private, link-local or metadata addresses, in any IPv6
 * form, are refused with 400 and the reason, and the connection never becomes ready.
 */
let t: TestApp;
let sb: Sandbox;
before(async () => {
  t = await startTestApp();
  sb = await provisionAndLogin(t);
});
after(() => t.close());

test('private SFTP hosts are refused at save with the reason; the connection stays not ready', async () => {
  const created = await createConnection(t, sb, 'nordea-se');
  const hosts = [
    '127.0.0.1',
    'localhost',
    '::1',
    '[::1]',
    '::127.0.0.1',
    '::ffff:127.0.0.1',
    '169.254.169.254',
    '10.0.0.1',
    'fd00::1',
  ];
  for (const host of hosts) {
    const res = await t.request({
      method: 'PUT',
      url: `/connections/${created.id}/settings`,
      headers: session(sb),
      payload: {
        ...scopeOf(sb),
        sftp: {
          host,
          username: 'payops',
          hostKeySha256: `SHA256:${'A'.repeat(43)}`,
          inboundDir: '/in',
          outboundDir: '/out',
          privateKey: generateSshKey().privateKey,
        },
      },
    });
    const error = assertError(res, 400, 'validation_failed');
    assert.equal(error.details?.['field'], 'sftp.host', host);
    assert.match(error.message, /refused/, host);
  }
  assert.equal((await getConnection(t, sb, created.id)).status, 'pending-activation');
});

test('private web-services endpoints are refused at save', async () => {
  const created = await createConnection(t, sb, 'op');
  for (const url of ['https://169.254.169.254/ws', 'https://[::ffff:127.0.0.1]/ws', 'https://10.1.2.3/ws']) {
    const res = await t.request({
      method: 'PUT',
      url: `/connections/${created.id}/settings`,
      headers: session(sb),
      payload: { ...scopeOf(sb), webServices: { fileServiceUrl: url } },
    });
    assert.equal(assertError(res, 400, 'validation_failed').details?.['field'], 'webServices.fileServiceUrl', url);
  }
});
