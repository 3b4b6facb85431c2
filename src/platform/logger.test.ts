import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger } from './logger.ts';

function logged(write: (logger: ReturnType<typeof createLogger>) => void): string {
  const lines: string[] = [];
  write(createLogger('info', { write: (line: string) => void lines.push(line) }));
  return lines.join('');
}

test('secrets are censored by name at any depth; codes are not secrets', () => {
  const text = logged((log) =>
    log.warn(
      {
        code: 'host_key_mismatch',
        errorCode: 'auth_failed',
        bankKey: 'nordea-se',
        keyId: 'ak_1',
        hostKeySha256: 'SHA256:pinned',
        config: { password: 'pw-Zebra-1', privateKey: '-----BEGIN OPENSSH PRIVATE KEY-----', passphrase: 'pp-Okapi-2' },
        nested: { deeper: { apiKey: 'ak-Giraffe-3', client_secret: 'cs-Narwhal-4', sessionToken: 'tk-Lynx-5' } },
        list: [{ key: 'raw-Koala-6' }, { pin: '1234-Wombat' }, { slackUrl: 'https://example.com/x' }],
        master_key: 'mk-Tapir-7',
        refresh_token: 'rt-Ibex-8',
      },
      'a failure',
    ),
  );
  for (const leaked of ['pw-Zebra-1', 'PRIVATE KEY', 'pp-Okapi-2', 'ak-Giraffe-3', 'cs-Narwhal-4', 'tk-Lynx-5']) {
    assert.ok(!text.includes(leaked), leaked);
  }
  for (const leaked of ['raw-Koala-6', '1234-Wombat', 'example.com/x', 'mk-Tapir-7', 'rt-Ibex-8']) {
    assert.ok(!text.includes(leaked), leaked);
  }
  const line = JSON.parse(text) as Record<string, unknown>;
  assert.equal(line['code'], 'host_key_mismatch');
  assert.equal(line['errorCode'], 'auth_failed');
  assert.equal(line['bankKey'], 'nordea-se');
  assert.equal(line['keyId'], 'ak_1');
  assert.equal(line['hostKeySha256'], 'SHA256:pinned');
});

test('Slack webhook URLs and our credential forms are censored inside any string', () => {
  const apiKey = `key_${'ab'.repeat(32)}`;
  const text = logged((log) =>
    log.warn(
      { reason: `POST https://hooks.slack.com/services/T000/B000/XXXXsecret failed; key ${apiKey}` },
      'webhook attempt failed',
    ),
  );
  assert.ok(!text.includes('XXXXsecret'));
  assert.ok(!text.includes(apiKey));
  assert.match(text, /failed; key \[redacted\]/);
});

/** Shaped as the channels' errors are: a class of its own, a code and a message. */
class SftpChannelError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = 'SftpChannelError';
    this.code = code;
  }
}

test('a channel error logged as err keeps its code and message, never a field holding a secret', () => {
  const error = Object.assign(new SftpChannelError('auth_failed', 'SFTP authentication failed for payops@bank:22'), {
    password: 'pw-Marten-9',
  });
  const line = JSON.parse(logged((log) => log.warn({ err: error }, 'delivery failed'))) as {
    err: { code: string; message: string; type: string; password: string };
  };
  assert.equal(line.err.code, 'auth_failed');
  assert.equal(line.err.message, 'SFTP authentication failed for payops@bank:22');
  assert.equal(line.err.type, 'SftpChannelError');
  assert.equal(line.err.password, '[redacted]');
});
