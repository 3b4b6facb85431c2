import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { listPaymentLines } from '../../src/db/repositories/journal-documents.ts';
import type { OutboundStatus } from '../../src/domain/lifecycle/index.ts';
import { assertError, body, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { deliverNow } from '../support/deliver.ts';
import { sharedCorpusMissing } from '../support/shared-corpus.ts';
import { corpusFile, pain002, type SeedLine, seedOutbound } from './payment-status-helpers.ts';

let t: TestApp;
let sandbox: Awaited<ReturnType<typeof provisionAndLogin>> & {
  firstPayment: {
    headers: Record<string, string>;
    body: { payment: { messageId: string; payments: Array<{ transactions: Array<{ endToEndId: string }> }> } };
  };
};
let other: Awaited<ReturnType<typeof provisionAndLogin>>;
before(async () => {
  t = await startTestApp();
  sandbox = (await provisionAndLogin(t)) as typeof sandbox;
  other = await provisionAndLogin(t);
});
after(() => t.close());

const scope = () => ({ platformId: sandbox.platformId, companyId: sandbox.companyId });
type StatusAnswer = {
  messageId: string;
  originalMessageId: string;
  sourceFormat: string;
  documentId: string;
  journalNo: string;
  status: string;
  previousStatus: string;
  deduped: boolean;
  reportDocumentId: string;
  reportJournalNo: string;
};

const postStatus = (content: string, companyId = sandbox.companyId, apiKey = sandbox.apiKey) =>
  t.request({
    method: 'POST',
    url: '/inbound/payment-status',
    headers: { 'x-api-key': apiKey },
    payload: { companyId, content },
  });

const lines = (documentId: string) => listPaymentLines(t.ctx.db, scope(), documentId);
const statusOf = async (documentId: string) =>
  (
    (await t.ctx.db.execute(sql`SELECT status FROM journal_documents WHERE id = ${documentId}`)).rows[0] as {
      status: string;
    }
  ).status;
const eventsOf = async (documentId: string) =>
  (
    await t.ctx.db.execute(
      sql`SELECT type, metadata FROM activity_events WHERE company_id = ${sandbox.companyId}
          AND metadata->>'documentId' = ${documentId} ORDER BY seq`,
    )
  ).rows as Array<{ type: string; metadata: Record<string, unknown> }>;
const countRows = async (table: 'journal_documents' | 'activity_events') =>
  (
    (
      await t.ctx.db.execute(
        sql`SELECT count(*)::int AS n FROM ${sql.identifier(table)} WHERE company_id = ${sandbox.companyId}`,
      )
    ).rows[0] as { n: number }
  ).n;

let seq = 0;
const seed = (lineSpecs: Array<Partial<SeedLine>>, status: OutboundStatus = 'converted') => {
  seq++;
  const messageId = `MSG-PS-${seq}`;
  return seedOutbound(t.ctx, scope(), {
    messageId,
    status,
    lines: lineSpecs.map((l, i) => ({ endToEndId: `E2E-${seq}-${i}`, amount: '10.00', ...l })),
  });
};

test('a corpus pain.002 rejecting every transaction: the payment is rejected, each line with its reason', {
  skip: sharedCorpusMissing,
}, async () => {
  const doc = await seedOutbound(t.ctx, scope(), {
    messageId: 'MSGID12345678912',
    status: 'sent',
    lines: ['E2EID1', 'E2EID2', 'E2EID3', 'E2EID4'].map((e) => ({ endToEndId: e, amount: '100.00' })),
  });
  const content = corpusFile('pain002/OCA-account-payment__test-sepa-pain-unpaid.xml');
  const res = await postStatus(content);
  assert.equal(res.statusCode, 200, res.body);
  const answer = body<StatusAnswer>(res);
  assert.equal(answer.originalMessageId, 'MSGID12345678912');
  assert.equal(answer.sourceFormat, 'pain.002.001.03');
  assert.equal(answer.documentId, doc.id);
  assert.equal(answer.journalNo, doc.journalNo);
  assert.equal(answer.previousStatus, 'sent');
  assert.equal(answer.status, 'rejected');
  assert.equal(answer.deduped, false);
  assert.match(answer.reportJournalNo, /^IN-\d+$/);
  assert.equal(await statusOf(doc.id), 'rejected');

  const after = await lines(doc.id);
  assert.deepEqual(
    after.map((l) => [l.state, l.evidence?.reason]),
    [
      ['rejected', 'AC01'],
      ['rejected', 'MS02'],
      ['rejected', 'MD06'],
      ['rejected', after[3]!.evidence?.reason],
    ],
  );
  assert.deepEqual(after[0]!.evidence, {
    source: 'pain.002',
    summary: 'RJCT AC01 Incorrect account number',
    date: '2016-10-08T20:49:00',
    amount: '100.00',
    currency: 'EUR',
    reason: 'AC01',
    addtlInf: 'ACC NUMBER INVALID',
    documentId: answer.reportDocumentId,
    statusCode: 'RJCT',
  });

  // The report is journaled as an inbound pain.002 document, sealed, with an audit event; the
  // transition has its own.
  const [report] = (
    await t.ctx.db.execute(
      sql`SELECT type, direction, status, message_id, payload_sealed, file_sealed FROM journal_documents WHERE id = ${answer.reportDocumentId}`,
    )
  ).rows as Array<Record<string, string>>;
  assert.equal(report!.type, 'pain.002');
  assert.equal(report!.direction, 'inbound');
  assert.equal(report!.message_id, 'MSGID99345678912');
  assert.equal(t.ctx.encryptor.decrypt(report!.file_sealed!), content);
  assert.deepEqual(
    (await eventsOf(answer.reportDocumentId)).map((e) => e.type),
    ['journal.document.ingested'],
  );
  const transition = (await eventsOf(doc.id)).find((e) => e.type === 'payment.status_changed')!;
  assert.equal(transition.metadata.from, 'sent');
  assert.equal(transition.metadata.to, 'rejected');
  assert.equal(transition.metadata.reportDocumentId, answer.reportDocumentId);
  assert.equal(transition.metadata.lineTransitionCount, 4);

  // The same report again: the first outcome, nothing journaled or recorded again.
  const docs = await countRows('journal_documents');
  const events = await countRows('activity_events');
  const again = await postStatus(content);
  assert.equal(again.statusCode, 200, again.body);
  const replay = body<StatusAnswer>(again);
  assert.equal(replay.deduped, true);
  assert.equal(replay.reportDocumentId, answer.reportDocumentId);
  assert.equal(replay.status, 'rejected');
  assert.equal(await countRows('journal_documents'), docs);
  assert.equal(await countRows('activity_events'), events);
});

test('a corpus acknowledgement (ACSP): converted moves to sent, lines stay pending with evidence', {
  skip: sharedCorpusMissing,
}, async () => {
  const doc = await seedOutbound(t.ctx, scope(), {
    messageId: '7eeebed9a7cd4dd7af8733c68af34412',
    lines: ['5777', '5776', '5785'].map((e) => ({ endToEndId: e, amount: '10.00', currency: 'USD' })),
  });
  const res = await postStatus(
    corpusFile('pain002/anthony-gascon-flexport__namea__customerrefund__psrCustomerRefund.xml'),
  );
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(body<StatusAnswer>(res).status, 'sent');
  assert.equal(await statusOf(doc.id), 'sent');
  const after = await lines(doc.id);
  assert.ok(after.every((l) => l.state === 'pending'));
  assert.equal(after[0]!.evidence?.statusCode, 'ACSP');
  assert.deepEqual(
    (await eventsOf(doc.id)).map((e) => [e.type, e.metadata.from, e.metadata.to]),
    [['payment.status_changed', 'converted', 'sent']],
  );
});

test('group ACSC executes the payment and clears every line', async () => {
  const doc = await seed([{}, {}], 'sent');
  const res = await postStatus(
    pain002({ messageId: 'R-ACSC', originalMessageId: doc.messageId!, groupStatus: 'ACSC' }),
  );
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(body<StatusAnswer>(res).status, 'executed');
  const after = await lines(doc.id);
  assert.deepEqual(
    after.map((l) => [l.state, l.evidence?.source, l.evidence?.amount, l.evidence?.currency]),
    [
      ['cleared', 'pain.002', '10.00', 'EUR'],
      ['cleared', 'pain.002', '10.00', 'EUR'],
    ],
  );
});

test('group RJCT rejects the payment and every line with the group reason', async () => {
  const doc = await seed([{}, {}]);
  const res = await postStatus(
    pain002({ messageId: 'R-GRJ', originalMessageId: doc.messageId!, groupStatus: 'RJCT', groupReason: 'AM10' }),
  );
  assert.equal(body<StatusAnswer>(res).status, 'rejected');
  assert.deepEqual(
    (await lines(doc.id)).map((l) => [l.state, l.evidence?.reason]),
    [
      ['rejected', 'AM10'],
      ['rejected', 'AM10'],
    ],
  );
});

test('PART: resolved per line; executed when none is pending and one executed, else sent', async () => {
  const doc = await seed([{}, {}, {}], 'sent');
  const e2e = (i: number) => `E2E-${seq}-${i}`;
  const first = await postStatus(
    pain002({
      messageId: 'R-PART-1',
      originalMessageId: doc.messageId!,
      groupStatus: 'PART',
      transactions: [
        { endToEndId: e2e(0), status: 'ACSC' },
        { endToEndId: e2e(1), status: 'RJCT', reason: 'AC04', addtlInf: 'account closed' },
      ],
    }),
  );
  assert.equal(body<StatusAnswer>(first).status, 'sent');
  assert.deepEqual(
    (await lines(doc.id)).map((l) => l.state),
    ['cleared', 'rejected', 'pending'],
  );
  const rejected = (await lines(doc.id))[1]!;
  assert.equal(rejected.evidence?.reason, 'AC04');
  assert.equal(rejected.evidence?.addtlInf, 'account closed');

  const second = await postStatus(
    pain002({
      messageId: 'R-PART-2',
      originalMessageId: doc.messageId!,
      transactions: [{ endToEndId: e2e(2), status: 'ACCC' }],
    }),
  );
  assert.equal(body<StatusAnswer>(second).status, 'executed');
  assert.deepEqual(
    (await lines(doc.id)).map((l) => l.state),
    ['cleared', 'rejected', 'cleared'],
  );
});

test('matched by end-to-end ids when the original message id is unknown', async () => {
  const doc = await seed([{}, {}], 'sent');
  const res = await postStatus(
    pain002({
      messageId: 'R-E2E',
      originalMessageId: 'SOMETHING-ELSE',
      transactions: [
        { endToEndId: `E2E-${seq}-0`, status: 'ACSC' },
        { endToEndId: `E2E-${seq}-1`, status: 'ACSC' },
      ],
    }),
  );
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(body<StatusAnswer>(res).documentId, doc.id);
  assert.equal(body<StatusAnswer>(res).status, 'executed');
});

test('a report that matches nothing: 422 unmatched_report and nothing journaled', async () => {
  const docs = await countRows('journal_documents');
  const events = await countRows('activity_events');
  const res = await postStatus(
    pain002({
      messageId: 'R-NONE',
      originalMessageId: 'NO-SUCH-MESSAGE',
      transactions: [{ endToEndId: 'NO-SUCH-E2E', status: 'ACSC' }],
    }),
  );
  assertError(res, 422, 'unmatched_report');
  assert.equal(await countRows('journal_documents'), docs);
  assert.equal(await countRows('activity_events'), events);
});

test('a rejected or cancelled payment is not moved back', async () => {
  for (const status of ['rejected', 'cancelled'] as const) {
    const doc = await seed([{}], status);
    const res = await postStatus(
      pain002({ messageId: `R-TERM-${status}`, originalMessageId: doc.messageId!, groupStatus: 'ACSC' }),
    );
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(body<StatusAnswer>(res).status, status);
    assert.equal(await statusOf(doc.id), status);
    assert.equal((await lines(doc.id))[0]!.state, 'pending');
    assert.deepEqual(
      (await eventsOf(doc.id)).map((e) => e.type),
      ['payment.status_report_ignored'],
    );
  }
});

test('a late rejection after execution is recorded on the line; the payment stays executed', async () => {
  const doc = await seed([{}, {}], 'sent');
  await postStatus(pain002({ messageId: 'R-LATE-1', originalMessageId: doc.messageId!, groupStatus: 'ACSC' }));
  const res = await postStatus(
    pain002({
      messageId: 'R-LATE-2',
      originalMessageId: doc.messageId!,
      transactions: [{ endToEndId: `E2E-${seq}-1`, status: 'RJCT', reason: 'AC04' }],
    }),
  );
  assert.equal(body<StatusAnswer>(res).status, 'executed');
  const after = await lines(doc.id);
  assert.deepEqual(
    after.map((l) => [l.state, l.evidence?.lateRejection ?? null]),
    [
      ['cleared', null],
      ['rejected', true],
    ],
  );
  assert.ok((await eventsOf(doc.id)).some((e) => e.type === 'payment.late_rejection'));
});

test('a pain.002 sent to /journal/ingest is journaled and matched the same way', async () => {
  const doc = await seed([{}], 'sent');
  const content = pain002({ messageId: 'R-INGEST', originalMessageId: doc.messageId!, groupStatus: 'ACCC' });
  const ingest = (payload: Record<string, unknown>) =>
    t.request({ method: 'POST', url: '/journal/ingest', headers: { 'x-api-key': sandbox.apiKey }, payload });
  const res = await ingest({ companyId: sandbox.companyId, content, bankKey: 'demo' });
  assert.equal(res.statusCode, 201, res.body);
  const view = body<{
    id: string;
    type: string;
    direction: string;
    journalNo: string;
    deduped: boolean;
    ingest: { statementCount: number; ingested: number; statements: Array<{ kind: string; documentId: string }> };
    statusReport: { documentId: string; status: string };
  }>(res);
  assert.equal(view.type, 'pain.002');
  assert.equal(view.direction, 'inbound');
  assert.equal(view.ingest.statementCount, 1);
  assert.equal(view.ingest.statements[0]!.documentId, view.id);
  assert.deepEqual(view.statusReport.documentId, doc.id);
  assert.equal(view.statusReport.status, 'executed');
  assert.equal(await statusOf(doc.id), 'executed');

  const again = await postStatus(content);
  assert.equal(body<StatusAnswer>(again).deduped, true);
  assert.equal(body<StatusAnswer>(again).reportDocumentId, view.id);

  const unmatched = await ingest({
    companyId: sandbox.companyId,
    content: pain002({ messageId: 'R-INGEST-X', originalMessageId: 'NOPE', groupStatus: 'ACCC' }),
  });
  assertError(unmatched, 422, 'unmatched_report');
});

test('scope and format: another company 403, unknown company 404, a statement 422, key required', {
  skip: sharedCorpusMissing,
}, async () => {
  const doc = await seed([{}]);
  const content = pain002({ messageId: 'R-SCOPE', originalMessageId: doc.messageId!, groupStatus: 'ACSC' });
  assertError(await postStatus(content, other.companyId), 403, 'forbidden');
  assertError(await postStatus(content, 'comp_unknown'), 404, 'not_found');
  // Another tenant cannot reach this company's payment through its own company: no match.
  assertError(await postStatus(content, other.companyId, other.apiKey), 422, 'unmatched_report');
  assertError(await postStatus(corpusFile('mt940/WoLpH-mt940__jejik__sns.sta')), 422, 'unparseable_file');
  assertError(await postStatus('<Document><nothing/></Document>'), 422, 'unrecognised_format');
  const session = await t.request({
    method: 'POST',
    url: '/inbound/payment-status',
    headers: { 'x-session-token': sandbox.sessionToken },
    payload: { companyId: sandbox.companyId, content },
  });
  assertError(session, 403, 'forbidden');
  assert.equal(await statusOf(doc.id), 'converted');
});

test('a payment submitted through POST /journal/payments is advanced by its pain.002', async () => {
  const submitted = await t.request({
    method: 'POST',
    url: '/journal/payments',
    headers: { ...sandbox.firstPayment.headers, 'x-api-key': sandbox.apiKey },
    payload: sandbox.firstPayment.body,
  });
  assert.equal(submitted.statusCode, 201, submitted.body);
  const doc = body<{ id: string; journalNo: string; status: string }>(submitted);
  // A host-to-host payment takes its bank's reports once delivered (sent).
  await deliverNow(t.ctx, scope(), doc.id);
  const payment = sandbox.firstPayment.body.payment;
  const e2e = payment.payments[0]!.transactions[0]!.endToEndId;
  const res = await postStatus(
    pain002({
      messageId: 'R-SUBMITTED',
      originalMessageId: payment.messageId,
      groupStatus: 'ACSC',
      transactions: [{ endToEndId: e2e, status: 'ACSC' }],
    }),
  );
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(body<StatusAnswer>(res).documentId, doc.id);
  assert.equal(body<StatusAnswer>(res).previousStatus, 'sent');
  assert.equal(body<StatusAnswer>(res).status, 'executed');
  const after = await lines(doc.id);
  assert.ok(after.length > 0);
  assert.ok(after.every((l) => l.state === 'cleared'));
});
