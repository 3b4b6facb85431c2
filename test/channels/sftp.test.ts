import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { BankChannel, OutboundFile } from '../../src/channels/channel.ts';
import { createSftpChannel, type SftpChannelConfig } from '../../src/channels/sftp.ts';
import { parseBankFile } from '../../src/domain/inbound/index.ts';
import { generateSshKey, startSftpServer, type TestSftpServer } from '../support/sftp-server.ts';
import { sharedCorpusMissing } from '../support/shared-corpus.ts';

/**
 * The SFTP channel against a real SFTP server (ssh2's Server on 127.0.0.1, test/support/sftp-server.ts):
 * atomic idempotent upload, pinned host key, authentication errors without secrets, pickup of the
 * bank's files (a real pain.002 from the corpus) and their acknowledgement, and no hang when the
 * server drops or stalls mid-transfer.
 */
const PAIN002 = path.join(
  import.meta.dirname,
  '../../../shared/corpus/pain002/OCA-l10n-switzerland__pain002p-rejected.xml',
);
const PASSWORD = 'correct horse battery staple 7f3a';
const clientKey = generateSshKey();

let server: TestSftpServer;
const channels: BankChannel[] = [];

before(async () => {
  server = await startSftpServer({
    username: 'payops',
    password: PASSWORD,
    authorizedKey: clientKey.publicKey,
    dirs: ['in', 'out', 'archive'],
  });
});

after(async () => {
  for (const channel of channels) await channel.close();
  await server.close();
});

function channel(overrides: Partial<SftpChannelConfig> = {}): BankChannel {
  const created = createSftpChannel({
    host: server.host,
    port: server.port,
    username: 'payops',
    privateKey: clientKey.privateKey,
    hostKeySha256: server.hostKeySha256,
    inboundDir: '/in',
    outboundDir: '/out',
    archiveDir: '/archive',
    connectTimeoutMs: 5000,
    operationTimeoutMs: 10_000,
    allowPrivateNetwork: true,
    ...overrides,
  });
  channels.push(created);
  return created;
}

let seq = 0;
function outbound(content: string, fileName = `PAYOPS_${++seq}_pain001.xml`): OutboundFile {
  return { fileName, content, documentId: `doc-${seq}`, messageId: `MSG-${seq}` };
}

/** Empties a served folder (files only) between tests that look at whole listings. */
function emptyDir(dir: string): void {
  for (const name of readdirSync(server.local(dir))) {
    const p = path.join(server.local(dir), name);
    if (!statSync(p).isDirectory()) rmSync(p);
  }
}

describe('SFTP delivery', () => {
  test('uploads the exact bytes to the inbound folder, atomically (no .part left behind)', async () => {
    const ch = channel();
    const content = '<?xml version="1.0" encoding="UTF-8"?><Document>Müller & Söhne – 10,00 €</Document>\n';
    const file = outbound(content);
    const receipt = await ch.deliver(file);
    assert.deepEqual(receipt, { channel: 'sftp', reference: `/in/${file.fileName}`, alreadyDelivered: false });
    assert.deepEqual(readFileSync(server.local(`/in/${file.fileName}`)), Buffer.from(content, 'utf8'));
    assert.equal(existsSync(server.local(`/in/${file.fileName}.part`)), false);
  });

  test('a large file goes up in many chunks and arrives intact', async () => {
    const ch = channel();
    const content = 'x'.repeat(300_000) + 'end';
    const file = outbound(content);
    await ch.deliver(file);
    assert.equal(readFileSync(server.local(`/in/${file.fileName}`), 'utf8'), content);
  });

  test('a repeated deliver of the same fileName is alreadyDelivered and does not upload again', async () => {
    const ch = channel();
    const file = outbound('<Document>once</Document>');
    assert.equal((await ch.deliver(file)).alreadyDelivered, false);
    const before = statSync(server.local(`/in/${file.fileName}`));
    const again = await ch.deliver(file);
    assert.equal(again.alreadyDelivered, true);
    const after = statSync(server.local(`/in/${file.fileName}`));
    assert.equal(after.ino, before.ino, 'the file was not replaced');
    assert.equal(after.mtimeMs, before.mtimeMs, 'the file was not rewritten');
    const copies = readdirSync(server.local('/in')).filter((n) => n.startsWith(file.fileName));
    assert.deepEqual(copies, [file.fileName]);
  });

  test('the same fileName with different content is refused, the delivered file stays', async () => {
    const ch = channel();
    const file = outbound('<Document>first</Document>');
    await ch.deliver(file);
    await assert.rejects(ch.deliver({ ...file, content: '<Document>second</Document>' }), {
      code: 'conflict',
      retryable: false,
    });
    assert.equal(readFileSync(server.local(`/in/${file.fileName}`), 'utf8'), '<Document>first</Document>');
  });

  test('a stale .part from an interrupted attempt is replaced by the retry', async () => {
    const ch = channel();
    const file = outbound('<Document>complete</Document>');
    writeFileSync(server.local(`/in/${file.fileName}.part`), '<Docu');
    assert.equal((await ch.deliver(file)).alreadyDelivered, false);
    assert.equal(readFileSync(server.local(`/in/${file.fileName}`), 'utf8'), '<Document>complete</Document>');
    assert.equal(existsSync(server.local(`/in/${file.fileName}.part`)), false);
  });

  test('password authentication works too', async () => {
    const ch = channel({ privateKey: undefined, password: PASSWORD });
    const file = outbound('<Document>by password</Document>');
    await ch.deliver(file);
    assert.equal(readFileSync(server.local(`/in/${file.fileName}`), 'utf8'), '<Document>by password</Document>');
  });

  test('file names that are not plain names are refused before connecting', async () => {
    const ch = channel();
    const connections = server.connectionCount;
    for (const fileName of ['../escape.xml', 'a/b.xml', '.hidden', '', 'x\n.xml']) {
      await assert.rejects(ch.deliver(outbound('<x/>', fileName)), { code: 'invalid_file_name' });
    }
    assert.equal(server.connectionCount, connections);
  });
});

