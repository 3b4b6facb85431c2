import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { insertDocument, insertPaymentLines, nextJournalNo } from '../../src/db/repositories/journal-documents.ts';
import { parseBankFile } from '../../src/domain/inbound/index.ts';
import { answerDeadline } from '../../src/domain/lifecycle/index.ts';
import { provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { sharedCorpusMissing } from '../support/shared-corpus.ts';

/**
 * Reconciliation of real bank shapes: a corpus camt.054 debit notification (read in place, never
 * copied) clears the outbound lines whose end-to-end ids it books, with the notification as evidence.
 */
const CORPUS = path.resolve(import.meta.dirname, '..', '..', '..', 'shared', 'corpus');
const FILE = path.join(
  CORPUS,
  'camt054',
  'moov-io-iso20022__200519_camt054-epo_p_ch5109000000250092291_1110097605_0_2019052003522556.xml',
);

let t: TestApp;
let sandbox: Awaited<ReturnType<typeof provisionAndLogin>>;
before(async () => {
  t = await startTestApp();
  sandbox = await provisionAndLogin(t);
});
after(() => t.close());

test('a corpus camt.054 clears the outbound lines it books, one to one, with evidence naming it', {
  skip: sharedCorpusMissing,
}, async () => {
  const content = readFileSync(FILE, 'utf8');
  const parsed = parseBankFile(content);
  assert.ok(parsed.ok && parsed.kind === 'statement');
  const block = parsed.blocks[0]!;
  assert.ok(block.ok);
  const booked = block.statement.transactions.filter((tx) => tx.direction === 'debit' && tx.endToEndId && tx.amount);
  assert.ok(booked.length >= 2);

  // The payment that file answers, as the journal would hold it (one line per booked transaction,
  // plus one the bank has not booked).
  const scope = { platformId: sandbox.platformId, companyId: sandbox.companyId };
  const documentId = 'doc_corpus054';
  await t.ctx.db.transaction(async (tx) => {
    const now = new Date();
    await insertDocument(tx, {
      id: documentId,
      ...scope,
      journalNo: await nextJournalNo(tx, scope.companyId, 'outbound'),
      direction: 'outbound',
      type: 'pain.001',
      sourceFormat: 'pain.001.001.03',
      bankKey: null,
      environment: 'production',
      status: 'sent',
      importSource: 'api',
      deliveryMode: 'host-to-host',
      deliveryStatus: 'delivered',
      createdAt: now,
      updatedAt: now,
    });
    const lines = [
      ...booked,
      { endToEndId: 'NOT-BOOKED', amount: '1.00', currency: booked[0]!.currency, bookingDate: booked[0]!.bookingDate },
    ];
    await insertPaymentLines(
      tx,
      lines.map((l, i) => ({
        documentId,
        lineIndex: i,
        ...scope,
        endToEndId: l.endToEndId,
        amount: l.amount!,
        amountMinor: BigInt(l.amount!.replace('.', '')),
        currency: l.currency,
        executionDate: l.bookingDate,
        updatedAt: now,
        openUntil: answerDeadline(now),
      })),
    );
  });

  const ingested = await t.request({
    method: 'POST',
    url: '/journal/ingest',
    headers: { 'x-api-key': sandbox.apiKey },
    payload: { companyId: sandbox.companyId, content },
  });
  assert.equal(ingested.statusCode, 201, ingested.body);
  const notificationId = (ingested.json() as { id: string }).id;

  const view = await t.request({
    method: 'GET',
    url: `/journal/documents/${documentId}/payments?companyId=${sandbox.companyId}`,
    headers: { 'x-api-key': sandbox.apiKey },
  });
  const body = view.json() as {
    status: string;
    payments: Array<{ endToEndId: string; recon: { state: string; evidence: Record<string, unknown> | null } }>;
  };
  for (const tx of booked) {
    const line = body.payments.find((p) => p.endToEndId === tx.endToEndId)!;
    assert.equal(line.recon.state, 'cleared', tx.endToEndId ?? '');
    assert.equal(line.recon.evidence!['source'], 'camt.054');
    assert.equal(line.recon.evidence!['documentId'], notificationId);
    assert.equal(line.recon.evidence!['amount'], tx.amount);
  }
  assert.equal(body.payments.find((p) => p.endToEndId === 'NOT-BOOKED')!.recon.state, 'pending');
  assert.equal(body.status, 'sent', 'a line is still pending: not executed yet');
});
