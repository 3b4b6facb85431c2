/**
 * Returns of outbound payments (issue 39, docs/adr/0070): a statement entry with return information,
 * a reversal indicator or an MT940 storno that points back to an outbound line (by end-to-end id, by
 * instruction id, or failing both by amount and counterparty account within the window) rejects that
 * line even after it cleared, with the reason and the entry as evidence (rule `return`), emits
 * `payment.returned`, and rejects the document only when every line came back.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { insertDocument, insertPaymentLines, nextJournalNo } from '../../src/db/repositories/journal-documents.ts';
import { get, signIn } from '../dashboard/support.ts';
import { provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { deliverNow } from '../support/deliver.ts';
import { camt054Returns, mt940Storno } from '../support/return-files.ts';
import { SHARED_CORPUS, sharedCorpusMissing } from '../support/shared-corpus.ts';
import { statementWith } from '../support/statement-with.ts';

let t: TestApp;
let sandbox: Awaited<ReturnType<typeof provisionAndLogin>>;

before(async () => {
  t = await startTestApp();
  sandbox = await provisionAndLogin(t);
});
after(() => t.close());

const key = () => ({ 'x-api-key': sandbox.apiKey });
let files = 0;

async function ingest(content: string): Promise<string> {
  const res = await t.request({
    method: 'POST',
    url: '/journal/ingest',
    headers: key(),
    payload: { companyId: sandbox.companyId, content, bankKey: 'demo', environment: 'test' },
  });
  assert.equal(res.statusCode, 201, res.body);
  return (res.json() as { id: string }).id;
}

type LineSpec = { e2e: string; amount: string; iban?: string; instructionId?: string };
type Submitted = { id: string; executionDate: string };

const PAYEE = 'FI5542345670000081';

/** A payment of these lines to the demo bank, delivered (only then does it take evidence). */
async function submit(messageId: string, lines: LineSpec[]): Promise<Submitted> {
  const payment = structuredClone(sandbox.firstPayment.body.payment) as {
    messageId: string;
    payments: Array<{ executionDate: string; transactions: Array<Record<string, unknown>> }>;
  };
  payment.messageId = messageId;
  const block = payment.payments[0]!;
  const template = block.transactions[0]!;
  block.transactions = lines.map((l) => {
    const tx = structuredClone(template) as Record<string, unknown> & { creditor: { account: { iban: string } } };
    tx['endToEndId'] = l.e2e;
    tx['amount'] = l.amount;
    if (l.instructionId) tx['instructionId'] = l.instructionId;
    tx.creditor.account.iban = l.iban ?? PAYEE;
    return tx;
  });
  const res = await t.request({
    method: 'POST',
    url: '/journal/payments',
    headers: { ...key(), 'idempotency-key': messageId },
    payload: { companyId: sandbox.companyId, bankKey: 'demo', environment: 'test', payment },
  });
  assert.equal(res.statusCode, 201, res.body);
  const id = (res.json() as { id: string }).id;
  await deliverNow(t.ctx, { platformId: sandbox.platformId, companyId: sandbox.companyId }, id);
  return { id, executionDate: block.executionDate };
}

/** A camt.053 booking these lines (debits by end-to-end id) on the execution date: they clear. */
async function book(doc: Submitted, lines: LineSpec[]): Promise<void> {
  files++;
  await ingest(
    statementWith(
      `BOOK-${files}`,
      files,
      lines.map((l, i) => ({
        amount: l.amount,
        direction: 'DBIT' as const,
        e2e: l.e2e,
        iban: l.iban ?? PAYEE,
        ref: `BOOK-${files}-${i}`,
        day: doc.executionDate,
      })),
    ),
  );
  assert.deepEqual(
    (await view(doc.id)).payments.map((p) => p.recon.state),
    lines.map(() => 'cleared'),
  );
}

type View = {
  status: string;
  payments: Array<{ endToEndId: string; recon: { state: string; evidence: Record<string, unknown> | null } }>;
};