describe('SFTP security', () => {
  test('a host key that does not match the pinned fingerprint is refused, nothing is sent', async () => {
    const wrong = `SHA256:${Buffer.alloc(32, 7).toString('base64').replace(/=+$/, '')}`;
    const ch = channel({ hostKeySha256: wrong });
    const file = outbound('<Document>must not arrive</Document>');
    const err = await ch.deliver(file).then(
      () => assert.fail('delivered despite a wrong host key'),
      (e: Error & { code?: string; retryable?: boolean }) => e,
    );
    assert.equal(err.code, 'host_key_mismatch');
    assert.equal(err.retryable, false);
    assert.match(err.message, /does not match the pinned fingerprint/);
    assert.ok(err.message.includes(server.hostKeySha256), 'names the presented fingerprint');
    assert.equal(existsSync(server.local(`/in/${file.fileName}`)), false);
  });

  test('the pinned fingerprint is also accepted as hex', async () => {
    const hex = Buffer.from(server.hostKeySha256.slice('SHA256:'.length), 'base64').toString('hex');
    const ch = channel({ hostKeySha256: hex });
    assert.equal((await ch.deliver(outbound('<Document>hex pin</Document>'))).alreadyDelivered, false);
  });

  test('a missing or malformed fingerprint is a configuration error (no trust on first use)', () => {
    for (const hostKeySha256 of ['', 'SHA256:abc', 'MD5:00:11', 'not a fingerprint']) {
      assert.throws(() => channel({ hostKeySha256 }), { code: 'invalid_config' });
    }
  });

  test('a wrong password fails with a clear error that does not contain the password', async () => {
    const secret = 'wrong-password-Zq81!';
    const ch = channel({ privateKey: undefined, password: secret });
    const err = await ch.fetchInbound().then(
      () => assert.fail('authenticated with a wrong password'),
      (e: Error & { code?: string }) => e,
    );
    assert.equal(err.code, 'auth_failed');
    assert.match(err.message, /SFTP authentication failed for payops@127\.0\.0\.1:\d+/);
    assert.ok(!err.message.includes(secret));
    assert.ok(!JSON.stringify({ ...err, stack: err.stack }).includes(secret));
  });

  test('an unregistered key fails with a clear error that does not contain the key', async () => {
    const other = generateSshKey();
    const ch = channel({ privateKey: other.privateKey });
    const err = await ch.fetchInbound().then(
      () => assert.fail('authenticated with an unknown key'),
      (e: Error & { code?: string }) => e,
    );
    assert.equal(err.code, 'auth_failed');
    const keyBody = other.privateKey.split('\n')[1] ?? 'unreachable';
    assert.ok(!`${err.message}\n${err.stack}`.includes(keyBody));
  });

  test('an unusable private key is refused at configuration time without echoing it', () => {
    const garbage = '-----BEGIN RSA PRIVATE KEY-----\nc2VjcmV0LWtleS1tYXRlcmlhbA==\n-----END RSA PRIVATE KEY-----\n';
    assert.throws(
      () => channel({ privateKey: garbage }),
      (err: Error & { code?: string }) => err.code === 'invalid_config' && !err.message.includes('c2VjcmV0'),
    );
  });

  test('loopback and private addresses are refused unless explicitly allowed (SSRF rule)', async () => {
    const connections = server.connectionCount;
    const hosts = ['127.0.0.1', 'localhost', '10.1.2.3', '169.254.169.254', '::1', '[::1]', '::127.0.0.1'];
    // IPv6 forms embedding IPv4 and other spellings of loopback: the platform's one guard refuses them all.
    hosts.push(
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '0177.0.0.1',
      '2130706433',
      'fd00::1',
      'fe80::1',
      '64:ff9b::7f00:1',
    );
    for (const host of hosts) {
      const ch = channel({ host, allowPrivateNetwork: false });
      await assert.rejects(ch.fetchInbound(), { code: 'address_refused' }, host);
    }
    assert.equal(server.connectionCount, connections);
  });
});

