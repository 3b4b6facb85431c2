/**
 * Every bank file goes through the one bank-files entry point (src/app/bank-files/receive.ts,
 * docs/adr/0054), whatever its kind and wherever it comes from: the ingest route, a channel's pickup
 * (a real SFTP server), and the demo bank simulator answering through its channel's pickup. The
 * entry point alone counts `payops_bank_files_total{source, kind}`; each file below moves its own
 * source's count by one, and the journal keeps where it came from.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { deliverDocument } from '../../src/app/delivery/deliver-document.ts';
import { pickUpDemoBankAnswers } from '../../src/app/delivery/demo-bank-answers.ts';
import { pickUpBankFiles } from '../../src/app/delivery/pickup.ts';
import { deliveredFileOf, demoPain002 } from '../../src/domain/demo-bank/index.ts';
import { provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { generateSshKey, startSftpServer, type TestSftpServer } from '../support/sftp-server.ts';
import { SHARED_CORPUS, sharedCorpusMissing } from '../support/shared-corpus.ts';

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
  t = await startTestApp({ metrics: true, env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', DEMO_BANK_DELAY_MS: '0' } });
  sandbox = await provisionAndLogin(t);
  const sealed = t.ctx.encryptor.encrypt(
    JSON.stringify({
      kind: 'sftp',
      host: server.host,
      port: server.port,
      username: 'payops',
      privateKey: clientKey.privateKey,
      hostKeySha256: server.hostKeySha256,
      inboundDir: '/in',
      outboundDir: '/out',
      archiveDir: '/archive',
    }),
  );
  await t.ctx.db.execute(
    sql`INSERT INTO connections (id, platform_id, company_id, bank_key, environment, status, channel_sealed, created_at)
        VALUES ('conn_entry_sftp', ${sandbox.platformId}, ${sandbox.companyId}, 'nordea-se', 'test', 'active', ${sealed}, now())`,
  );
});
after(async () => {
  await t?.close();
  await server?.close();
});

const corpus = (name: string) => readFileSync(path.join(SHARED_CORPUS, name), 'utf8');

/** Two different files of each statement kind: one for the route, one for the pickup. */
const STATEMENTS: Record<string, [string, string]> = {
  'camt.052': [
    'camt052/genkgo-camt__camt052.v1.xml',
    'camt052/Subite-eu-camt-to-coda__LT809872649478701594__CAMT_052__2024-03-14.xml',
  ],
  'camt.053': [
    'camt053/genkgo-camt__camt053.v2.multi.statement.xml',
    'camt053/OCA-l10n-switzerland__camt.053_P_CH0309000000250090342_314434464_0_2016041900172157.xml',
  ],
  'camt.054': [
    'camt054/Subite-eu-camt-to-coda__LT809872649478701594__CAMT_054__2024-03-18.xml',
    'camt054/Subite-eu-camt-to-coda__LT809872649478701594__CAMT_054__2024-07-16.xml',
  ],
  mt940: ['mt940/zilverline-mt940__sns__sns.txt', 'mt940/fruitl00p-php-mt940__Rabo__sample2'],
};

async function counts(): Promise<Map<string, number>> {
  const { body } = await t.metrics!.render();
  const found = new Map<string, number>();
  for (const m of body.matchAll(/^payops_bank_files_total\{source="([^"]+)",kind="([^"]+)"\} (\d+)$/gm)) {
    found.set(`${m[1]} ${m[2]}`, Number(m[3]));
  }
  return found;
}

/** What each file moved: `source kind` -> files counted since `before`. */
function moved(before: Map<string, number>, after: Map<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, n] of after) if (n !== (before.get(key) ?? 0)) out[key] = n - (before.get(key) ?? 0);
  return out;
}

