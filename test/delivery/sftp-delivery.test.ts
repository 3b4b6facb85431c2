import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { type DeliveryJob, deliverDocument } from '../../src/app/delivery/deliver-document.ts';
import { pickUpBankFiles } from '../../src/app/delivery/pickup.ts';
import { deliveredFileOf, demoPain002 } from '../../src/domain/demo-bank/index.ts';
import { freePort } from '../../src/platform/free-port.ts';
import { samplePayment } from '../domain-conversion/fixtures.ts';
import { provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { generateSshKey, startSftpServer, type TestSftpServer } from '../support/sftp-server.ts';

/**
 * Host-to-host delivery over SFTP against a real SFTP server: the delivery job uploads the file to the
 * bank's inbound folder (once, even when retried), and the pickup job ingests what the bank writes to
 * its outbound folder through the real ingest path, moving the payment on.
 */
let t: TestApp;
let server: TestSftpServer;
let sandbox: Awaited<ReturnType<typeof provisionAndLogin>>;
const clientKey = generateSshKey();

before(async () => {
  server = await startSftpServer({
    username: 'payops',
    authorizedKey: clientKey.publicKey,
    dirs: ['in', 'out', 'archive'],
  });
  t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
  sandbox = await provisionAndLogin(t);
});
after(async () => {
  await t.close();
  await server.close();
});

async function connect(hostKeySha256: string, port = server.port) {
  const db = new pg.Client({ connectionString: t.databaseUrl });
  await db.connect();
  const sealed = t.ctx.encryptor.encrypt(
    JSON.stringify({
      kind: 'sftp',
      host: server.host,
      port,
      username: 'payops',
      privateKey: clientKey.privateKey,
      hostKeySha256,
      inboundDir: '/in',
      outboundDir: '/out',
      archiveDir: '/archive',
      connectTimeoutMs: 3000,
      operationTimeoutMs: 5000,
    }),
  );
  await db.query(
    `INSERT INTO connections (id, platform_id, company_id, bank_key, environment, status, channel_sealed, created_at)
     VALUES ($1, $2, $3, 'nordea-se', 'test', 'active', $4, now())
     ON CONFLICT (company_id, bank_key, environment) DO UPDATE SET channel_sealed = EXCLUDED.channel_sealed`,
    [`conn_sftp_${hostKeySha256.length}`, sandbox.platformId, sandbox.companyId, sealed],
  );
  await db.end();
}

async function submit(messageId: string) {
  const payment = { ...samplePayment('SEPA_CT', 'SE'), messageId };
  const res = await t.request({
    method: 'POST',
    url: '/journal/payments',
    headers: { 'x-api-key': sandbox.apiKey, 'idempotency-key': messageId },
    payload: { companyId: sandbox.companyId, bankKey: 'nordea-se', environment: 'test', payment },
  });
  assert.equal(res.statusCode, 201, res.body);
  const doc = res.json() as {
    id: string;
    journalNo: string;
    xml: string;
    status: string;
    delivery: { status: string };
  };
  assert.equal(doc.delivery.status, 'queued');
  return { doc, payment };
}

async function document(id: string) {
  const res = await t.request({
    method: 'GET',
    url: `/journal/documents/${id}?companyId=${sandbox.companyId}`,
    headers: { 'x-api-key': sandbox.apiKey },
  });
  return res.json() as { status: string; delivery: { status: string } | null };
}

test('the delivery job uploads the exact file once, and the pickup job ingests the bank reply', async () => {
  await connect(server.hostKeySha256);
  const { doc, payment } = await submit('SFTP-1');
  const job: DeliveryJob = { documentId: doc.id, platformId: sandbox.platformId, companyId: sandbox.companyId };
  await deliverDocument(t.ctx, job, { retryCount: 0, retryLimit: 3 });
  const uploaded = readdirSync(server.local('/in'));
  assert.deepEqual(uploaded, [`${doc.journalNo}-${doc.id}.xml`]);
  assert.equal(readFileSync(server.local(`/in/${uploaded[0]}`), 'utf8'), doc.xml);
  assert.deepEqual(await document(doc.id), {
    ...(await document(doc.id)),
    status: 'sent',
    delivery: { status: 'delivered' },
  });

  // A duplicate job (a retry after a crash) changes nothing and uploads nothing.
  await deliverDocument(t.ctx, job, { retryCount: 1, retryLimit: 3 });
  assert.equal(readdirSync(server.local('/in')).length, 1);

  // The bank answers: a pain.002 in its outbound folder.
  const reply = demoPain002(deliveredFileOf(payment, 'pain.001.001.03'), 'BANK-STS-1', '2026-11-23T10:00:00Z');
  writeFileSync(server.local('/out/status-1.xml'), reply);
  const picked = await pickUpBankFiles(t.ctx);
  assert.deepEqual(picked, { files: 1, failed: 0, deferred: 0 });
  assert.equal((await document(doc.id)).status, 'executed');
  assert.deepEqual(readdirSync(server.local('/out')), []);
  assert.deepEqual(readdirSync(server.local('/archive')), ['status-1.xml']);
  // Nothing left to pick up.
  assert.deepEqual(await pickUpBankFiles(t.ctx), { files: 0, failed: 0, deferred: 0 });
});

test('a permanent channel failure (the pinned host key does not match) ends the delivery at once, with its reason', async () => {
  await connect('SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
  const { doc } = await submit('SFTP-FAIL-1');
  const job: DeliveryJob = { documentId: doc.id, platformId: sandbox.platformId, companyId: sandbox.companyId };
  // Ten attempts left, but no retry can mend a wrong host key: the first attempt is the last.
  await deliverDocument(t.ctx, job, { retryCount: 0, retryLimit: 10 });
  const final = await document(doc.id);
  assert.equal(final.status, 'converted');
  assert.equal(final.delivery?.status, 'failed');
  const stored = await t.ctx.db.execute<{ details: { delivery: Record<string, unknown> } }>(
    sql`SELECT details FROM journal_documents WHERE id = ${doc.id}`,
  );
  const delivery = stored.rows[0]!.details.delivery;
  assert.equal(delivery.errorCode, 'host_key_mismatch');
  assert.equal(delivery.retryable, false);
  assert.match(String(delivery.failedReason), /host key/i);
  // The document's own delivery says why, and the connection is not ready, naming the fault.
  const shown = final.delivery as { status: string; reason?: string; code?: string };
  assert.equal(shown.code, 'host_key_mismatch');
  assert.match(shown.reason ?? '', /host key/i);
  const connections = await t.request({
    method: 'GET',
    url: `/connections?platformId=${sandbox.platformId}&companyId=${sandbox.companyId}`,
    headers: { 'x-session-token': sandbox.sessionToken },
  });
  assert.equal(connections.statusCode, 200, connections.body);
  const sftp = (
    connections.json() as {
      items: {
        bankKey: string;
        environment: string;
        readiness: { ready: boolean; missing: string[]; channelError: { code: string; message: string } | null };
      }[];
    }
  ).items.find((c) => c.bankKey === 'nordea-se' && c.environment === 'test');
  assert.equal(sftp?.readiness.ready, false);
  assert.ok(sftp?.readiness.missing.includes('channel'));
  assert.equal(sftp?.readiness.channelError?.code, 'host_key_mismatch');
  assert.match(sftp?.readiness.channelError?.message ?? '', /host key/i);

  const db = new pg.Client({ connectionString: t.databaseUrl });
  await db.connect();
  const events = await db.query(
    `SELECT type, message FROM activity_events WHERE company_id = $1 AND metadata->>'documentId' = $2 ORDER BY seq`,
    [sandbox.companyId, doc.id],
  );
  await db.end();
  assert.deepEqual(
    events.rows.map((r) => r.type),
    ['payment.submitted', 'payment.delivery_failed'],
  );
  assert.match(events.rows[1].message, /host key/i);
  assert.match(events.rows[1].message, /permanent/);
});

test('a retryable channel failure (nothing listens) retries, then the last attempt leaves the delivery failed', async () => {
  await connect(server.hostKeySha256, await freePort());
  const { doc } = await submit('SFTP-FAIL-2');
  const job: DeliveryJob = { documentId: doc.id, platformId: sandbox.platformId, companyId: sandbox.companyId };
  await assert.rejects(deliverDocument(t.ctx, job, { retryCount: 0, retryLimit: 1 }));
  assert.equal((await document(doc.id)).delivery?.status, 'retrying');
  await deliverDocument(t.ctx, job, { retryCount: 1, retryLimit: 1 });
  const final = await document(doc.id);
  assert.equal(final.status, 'converted');
  assert.equal(final.delivery?.status, 'failed');
  const events = await t.ctx.db.execute<{ type: string; message: string }>(
    sql`SELECT type, message FROM activity_events WHERE company_id = ${sandbox.companyId}
          AND metadata->>'documentId' = ${doc.id} ORDER BY seq`,
  );
  assert.deepEqual(
    events.rows.map((r) => r.type),
    ['payment.submitted', 'payment.delivery_retrying', 'payment.delivery_failed'],
  );
  assert.match(events.rows[2]!.message, /no more retries: SFTP connection .* failed/);
});
