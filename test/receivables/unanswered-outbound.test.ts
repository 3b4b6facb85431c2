import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { manualClock } from '../../src/platform/clock.ts';
import { provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { deliverNow } from '../support/deliver.ts';
import { statementWith } from '../support/statement-with.ts';
import { ingestDemo } from './support.ts';

/**
 * The exceptions queue's `unanswered-outbound` kind (docs/adr/0075) on real PostgreSQL: an outbound
 * line past its answer window (45 days) with no pain.002 and no booking is listed, with the nearest
 * unmatched statement debits as candidates and why each did not prove it; a booked line is not.
 */
const clock = manualClock(new Date('2026-11-18T09:00:00Z'));
let t: TestApp;
let db: pg.Client;
let s: Awaited<ReturnType<typeof provisionAndLogin>>;
before(async () => {
  t = await startTestApp({ clock });
  db = new pg.Client({ connectionString: t.databaseUrl });
  await db.connect();
  s = await provisionAndLogin(t);
});
after(async () => {
  await db.end();
  await t.close();
});

const PAYEE = 'FI5542345670000081';
const key = () => ({ 'x-api-key': s.apiKey });

const ingest = (content: string) => ingestDemo(t, s, content);

type Item = {
  kind: string;
  subject: Record<string, unknown>;
  candidates: Array<{ ref: string; amountDelta: string; daysDelta: number; referenceMatch: boolean; why: string }>;
  since: string;
};
async function queue(query: string) {
  const res = await t.request({
    method: 'GET',
    url: `/reconciliation/exceptions?companyId=${s.companyId}${query}`,
    headers: key(),
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as { items: Item[]; nextCursor: string | null };
}

test('unanswered-outbound: lines past their answer window with no evidence, with the nearest debits and why', async () => {
  const payment = structuredClone(s.firstPayment.body.payment) as {
    messageId: string;
    payments: Array<{ executionDate: string; transactions: Array<Record<string, unknown>> }>;
  };
  payment.messageId = 'UNANSWERED-1';
  const block = payment.payments[0]!;
  const template = block.transactions[0]!;
  block.transactions = [
    ['U-1', '10.00'],
    ['U-2', '25.00'],
    ['U-3', '7.00'],
  ].map(([e2e, amount]) => {
    const tx = structuredClone(template) as Record<string, unknown> & { creditor: { account: { iban: string } } };
    tx['endToEndId'] = e2e;
    tx['amount'] = amount;
    tx.creditor.account.iban = PAYEE;
    return tx;
  });
  const res = await t.request({
    method: 'POST',
    url: '/journal/payments',
    headers: { ...key(), 'idempotency-key': payment.messageId },
    payload: { companyId: s.companyId, bankKey: 'demo', environment: 'test', payment },
  });
  assert.equal(res.statusCode, 201, res.body);
  const documentId = (res.json() as { id: string }).id;
  await deliverNow(t.ctx, { platformId: s.platformId, companyId: s.companyId }, documentId);
  // U-3 is booked inside its window: it has its evidence and is never unanswered.
  await ingest(
    statementWith('UA-BOOK', 1, [
      { amount: '7.00', direction: 'DBIT', e2e: 'U-3', iban: PAYEE, ref: 'UA-B-1', day: block.executionDate },
    ]),
  );
  assert.deepEqual((await queue('&kind=unanswered-outbound')).items, [], 'the window is still open');

  clock.advance(46 * 86_400_000);
  // Booked after the window closed, under the bank's own end-to-end id: no rule takes it.
  await ingest(
    statementWith('UA-LATE', 2, [
      { amount: '10.00', direction: 'DBIT', e2e: 'BANK-OWN-7', iban: PAYEE, ref: 'UA-L-1', day: '2027-01-02' },
      { amount: '24.00', direction: 'DBIT', iban: 'DE89370400440532013000', ref: 'UA-L-2', day: '2027-01-02' },
    ]),
  );
  const entries = await db.query(
    `SELECT id, amount FROM unmatched_entries WHERE company_id = $1 AND direction = 'debit' ORDER BY id`,
    [s.companyId],
  );
  const entryId = (amount: string) => `unmatched-entry:${entries.rows.find((r) => r.amount === amount)!.id}`;
  const openUntil = await db.query(
    `SELECT line_index, open_until FROM payment_lines WHERE document_id = $1 ORDER BY line_index`,
    [documentId],
  );
  const closed = (i: number) => (openUntil.rows[i].open_until as Date).toISOString();
  const journalNo = (await db.query(`SELECT journal_no FROM journal_documents WHERE id = $1`, [documentId])).rows[0]
    .journal_no;
  const days = (Date.parse('2027-01-02') - Date.parse(block.executionDate)) / 86_400_000;

  const first = await queue('&kind=unanswered-outbound&limit=1');
  assert.equal(first.items.length, 1);
  assert.notEqual(first.nextCursor, null);
  const [u1] = first.items;
  assert.deepEqual(
    { ...u1, candidates: u1!.candidates.map((c) => c.ref) },
    {
      kind: 'unanswered-outbound',
      subject: {
        outboundLine: { documentId, index: 0 },
        journalNo,
        environment: 'test',
        endToEndId: 'U-1',
        amount: '10.00',
        currency: 'EUR',
        payee: { name: (template['creditor'] as { name: string }).name, iban: PAYEE },
        executionDate: block.executionDate,
        answerWindowClosed: closed(0),
      },
      candidates: [entryId('10.00'), entryId('24.00')],
      since: closed(0),
    },
  );
  const lateStatement = (
    await db.query(`SELECT document_id FROM unmatched_entries WHERE company_id = $1 AND bank_ref = 'UA-L-1'`, [
      s.companyId,
    ])
  ).rows[0].document_id as string;
  assert.deepEqual(u1!.candidates[0], {
    ref: entryId('10.00'),
    // What a manual match names (docs/adr/0076): the late statement's first entry.
    entry: { documentId: lateStatement, entryIndex: 0 },
    amountDelta: '0.00',
    daysDelta: days,
    referenceMatch: false,
    why: `end-to-end id BANK-OWN-7, the line's U-1; booked ${days} days from the execution date (allowed -3 to +10)`,
  });
  assert.deepEqual(u1!.candidates[1]!.why.split('; ').slice(0, 3), [
    'the entry names no end-to-end id',
    'amount differs by +1400 minor units',
    `counterparty account DE89370400440532013000, the payee's ${PAYEE}`,
  ]);
  const second = await queue(`&kind=unanswered-outbound&limit=1&cursor=${encodeURIComponent(first.nextCursor!)}`);
  assert.deepEqual(
    second.items.map((i) => [i.subject.endToEndId, i.candidates[0]!.ref, i.candidates[0]!.amountDelta]),
    [['U-2', entryId('24.00'), '-1.00']],
  );
  assert.equal(second.nextCursor, null);
  // In the whole queue, after the credits nothing matched and before the ambiguous ones.
  const all = await queue('');
  assert.deepEqual(
    all.items.filter((i) => i.kind === 'unanswered-outbound').map((i) => i.subject.endToEndId),
    ['U-1', 'U-2'],
  );
});