describe('SFTP pickup', () => {
  test('fetchInbound returns what the bank wrote; the pain.002 parses; acknowledge archives it', {
    skip: sharedCorpusMissing,
  }, async () => {
    emptyDir('/out');
    const pain002 = readFileSync(PAIN002);
    writeFileSync(server.local('/out/PSR_20170515_KOBE.xml'), pain002);
    const ch = channel();

    const files = await ch.fetchInbound();
    assert.deepEqual(
      files.map((f) => f.name),
      ['PSR_20170515_KOBE.xml'],
    );
    const [file] = files;
    assert.ok(file);
    assert.deepEqual(Buffer.from(file.content), pain002);

    await ch.acknowledge(file);
    assert.equal(existsSync(server.local('/out/PSR_20170515_KOBE.xml')), false);
    assert.deepEqual(readFileSync(server.local('/archive/PSR_20170515_KOBE.xml')), pain002);
    assert.deepEqual(await ch.fetchInbound(), []);

    // Acknowledging again (a retried job) is harmless.
    await ch.acknowledge(file);
  });

  test('an archived file of the same name is kept: the next one gets a suffix', async () => {
    emptyDir('/out');
    writeFileSync(server.local('/archive/STMT_1.xml'), 'older');
    writeFileSync(server.local('/out/STMT_1.xml'), 'newer');
    const ch = channel();
    const [file] = await ch.fetchInbound();
    assert.ok(file);
    await ch.acknowledge(file);
    assert.equal(readFileSync(server.local('/archive/STMT_1.xml'), 'utf8'), 'older');
    assert.equal(readFileSync(server.local('/archive/STMT_1.xml.1'), 'utf8'), 'newer');
  });

  test('without an archive folder acknowledge deletes the file', async () => {
    emptyDir('/out');
    writeFileSync(server.local('/out/CAMT053_1.xml'), '<Document/>');
    const ch = channel({ archiveDir: undefined });
    const [file] = await ch.fetchInbound();
    assert.ok(file);
    await ch.acknowledge(file);
    assert.equal(existsSync(server.local('/out/CAMT053_1.xml')), false);
    assert.deepEqual(await ch.fetchInbound(), []);
    await ch.acknowledge(file);
  });

  test('.part files, dotfiles and folders are never picked up', async () => {
    emptyDir('/out');
    writeFileSync(server.local('/out/PSR_2.xml.part'), '<Docu');
    writeFileSync(server.local('/out/.PSR_3.xml'), '<Document/>');
    mkdirSync(server.local('/out/subfolder'), { recursive: true });
    writeFileSync(server.local('/out/PSR_4.xml'), '<Document/>');
    const files = await channel().fetchInbound();
    assert.deepEqual(
      files.map((f) => f.name),
      ['PSR_4.xml'],
    );
  });

  test('oversized files are left in place and logged; the count per call is capped, oldest first', async () => {
    emptyDir('/out');
    const names = ['F3.xml', 'F1.xml', 'BIG.xml', 'F4.xml', 'F2.xml'];
    for (const [i, name] of names.entries()) {
      const local = server.local(`/out/${name}`);
      writeFileSync(local, name === 'BIG.xml' ? 'x'.repeat(5000) : `<n>${name}</n>`);
      const when = new Date(Date.UTC(2026, 0, 1, 0, 0, name === 'BIG.xml' ? 0 : 10 + i));
      utimesSync(local, when, when);
    }
    const warnings: object[] = [];
    const logger = { warn: (obj: object) => warnings.push(obj) };
    const capped = await channel({ maxFileBytes: 1000, maxFilesPerFetch: 3, logger }).fetchInbound();
    assert.deepEqual(
      capped.map((f) => f.name),
      ['F3.xml', 'F1.xml', 'F4.xml'],
    );
    assert.deepEqual(warnings, [{ channel: 'sftp', host: server.host, file: '/out/BIG.xml', size: 5000, limit: 1000 }]);
    const all = await channel({ maxFileBytes: 1000 }).fetchInbound();
    assert.deepEqual(
      all.map((f) => f.name),
      ['F3.xml', 'F1.xml', 'F4.xml', 'F2.xml'],
    );
    assert.ok(existsSync(server.local('/out/BIG.xml')));
  });
});

