/**
 * The demo bank's pain.002 files of a batch journaled set-wise (docs/adr/0051): each report ends as
 * journaling it alone would (the same statuses, line states, evidence, payment and audit events),
 * the batch takes consecutive inbound journal numbers, and what it cannot take set-wise (no outbound
 * document by original message id, a second report for one document, the same content twice) is
 * left to the ingest of one file with nothing of it written.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { recordEvents } from '../../src/app/audit/record.ts';
import { prepareInWorker } from '../../src/app/bank-files/file-worker.ts';
import { statusReportInput } from '../../src/app/bank-files/ingest.ts';
import { type BatchReportOutcome, journalStatusReportBatch } from '../../src/app/bank-files/payment-status-batch.ts';
import { listPaymentLines } from '../../src/db/repositories/journal-documents.ts';
import { provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { pain002, seedOutbound } from './payment-status-helpers.ts';

let t: TestApp;
let sandbox: Awaited<ReturnType<typeof provisionAndLogin>>;
before(async () => {
  t = await startTestApp();
  sandbox = await provisionAndLogin(t);
});
after(() => t.close());

const scope = () => ({ platformId: sandbox.platformId, companyId: sandbox.companyId });
let seeded = 0;
async function seed() {
  seeded++;
  return seedOutbound(t.ctx, scope(), {
    messageId: `BATCH-MSG-${seeded}`,
    lines: [
      { endToEndId: `BATCH-E2E-${seeded}-A`, amount: '10.00' },
      { endToEndId: `BATCH-E2E-${seeded}-B`, amount: '20.00' },
    ],
    status: 'sent',
    deliveryMode: 'host-to-host',
  });
}

/** The three kinds of answer: all executed, all rejected, one line each way. */
function reportsFor(docs: { messageId: string | null }[], tag: string): string[] {
  const [a, b, c] = docs.map((d) => d.messageId!);
  const e2e = (m: string, l: string) => `BATCH-E2E-${m.replace('BATCH-MSG-', '')}-${l}`;
  return [
    pain002({ messageId: `${tag}-1`, originalMessageId: a!, groupStatus: 'ACSC' }),
    pain002({ messageId: `${tag}-2`, originalMessageId: b!, groupStatus: 'RJCT', groupReason: 'AC04' }),
    pain002({
      messageId: `${tag}-3`,
      originalMessageId: c!,
      groupStatus: 'PART',
      transactions: [
        { endToEndId: e2e(c!, 'A'), status: 'ACSC' },
        { endToEndId: e2e(c!, 'B'), status: 'RJCT', reason: 'AM04' },
      ],
    }),
  ];
}

async function ingestBatch(contents: string[]): Promise<BatchReportOutcome[]> {
  const handles = await Promise.all(contents.map((c) => prepareInWorker(c, t.ctx.encryptor.sealingKey)));
  try {
    return await t.ctx.db.transaction(async (tx) => {
      const audit: Parameters<typeof recordEvents>[2] = [];
      const input = {
        bankKey: 'demo',
        environment: 'test',
        importSource: 'demo-bank',
        holdWhileDelivering: true,
      } as const;
      const outcomes = await journalStatusReportBatch(
        t.ctx,
        tx,
        scope(),
        handles.map((handle) => {
          if (!handle.file.ok || handle.file.kind !== 'status-report') throw new Error('not a status report');
          return statusReportInput(input, handle.file);
        }),
        audit,
      );
      await recordEvents(t.ctx, tx, audit);
      return outcomes;
    });
  } finally {
    for (const h of handles) h.release();
  }
}

async function ingestAlone(content: string): Promise<void> {
  const res = await t.request({
    method: 'POST',
    url: '/inbound/payment-status',
    headers: { 'x-api-key': sandbox.apiKey },
    payload: { companyId: sandbox.companyId, content },
  });
  assert.equal(res.statusCode, 200, res.body);
}