/** A payment submitted to the demo bank and delivered: a pain.002 can name it. */
async function deliveredPayment(n: number) {
  const body = JSON.parse(
    JSON.stringify(sandbox.firstPayment.body)
      .replace(/SANDBOX-(\d{8})-0001/g, `ENTRY-$1-${n}`)
      .replaceAll('E2E-0001', `E2E-ENTRY-${n}`),
  ) as { payment: unknown };
  const res = await t.request({
    method: 'POST',
    url: '/journal/payments',
    headers: { 'x-api-key': sandbox.apiKey, 'idempotency-key': `ENTRY-${n}` },
    payload: { ...body, companyId: sandbox.companyId },
  });
  assert.equal(res.statusCode, 201, res.body);
  const doc = res.json() as { id: string };
  const scope = { platformId: sandbox.platformId, companyId: sandbox.companyId };
  await deliverDocument(t.ctx, { documentId: doc.id, ...scope }, { retryCount: 0, retryLimit: 3 });
  return { id: doc.id, payment: body.payment };
}

async function importSources(): Promise<string[]> {
  const rows = await t.ctx.db.execute<{ type: string; import_source: string }>(
    sql`SELECT DISTINCT type, import_source FROM journal_documents WHERE company_id = ${sandbox.companyId} AND direction = 'inbound'
        ORDER BY 1, 2`,
  );
  return rows.rows.map((r) => `${r.import_source} ${r.type}`).sort();
}

test('each kind of bank file from each source goes through the one entry point', {
  skip: sharedCorpusMissing,
}, async () => {
  const report = await deliveredPayment(1);
  const reportByPickup = await deliveredPayment(2);
  const pain002 = (p: { payment: unknown }, id: string) =>
    demoPain002(deliveredFileOf(p.payment, 'pain.001.001.09'), id, '2026-12-01T10:00:00Z');

  // The route: POST /journal/ingest.
  let before = await counts();
  const byRoute = {
    ...Object.fromEntries(Object.entries(STATEMENTS).map(([k, [f]]) => [k, corpus(f)])),
    'pain.002': pain002(report, 'ENTRY-STS-1'),
  };
  for (const [kind, content] of Object.entries(byRoute)) {
    const res = await t.request({
      method: 'POST',
      url: '/journal/ingest',
      headers: { 'x-api-key': sandbox.apiKey },
      payload: { companyId: sandbox.companyId, content },
    });
    assert.ok([200, 201, 207].includes(res.statusCode), `${kind}: ${res.body}`);
    assert.equal((res.json() as { type: string }).type, kind);
  }
  assert.deepEqual(moved(before, await counts()), {
    'api camt.052': 1,
    'api camt.053': 1,
    'api camt.054': 1,
    'api mt940': 1,
    'api pain.002': 1,
  });

  // A channel's pickup: the bank's SFTP outbound folder.
  before = await counts();
  for (const [kind, [, file]] of Object.entries(STATEMENTS))
    writeFileSync(server.local(`/out/${kind}.txt`), corpus(file));
  writeFileSync(server.local('/out/pain.002.xml'), pain002(reportByPickup, 'ENTRY-STS-2'));
  const picked = await pickUpBankFiles(t.ctx);
  assert.deepEqual(picked, { files: 5, failed: 0, deferred: 0 });
  assert.deepEqual(moved(before, await counts()), {
    'channel camt.052': 1,
    'channel camt.053': 1,
    'channel camt.054': 1,
    'channel mt940': 1,
    'channel pain.002': 1,
  });

  // The demo bank simulator: it answers the payments delivered to it (the three of this test: a
  // pain.002 each, one statement booking them) through its channel's pickup.
  before = await counts();
  const answered = await deliveredPayment(3);
  const notice = { documentId: answered.id, platformId: sandbox.platformId, companyId: sandbox.companyId };
  assert.deepEqual(await pickUpDemoBankAnswers(t.ctx, [{ ...notice, replyAt: new Date().toISOString() }]), [true]);
  assert.deepEqual(moved(before, await counts()), { 'demo-bank camt.053': 1, 'demo-bank pain.002': 3 });

  assert.deepEqual(await importSources(), [
    'api camt.052',
    'api camt.053',
    'api camt.054',
    'api mt940',
    'api pain.002',
    'channel camt.052',
    'channel camt.053',
    'channel camt.054',
    'channel mt940',
    'channel pain.002',
    'demo-bank camt.053',
    'demo-bank pain.002',
  ]);
});
