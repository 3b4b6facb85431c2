import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { pickUpBankFiles } from '../../src/app/delivery/pickup.ts';
import { manualClock } from '../../src/platform/clock.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { activatedConnection, auditEvents, deliver, type Sandbox, sql, submitFirstPayment } from './support.ts';

/**
 * Fail closed: a bank answer whose signature does not verify against the pinned bank certificate is
 * never used. A tampered upload answer leaves the document unsent (delivery failed, not retried); an
 * answer signed by another certificate (one the same bank CA issued: only pinning tells) makes the
 * download worker take nothing. Each refusal is an audit event and a warn log line.
 */
const clock = manualClock(new Date());
const lines: string[] = [];
let t: TestApp;
let sb: Sandbox;
let customerId: string;

before(async () => {
  t = await startTestApp({
    sandboxBanks: true,
    clock,
    logger: createLogger('warn', { write: (chunk: string) => void lines.push(chunk) }),
  });
  sb = await provisionAndLogin(t);
  customerId = (await activatedConnection(t, sb, 'op')).customerId;
});
after(() => t.close());

const submit = (messageId: string) => submitFirstPayment(t, sb, 'op', messageId);

async function documentRow(id: string) {
  const [row] = await sql<{ status: string; delivery_status: string; details: { delivery?: { lastError?: string } } }>(
    t,
    'SELECT status, delivery_status, details FROM journal_documents WHERE id = $1',
    [id],
  );
  return row!;
}

test('a tampered upload answer is refused: not sent, delivery failed at once, audit event and warn line', async () => {
  const sim = t.banks!.simulator('op')!;
  sim.injectFault({ kind: 'tamper-response', operation: 'uploadFile' });
  const id = await submit('TAMPER-1');
  await deliver(t, sb, id);
  const row = await documentRow(id);
  assert.equal(row.status, 'converted', 'never marked sent');
  assert.equal(row.delivery_status, 'failed', 'a bad signature is final: no retry sends it again');
  assert.match(row.details.delivery?.lastError ?? '', /signature/);
  const refused = await auditEvents(t, sb.companyId, ['connection.signature_refused']);
  assert.equal(refused.length, 1);
  assert.equal(refused[0]!.metadata['operation'], 'uploadFile');
  assert.equal(refused[0]!.metadata['documentId'], id);
  const warn = lines.map((l) => JSON.parse(l) as { level: number; msg: string; operation?: string });
  assert.ok(
    warn.some((l) => l.level === 40 && l.operation === 'uploadFile' && /signature/.test(l.msg)),
    'a warn line says why',
  );
});

test('an answer signed by another certificate is refused: the download worker ingests nothing, then recovers', async () => {
  const sim = t.banks!.simulator('op')!;
  const id = await submit('OTHER-CERT-1');
  await deliver(t, sb, id);
  assert.equal((await documentRow(id)).status, 'sent');
  const before = await sql<{ n: number }>(
    t,
    `SELECT count(*)::int AS n FROM journal_documents WHERE direction = 'inbound' AND company_id = $1`,
    [sb.companyId],
  );

  sim.injectFault({ kind: 'sign-with-other-certificate', operation: 'downloadFileList' });
  clock.advance(61_000);
  const refused = await pickUpBankFiles(t.ctx);
  assert.deepEqual(refused, { files: 0, failed: 1, deferred: 0 });
  const after = await sql<{ n: number }>(
    t,
    `SELECT count(*)::int AS n FROM journal_documents WHERE direction = 'inbound' AND company_id = $1`,
    [sb.companyId],
  );
  assert.equal(after[0]!.n, before[0]!.n, 'nothing of the refused answer was ingested');
  const events = await auditEvents(t, sb.companyId, ['connection.signature_refused']);
  assert.equal(events.at(-1)?.metadata['operation'], 'file list');

  // A file whose download answer is signed by another certificate is not taken either, and comes next time.
  sim.injectFault({ kind: 'sign-with-other-certificate', operation: 'downloadFile' });
  clock.advance(61_000);
  const partly = await pickUpBankFiles(t.ctx);
  assert.equal(partly.failed, 1);
  clock.advance(61_000);
  await pickUpBankFiles(t.ctx);
  assert.equal((await documentRow(id)).status, 'executed');
  // Every file the bank wrote was downloaded and ingested; the refused download was tried again.
  const files = sim.files(customerId).filter((f) => f.direction === 'download');
  assert.ok(files.every((f) => f.status === 'DOWNLOADED'));
});