describe('SFTP failures do not hang', () => {
  test('a server that drops the connection mid-download gives an error, the file stays for the next poll', {
    skip: sharedCorpusMissing,
  }, async () => {
    emptyDir('/out');
    writeFileSync(server.local('/out/PSR_DROP.xml'), readFileSync(PAIN002));
    const ch = channel();
    server.injectFault({ op: 'READ', action: 'drop' });
    const started = Date.now();
    await assert.rejects(ch.fetchInbound(), (err: Error & { code?: string; retryable?: boolean }) => {
      assert.equal(err.code, 'connection_lost');
      assert.equal(err.retryable, true);
      return true;
    });
    assert.ok(Date.now() - started < 5000);
    const files = await ch.fetchInbound();
    assert.deepEqual(
      files.map((f) => f.name),
      ['PSR_DROP.xml'],
    );
  });

  test('a server that drops the connection mid-upload gives an error; the retry delivers once', async () => {
    const ch = channel();
    const file = outbound('<Document>dropped then retried</Document>');
    server.injectFault({ op: 'WRITE', action: 'drop' });
    await assert.rejects(ch.deliver(file), { code: 'connection_lost' });
    assert.equal(existsSync(server.local(`/in/${file.fileName}`)), false, 'no half file under the final name');
    assert.equal((await ch.deliver(file)).alreadyDelivered, false);
    assert.equal((await ch.deliver(file)).alreadyDelivered, true);
    assert.equal(readFileSync(server.local(`/in/${file.fileName}`), 'utf8'), file.content);
  });

  test('a server that stops answering mid-transfer hits the operation timeout', async () => {
    const ch = channel({ operationTimeoutMs: 1500 });
    server.injectFault({ op: 'WRITE', action: 'stall' });
    const started = Date.now();
    await assert.rejects(ch.deliver(outbound('<Document>stalled</Document>')), { code: 'timeout', retryable: true });
    assert.ok(Date.now() - started < 5000);
  });

  test('a TCP peer that never speaks SSH hits the connect timeout', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const address = silent.address();
    assert.ok(address && typeof address === 'object');
    try {
      const ch = channel({ port: address.port, connectTimeoutMs: 800 });
      const started = Date.now();
      await assert.rejects(ch.fetchInbound(), { code: 'timeout' });
      assert.ok(Date.now() - started < 5000);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  test('a closed channel refuses further calls', async () => {
    const ch = channel();
    await ch.close();
    await assert.rejects(ch.fetchInbound(), { code: 'closed' });
  });
});

describe('fetched files go through the real parser', () => {
  test('the pain.002 fetched over SFTP parses to its status report (AC01 rejection)', {
    skip: sharedCorpusMissing,
  }, async () => {
    emptyDir('/out');
    writeFileSync(server.local('/out/PSR_PARSE.xml'), readFileSync(PAIN002));
    const [file] = await channel().fetchInbound();
    assert.ok(file);
    const parsed = parseBankFile(file.content);
    assert.ok(parsed.ok && parsed.kind === 'status-report', 'a pain.002 status report');
    assert.equal(parsed.format, 'pain.002');
    assert.equal(parsed.report.messageId, 'KOBE170515813733');
    assert.equal(parsed.report.originalMessageId, '2017/1013');
    const [tx] = parsed.report.rejectedTransactions;
    assert.equal(tx?.endToEndId, 'Ltest');
    assert.equal(tx?.reasons[0]?.code, 'AC01');
  });
});