/** What a report left on its outbound document, without ids and times. */
async function trace(documentId: string) {
  const [doc] = (await t.ctx.db.execute(sql`SELECT status FROM journal_documents WHERE id = ${documentId}`)).rows as {
    status: string;
  }[];
  const lines = (await listPaymentLines(t.ctx.db, scope(), documentId)).map((l) => [
    l.state,
    l.openUntil === null,
    l.evidence?.source,
    l.evidence?.statusCode,
    l.evidence?.reason,
  ]);
  const audit = (
    (
      await t.ctx.db.execute(
        sql`SELECT type FROM activity_events WHERE company_id = ${sandbox.companyId}
           AND (metadata->>'documentId' = ${documentId} OR metadata->>'matchedDocumentId' = ${documentId}) ORDER BY seq`,
      )
    ).rows as { type: string }[]
  ).map((r) => r.type);
  const events = (
    (
      await t.ctx.db.execute(
        sql`SELECT type, payload->'data'->>'endToEndId' AS e2e, payload->'data'->>'reason' AS reason
            FROM outbox_events WHERE payload->'data'->>'documentId' = ${documentId} ORDER BY id`,
      )
    ).rows as { type: string; e2e: string | null; reason: string | null }[]
  ).map((r) => [r.type, r.e2e?.replace(/-\d+-/, '-n-') ?? null, r.reason]);
  return { status: doc!.status, lines, audit, events };
}

test('a batch of status reports journaled set-wise ends as each report journaled alone', async () => {
  const batchDocs = [await seed(), await seed(), await seed()];
  const aloneDocs = [await seed(), await seed(), await seed()];
  const outcomes = await ingestBatch(reportsFor(batchDocs, 'R-BATCH'));
  assert.deepEqual(
    outcomes.map((o) => (o.kind === 'journaled' ? [o.kind, o.deduped, o.match.status] : [o.kind])),
    [
      ['journaled', false, 'executed'],
      ['journaled', false, 'rejected'],
      ['journaled', false, 'executed'],
    ],
  );
  for (const content of reportsFor(aloneDocs, 'R-ALONE')) await ingestAlone(content);

  for (const [i, doc] of batchDocs.entries()) {
    const together = await trace(doc.id);
    const alone = await trace(aloneDocs[i]!.id);
    assert.deepEqual(together, alone, `report ${i + 1}`);
  }
  assert.deepEqual(
    (await trace(batchDocs[0]!.id)).audit,
    ['journal.document.ingested', 'payment.status_changed'],
    'the comparison sees the events',
  );
  // One journal number per report, consecutive.
  const numbers = outcomes.map((o) => (o.kind === 'journaled' ? Number(o.reportDocument.journalNo.slice(3)) : 0));
  assert.deepEqual(numbers, [numbers[0]!, numbers[0]! + 1, numbers[0]! + 2]);
});

test('what a batch cannot take set-wise is left alone, with nothing of it written; a repeat is deduped', async () => {
  const [a, b] = [await seed(), await seed()];
  const first = pain002({ messageId: 'R-LEFT-1', originalMessageId: a.messageId!, groupStatus: 'ACSP' });
  const [done] = await ingestBatch([first]);
  assert.equal(done?.kind, 'journaled');
  const reportsBefore = await t.ctx.db.execute(
    sql`SELECT count(*)::int AS n FROM journal_documents WHERE company_id = ${sandbox.companyId} AND type = 'pain.002'`,
  );
  const forB = pain002({ messageId: 'R-LEFT-2', originalMessageId: b.messageId!, groupStatus: 'ACSC' });
  const outcomes = await ingestBatch([
    first, // journaled before: deduped
    pain002({ messageId: 'R-LEFT-3', originalMessageId: 'NO-SUCH-MESSAGE', groupStatus: 'ACSC' }),
    forB,
    forB, // the same content twice
    pain002({ messageId: 'R-LEFT-4', originalMessageId: b.messageId!, groupStatus: 'RJCT' }), // b again
  ]);
  assert.deepEqual(
    outcomes.map((o) => (o.kind === 'journaled' ? `${o.kind}${o.deduped ? ' deduped' : ''}` : o.kind)),
    ['journaled deduped', 'alone', 'journaled', 'alone', 'alone'],
  );
  const reportsAfter = await t.ctx.db.execute(
    sql`SELECT count(*)::int AS n FROM journal_documents WHERE company_id = ${sandbox.companyId} AND type = 'pain.002'`,
  );
  assert.equal(
    (reportsAfter.rows[0] as { n: number }).n - (reportsBefore.rows[0] as { n: number }).n,
    1,
    'only the report the batch took is journaled',
  );
  assert.equal((await trace(b.id)).status, 'executed');
});
