import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { pickUpBankFiles } from '../../src/app/delivery/pickup.ts';
import { openPool } from '../../src/db/client.ts';
import { buildContext } from '../../src/main/context.ts';
import { manualClock } from '../../src/platform/clock.ts';
import { provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { activatedConnection, deliver, documentOf, type Sandbox, sql, submitFirstPayment } from './support.ts';

/**
 * The download worker takes each bank file once, by the bank's file reference, across a restart: a
 * second process on the same database lists the bank's files (ALL, whatever their NEW/DOWNLOADED
 * flag), skips every reference taken before and downloads only new ones. A crash between ingest and
 * recording the reference downloads the file again, and ingest's content digest makes that a no-op.
 */
const clock = manualClock(new Date());
let t: TestApp;
let sb: Sandbox;
let customerId: string;
before(async () => {
  t = await startTestApp({ sandboxBanks: true, clock });
  sb = await provisionAndLogin(t);
  customerId = (await activatedConnection(t, sb, 'op')).customerId;
});
after(() => t.close());

async function payAndDeliver(messageId: string): Promise<string> {
  const id = await submitFirstPayment(t, sb, 'op', messageId);
  await deliver(t, sb, id);
  return id;
}

const inboundCount = async () =>
  (
    await sql<{ n: number }>(
      t,
      `SELECT count(*)::int AS n FROM journal_documents WHERE direction = 'inbound' AND company_id = $1`,
      [sb.companyId],
    )
  )[0]!.n;

test('each bank file is ingested once, by its reference, across a restart and a crash', async () => {
  const first = await payAndDeliver('DL-1');
  clock.advance(61_000);
  assert.deepEqual(await pickUpBankFiles(t.ctx), { files: 2, failed: 0, deferred: 0 });
  assert.equal((await documentOf(t, sb, first)).status, 'executed');
  const afterFirst = await inboundCount();
  // Not due again within the profile's minute: nothing is listed.
  assert.deepEqual(await pickUpBankFiles(t.ctx), { files: 0, failed: 0, deferred: 0 });

  // "Restart": a new process state (its own pool and context) on the same database and bank.
  const second = await payAndDeliver('DL-2');
  const pool = openPool(t.databaseUrl, 2);
  try {
    const restarted = buildContext({
      db: pool.db,
      config: t.ctx.config,
      logger: t.ctx.logger,
      jobs: t.ctx.jobs,
      encryptor: t.ctx.encryptor,
      mailer: t.ctx.mailer,
      clock,
      sandboxBanks: t.banks!,
    });
    clock.advance(61_000);
    assert.deepEqual(await pickUpBankFiles(restarted), { files: 2, failed: 0, deferred: 0 }, 'only the two new files');
    assert.equal((await documentOf(t, sb, second)).status, 'executed');
    assert.equal(await inboundCount(), afterFirst + 2);
    const files = t
      .banks!.simulator('op')!
      .files(customerId)
      .filter((f) => f.direction === 'download');
    assert.equal(files.length, 4);
    assert.deepEqual(
      files.map((f) => f.downloads),
      [1, 1, 1, 1],
      'every file downloaded exactly once',
    );
    const taken = await sql<{ file_reference: string; document_id: string | null }>(
      t,
      'SELECT file_reference, document_id FROM connection_files WHERE company_id = $1 ORDER BY file_reference',
      [sb.companyId],
    );
    assert.deepEqual(
      taken.map((r) => r.file_reference),
      files.map((f) => f.fileReference).sort(),
    );
    assert.ok(taken.every((r) => r.document_id?.startsWith('doc_')));

    // A crash after ingesting a file but before recording its reference: the next run downloads it
    // again and ingest recognises the content; no second document.
    const lost = files[3]!.fileReference;
    await sql(t, 'DELETE FROM connection_files WHERE file_reference = $1', [lost]);
    const before = await inboundCount();
    clock.advance(61_000);
    assert.deepEqual(await pickUpBankFiles(restarted), { files: 1, failed: 0, deferred: 0 });
    assert.equal(await inboundCount(), before, 'the repeated file is deduplicated by ingest');
    assert.equal(files[3]!.downloads, 2);
    const again = await sql<{ n: number }>(
      t,
      'SELECT count(*)::int AS n FROM connection_files WHERE file_reference = $1',
      [lost],
    );
    assert.equal(again[0]!.n, 1);
  } finally {
    await pool.close();
  }
});