async function view(id: string): Promise<View> {
  const res = await t.request({
    method: 'GET',
    url: `/journal/documents/${id}/payments?companyId=${sandbox.companyId}`,
    headers: key(),
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as View;
}

async function events(type: string, documentId: string) {
  const { rows } = await t.ctx.db.execute<{ payload: { data: Record<string, unknown> } }>(
    sql`SELECT payload FROM outbox_events WHERE company_id = ${sandbox.companyId} AND type = ${type}
          AND payload -> 'data' ->> 'documentId' = ${documentId} ORDER BY created_at, id`,
  );
  return rows.map((r) => r.payload.data);
}

async function audited(type: string, documentId: string) {
  const { rows } = await t.ctx.db.execute<{ metadata: Record<string, unknown> }>(
    sql`SELECT metadata FROM activity_events WHERE chain_id = ${sandbox.companyId} AND type = ${type}
          AND metadata ->> 'documentId' = ${documentId} ORDER BY seq`,
  );
  return rows.map((r) => r.metadata);
}

const daysAfter = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

test('a return by end-to-end id after clearing: the line rejected with its reason, the document only when every line came back', async () => {
  const lines = [
    { e2e: 'RET-E2E-1', amount: '40.00' },
    { e2e: 'RET-E2E-2', amount: '60.00' },
  ];
  const doc = await submit('RET-MSG-1', lines);
  await book(doc, lines);
  assert.equal((await view(doc.id)).status, 'executed');

  const day = daysAfter(doc.executionDate, 2);
  const first = await ingest(
    camt054Returns('RET-N1', [
      { amount: '40.00', day, ref: 'RET-REF-1', e2e: 'RET-E2E-1', iban: PAYEE, reason: 'AC04' },
    ]),
  );
  let v = await view(doc.id);
  assert.equal(v.status, 'executed', 'one line of two came back: the document stays executed');
  assert.deepEqual(
    v.payments.map((p) => p.recon.state),
    ['rejected', 'cleared'],
  );
  const evidence = v.payments[0]!.recon.evidence!;
  assert.equal(evidence['rule'], 'return');
  assert.equal(evidence['matchedBy'], 'end-to-end-id');
  assert.equal(evidence['reason'], 'AC04');
  assert.equal(evidence['source'], 'camt.054');
  assert.equal(evidence['documentId'], first);
  assert.equal(evidence['bankRef'], 'RET-REF-1');
  assert.equal(
    (evidence['before'] as Record<string, unknown>)['rule'],
    'end-to-end-id',
    'the booking it undid is kept',
  );
  const returned = await events('payment.returned', doc.id);
  assert.equal(returned.length, 1);
  assert.deepEqual(
    [returned[0]!['endToEndId'], returned[0]!['reason'], returned[0]!['amount'], returned[0]!['currency']],
    ['RET-E2E-1', 'AC04', '40.00', 'EUR'],
  );
  assert.equal(returned[0]!['bankKey'], 'demo');
  assert.deepEqual(await events('payment.rejected', doc.id), []);
  const trail = await audited('payment.returned', doc.id);
  assert.equal(trail.length, 1);
  assert.deepEqual(trail[0]!['lines'], [
    { index: 0, endToEndId: 'RET-E2E-1', amount: '40.00', currency: 'EUR', reason: 'AC04', matchedBy: 'end-to-end-id' },
  ]);

  // The dashboard's document page shows the returned line with its reason in words.
  const browser = await signIn(t, sandbox.dashboardLogin.email, sandbox.dashboardLogin.password);
  const page = await get(t, browser, `/dashboard/journal/${doc.id}`);
  assert.equal(page.statusCode, 200);
  assert.match(
    page.body,
    /<strong>Returned<\/strong>: <abbr title="Closed account number">AC04<\/abbr>: Closed account number/,
  );
  assert.match(page.body, /matched by end-to-end-id/);
  assert.match(page.body, /Before the return: booked/);
  assert.match(page.body, /payment\.returned/, 'the timeline names the return');

  // The second line comes back: every line returned, the document is rejected.
  await ingest(
    camt054Returns('RET-N2', [
      { amount: '60.00', day, ref: 'RET-REF-2', e2e: 'RET-E2E-2', iban: PAYEE, reason: 'MS03' },
    ]),
  );
  v = await view(doc.id);
  assert.equal(v.status, 'rejected');
  assert.deepEqual(
    v.payments.map((p) => [p.recon.state, p.recon.evidence!['reason']]),
    [
      ['rejected', 'AC04'],
      ['rejected', 'MS03'],
    ],
  );
  assert.equal((await events('payment.returned', doc.id)).length, 2);
  const rejected = await events('payment.rejected', doc.id);
  assert.equal(rejected.length, 1);
  assert.deepEqual([rejected[0]!['endToEndId'], rejected[0]!['reason']], ['RET-E2E-2', 'MS03']);
  const moved = await audited('payment.status_changed', doc.id);
  assert.ok(moved.some((m) => m['from'] === 'executed' && m['to'] === 'rejected'));

  // The same return again (in another file): nothing moves, no second event.
  await ingest(
    camt054Returns('RET-N2-AGAIN', [
      { amount: '60.00', day, ref: 'RET-REF-2', e2e: 'RET-E2E-2', iban: PAYEE, reason: 'MS03' },
    ]),
  );
  assert.equal((await events('payment.returned', doc.id)).length, 2);
  assert.equal((await events('payment.rejected', doc.id)).length, 1);
});

test('a return by instruction id only: the cleared line is rejected, matched by instruction id', async () => {
  const lines = [{ e2e: 'RET-INS-E2E', amount: '33.10', instructionId: 'RET-INSTR-1' }];
  const doc = await submit('RET-MSG-2', lines);
  await book(doc, lines);
  await ingest(
    camt054Returns('RET-N3', [
      {
        amount: '33.10',
        day: daysAfter(doc.executionDate, 3),
        ref: 'RET-REF-3',
        instructionId: 'RET-INSTR-1',
        reason: 'AC01',
      },
    ]),
  );
  const v = await view(doc.id);
  assert.equal(v.status, 'rejected', 'its only line came back');
  assert.deepEqual(
    [v.payments[0]!.recon.state, v.payments[0]!.recon.evidence!['matchedBy'], v.payments[0]!.recon.evidence!['reason']],
    ['rejected', 'instruction-id', 'AC01'],
  );
  assert.equal((await events('payment.returned', doc.id)).length, 1);
});

test('a return naming no identifier: by amount and counterparty account within the window, the one candidate', async () => {
  const iban = 'DE89370400440532013000';
  const lines = [{ e2e: 'RET-AMT-E2E', amount: '77.70', iban }];
  const doc = await submit('RET-MSG-3', lines);
  await book(doc, lines);
  // Outside the window (15 days after execution): nothing.
  await ingest(
    camt054Returns('RET-N4-LATE', [
      { amount: '77.70', day: daysAfter(doc.executionDate, 15), ref: 'RET-REF-4L', iban, reason: 'AC04' },
    ]),
  );
  assert.equal((await view(doc.id)).payments[0]!.recon.state, 'cleared');
  // Within it, booked net of charges with the instructed amount given: the line.
  await ingest(
    camt054Returns('RET-N4', [
      {
        amount: '75.20',
        originalAmount: '77.70',
        day: daysAfter(doc.executionDate, 5),
        ref: 'RET-REF-4',
        iban,
        reason: 'AC04',
      },
    ]),
  );
  const v = await view(doc.id);
  assert.equal(v.status, 'rejected');
  assert.deepEqual(
    [v.payments[0]!.recon.state, v.payments[0]!.recon.evidence!['matchedBy'], v.payments[0]!.recon.evidence!['rule']],
    ['rejected', 'amount-counterparty', 'return'],
  );
  const returned = await events('payment.returned', doc.id);
  assert.deepEqual(
    returned.map((e) => [e['endToEndId'], e['reason'], e['matchedBy']]),
    [['RET-AMT-E2E', 'AC04', 'amount-counterparty']],
  );
});

test('a return naming no identifier with two candidates: nothing moves, no event', async () => {
  const iban = 'NL91ABNA0417164300';
  const a = await submit('RET-MSG-4A', [{ e2e: 'RET-AMB-A', amount: '50.00', iban }]);
  await book(a, [{ e2e: 'RET-AMB-A', amount: '50.00', iban }]);
  const b = await submit('RET-MSG-4B', [{ e2e: 'RET-AMB-B', amount: '50.00', iban }]);
  await book(b, [{ e2e: 'RET-AMB-B', amount: '50.00', iban }]);
  await ingest(
    camt054Returns('RET-N5', [
      { amount: '50.00', day: daysAfter(a.executionDate, 2), ref: 'RET-REF-5', iban, reason: 'AC04' },
    ]),
  );
  for (const doc of [a, b]) {
    const v = await view(doc.id);
    assert.deepEqual([v.status, v.payments[0]!.recon.state], ['executed', 'cleared']);
    assert.deepEqual(await events('payment.returned', doc.id), []);
  }
  // The return waits as an unmatched entry for a person.
  const { rows } = await t.ctx.db.execute<{ n: number }>(
    sql`SELECT count(*)::int AS n FROM unmatched_entries WHERE company_id = ${sandbox.companyId} AND bank_ref = 'RET-REF-5'`,
  );
  assert.equal(rows[0]!.n, 1);
});

test('an MT940 storno (RD, GVC 159) with the end-to-end id: the line rejected', async () => {
  const lines = [{ e2e: 'RET-940-E2E', amount: '12.34' }];
  const doc = await submit('RET-MSG-5', lines);
  await book(doc, lines);
  await ingest(
    mt940Storno('RET940', {
      amount: '12.34',
      day: daysAfter(doc.executionDate, 1),
      e2e: 'RET-940-E2E',
      iban: PAYEE,
      bankRef: 'RET940REF',
    }),
  );
  const v = await view(doc.id);
  assert.equal(v.status, 'rejected');
  const evidence = v.payments[0]!.recon.evidence!;
  assert.deepEqual(
    [v.payments[0]!.recon.state, evidence['rule'], evidence['matchedBy'], evidence['source']],
    ['rejected', 'return', 'end-to-end-id', 'mt940'],
  );
  assert.equal((await events('payment.returned', doc.id)).length, 1);
});

test('an MT940 storno naming no identifier: by amount and the payee account', async () => {
  const iban = 'BE68539007547034';
  const lines = [{ e2e: 'RET-940B-E2E', amount: '21.50', iban }];
  const doc = await submit('RET-MSG-6', lines);
  await book(doc, lines);
  await ingest(
    mt940Storno('RET940B', { amount: '21.50', day: daysAfter(doc.executionDate, 1), iban, bankRef: 'RET940BREF' }),
  );
  const v = await view(doc.id);
  assert.deepEqual(
    [v.status, v.payments[0]!.recon.state, v.payments[0]!.recon.evidence!['matchedBy']],
    ['rejected', 'rejected', 'amount-counterparty'],
  );
});

test('a return that matches no outbound line: ingested, nothing moved, no event', async () => {
  const lines = [{ e2e: 'RET-NONE-E2E', amount: '88.00' }];
  const doc = await submit('RET-MSG-7', lines);
  await book(doc, lines);
  const day = daysAfter(doc.executionDate, 1);
  await ingest(
    camt054Returns('RET-N7', [
      { amount: '88.00', day, ref: 'RET-REF-7A', e2e: 'NOBODY-E2E', iban: PAYEE, reason: 'AC04' },
      { amount: '88.00', day, ref: 'RET-REF-7B', instructionId: 'NOBODY-INSTR', reason: 'AC04' },
      { amount: '88.00', day, ref: 'RET-REF-7C', iban: 'SE4550000000058398257466', reason: 'AC04' },
      { amount: '88.00', day, ref: 'RET-REF-7D', reason: 'AC04' },
      // A debit reversal undoes a credit, never a payment of ours, whatever id it carries.
      { amount: '88.00', day, ref: 'RET-REF-7E', e2e: 'RET-NONE-E2E', iban: PAYEE, direction: 'DBIT' },
    ]),
  );
  const v = await view(doc.id);
  assert.deepEqual([v.status, v.payments[0]!.recon.state], ['executed', 'cleared']);
  assert.deepEqual(await events('payment.returned', doc.id), []);
});

test('a corpus camt.054 of returns rejects the cleared line it returns, with its reason', {
  skip: sharedCorpusMissing,
}, async () => {
  const content = readFileSync(
    path.join(
      SHARED_CORPUS,
      'camt054',
      'moov-io-iso20022__200519_camt054-returns_p_ch2909000000250094239_1109800798_0_2019052023472022.xml',
    ),
    'utf8',
  );
  // The payments that file returns, as the journal would hold them once booked (cleared by a
  // statement), plus one of the same document that did not come back.
  const scope = { platformId: sandbox.platformId, companyId: sandbox.companyId };
  const documentId = 'doc_corpus_returns';
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
      status: 'executed',
      importSource: 'api',
      deliveryMode: 'host-to-host',
      deliveryStatus: 'delivered',
      createdAt: now,
      updatedAt: now,
    });
    const cleared = { source: 'camt.053', rule: 'end-to-end-id', summary: 'booked' };
    await insertPaymentLines(
      tx,
      [
        { endToEndId: 'EndToEndId-004-01-01', amount: '400.00', iban: 'CH8709000000929471495' },
        { endToEndId: 'NOT-RETURNED', amount: '10.00', iban: 'CH8709000000929471495' },
      ].map((l, i) => ({
        documentId,
        lineIndex: i,
        ...scope,
        endToEndId: l.endToEndId,
        amount: l.amount,
        amountMinor: BigInt(l.amount.replace('.', '')),
        currency: 'CHF',
        payeeIban: l.iban,
        executionDate: '2019-05-17',
        state: 'cleared' as const,
        evidence: cleared,
        updatedAt: now,
        openUntil: null,
      })),
    );
  });
  const res = await t.request({
    method: 'POST',
    url: '/journal/ingest',
    headers: key(),
    payload: { companyId: sandbox.companyId, content },
  });
  assert.equal(res.statusCode, 201, res.body);
  const v = await view(documentId);
  assert.equal(v.status, 'executed', 'one line of two came back');
  const line = v.payments.find((p) => p.endToEndId === 'EndToEndId-004-01-01')!;
  assert.deepEqual(
    [line.recon.state, line.recon.evidence!['rule'], line.recon.evidence!['reason'], line.recon.evidence!['source']],
    ['rejected', 'return', 'AC01', 'camt.054'],
  );
  assert.equal(v.payments.find((p) => p.endToEndId === 'NOT-RETURNED')!.recon.state, 'cleared');
  const returned = await events('payment.returned', documentId);
  assert.deepEqual(
    returned.map((e) => [e['endToEndId'], e['reason']]),
    [['EndToEndId-004-01-01', 'AC01']],
  );
});

test('a return before any booking: the pending line rejected, the sent document rejected with it', async () => {
  const doc = await submit('RET-MSG-8', [{ e2e: 'RET-PEND-E2E', amount: '19.99' }]);
  assert.equal((await view(doc.id)).status, 'sent');
  await ingest(
    camt054Returns('RET-N8', [
      { amount: '19.99', day: daysAfter(doc.executionDate, 1), ref: 'RET-REF-8', e2e: 'RET-PEND-E2E', reason: 'AC04' },
    ]),
  );
  const v = await view(doc.id);
  assert.deepEqual(
    [v.status, v.payments[0]!.recon.state, v.payments[0]!.recon.evidence!['reason']],
    ['rejected', 'rejected', 'AC04'],
  );
  assert.equal((await events('payment.returned', doc.id)).length, 1);
  assert.equal((await events('payment.rejected', doc.id)).length, 1);
});
