/**
 * Unmatched statement entries (docs/adr/0047): a reconciled statement's booked debits and returns that
 * matched no outbound line are recorded once per bank entry, and a later statement whose copy of the
 * entry matches a line resolves the record.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { deliverNow } from '../support/deliver.ts';
import { type Entry, statementWith } from '../support/statement-with.ts';

let t: TestApp;
let sandbox: Awaited<ReturnType<typeof provisionAndLogin>>;

before(async () => {
  t = await startTestApp();
  sandbox = await provisionAndLogin(t);
});
after(() => t.close());

const key = () => ({ 'x-api-key': sandbox.apiKey });

async function ingest(content: string, as: { companyId: string; apiKey: string } = sandbox) {
  const res = await t.request({
    method: 'POST',
    url: '/journal/ingest',
    headers: { 'x-api-key': as.apiKey },
    payload: { companyId: as.companyId, content, bankKey: 'demo', environment: 'test' },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json() as { id: string; journalNo: string };
}

/** A payment to the demo bank, delivered (only then does it take evidence); answers its line's facts. */
async function submit(messageId: string, endToEndId: string) {
  const payment = structuredClone(sandbox.firstPayment.body.payment) as {
    messageId: string;
    payments: Array<{ transactions: Array<Record<string, unknown>> }>;
  };
  payment.messageId = messageId;
  const tx = payment.payments[0]!.transactions[0]!;
  tx['endToEndId'] = endToEndId;
  const res = await t.request({
    method: 'POST',
    url: '/journal/payments',
    headers: { ...key(), 'idempotency-key': messageId },
    payload: { companyId: sandbox.companyId, bankKey: 'demo', environment: 'test', payment },
  });
  assert.equal(res.statusCode, 201, res.body);
  const id = (res.json() as { id: string }).id;
  await deliverNow(t.ctx, { platformId: sandbox.platformId, companyId: sandbox.companyId }, id);
  return { id, amount: String(tx['amount']) };
}

async function lineState(id: string): Promise<string> {
  const res = await t.request({
    method: 'GET',
    url: `/journal/documents/${id}/payments?companyId=${sandbox.companyId}`,
    headers: key(),
  });
  return (res.json() as { payments: Array<{ recon: { state: string } }> }).payments[0]!.recon.state;
}

type Row = {
  document_id: string;
  direction: string;
  reversal: boolean;
  amount: string;
  currency: string;
  booking_date: string | null;
  bank_ref: string | null;
  end_to_end_id: string | null;
  counterparty_name: string | null;
  counterparty_iban: string | null;
  remittance: string | null;
  matched_document_id: string | null;
};

async function recorded(companyId = sandbox.companyId): Promise<Row[]> {
  const { rows } = await t.ctx.db.execute(sql`
    SELECT document_id, direction, reversal, amount, currency, booking_date::text, bank_ref, end_to_end_id,
           counterparty_name, counterparty_iban, remittance, matched_document_id
      FROM unmatched_entries WHERE company_id = ${companyId} ORDER BY id`);
  return rows as Row[];
}

test('a reconciled statement records its debits and returns that matched no line, not the matched one nor plain credits', async () => {
  const paid = await submit('UM-1', 'UM-E2E-1');
  const stmt = await ingest(
    statementWith('UM-S1', 1, [
      { amount: paid.amount, direction: 'DBIT', ref: 'UM-R1', e2e: 'UM-E2E-1', name: 'Payee' },
      {
        amount: '12.50',
        direction: 'DBIT',
        ref: 'UM-R2',
        name: 'Card Fees <Ltd>',
        iban: 'FI5542345670000081',
        text: 'Monthly fee',
      },
      { amount: '99.00', direction: 'CRDT', ref: 'UM-R3', name: 'A Customer' },
      { amount: '40.00', direction: 'CRDT', ref: 'UM-R4', e2e: 'NOBODY-E2E', reversal: true, returnReason: 'AC04' },
    ]).replace('Card Fees <Ltd>', 'Card Fees &lt;Ltd&gt;'),
  );
  assert.equal(await lineState(paid.id), 'cleared');
  assert.deepEqual(await recorded(), [
    {
      document_id: stmt.id,
      direction: 'debit',
      reversal: false,
      amount: '12.50',
      currency: 'EUR',
      booking_date: '2026-11-20',
      bank_ref: 'UM-R2',
      end_to_end_id: null,
      counterparty_name: 'Card Fees <Ltd>',
      counterparty_iban: 'FI5542345670000081',
      remittance: 'Monthly fee',
      matched_document_id: null,
    },
    {
      document_id: stmt.id,
      direction: 'credit',
      reversal: true,
      amount: '40.00',
      currency: 'EUR',
      booking_date: '2026-11-20',
      bank_ref: 'UM-R4',
      end_to_end_id: 'NOBODY-E2E',
      counterparty_name: null,
      counterparty_iban: null,
      remittance: null,
      matched_document_id: null,
    },
  ]);
  const { rows } = await t.ctx.db.execute(sql`
    SELECT metadata->'unmatchedEntries' AS u FROM activity_events
     WHERE chain_id = ${sandbox.companyId} AND type = 'journal.document.ingested' AND metadata->>'documentId' = ${stmt.id}`);
  assert.deepEqual((rows[0] as { u: unknown }).u, { unmatched: 2, resolved: 0 });
});

test('the same bank entry in a later statement is listed once; two equal fees of one day stay two', async () => {
  const before = (await recorded()).length;
  await ingest(
    statementWith('UM-S2', 2, [
      { amount: '12.50', direction: 'DBIT', ref: 'UM-R2', name: 'Card Fees', iban: 'FI5542345670000081' },
      { amount: '3.00', direction: 'DBIT', name: 'Bank', text: 'Charge', day: '2026-11-21' },
      { amount: '3.00', direction: 'DBIT', name: 'Bank', text: 'Charge', day: '2026-11-21' },
    ]),
  );
  const rows = await recorded();
  assert.equal(rows.length, before + 2);
  assert.deepEqual(
    rows.slice(before).map((r) => [r.amount, r.booking_date, r.bank_ref]),
    [
      ['3.00', '2026-11-21', null],
      ['3.00', '2026-11-21', null],
    ],
  );
});

test('a statement with no open line at all: every debit is recorded (no matching ran)', async () => {
  const other = await provisionAndLogin(t);
  const stmt = await ingest(
    statementWith('UM-O1', 1, [{ amount: '7.00', direction: 'DBIT', ref: 'UM-O-R1', name: 'Somebody' }]),
    other,
  );
  const rows = await recorded(other.companyId);
  assert.deepEqual(
    rows.map((r) => [r.document_id, r.amount, r.bank_ref]),
    [[stmt.id, '7.00', 'UM-O-R1']],
  );
  // Tenant-scoped: the other company's entries are not the sandbox's.
  assert.ok((await recorded()).every((r) => r.bank_ref !== 'UM-O-R1'));
});

test('a late line: the entry recorded unmatched is resolved when a later statement brings it again and it matches', async () => {
  const entry: Entry = {
    amount: '',
    direction: 'DBIT',
    ref: 'UM-LATE-R',
    e2e: 'UM-LATE-E2E',
    name: 'Payee',
    day: '2026-11-22',
  };
  // The booking arrives before the payment is journaled here (made elsewhere, journaled later).
  const early = await ingest(statementWith('UM-L1', 3, [{ ...entry, amount: '125.50' }]));
  let rows = await recorded();
  const open = rows.find((r) => r.bank_ref === 'UM-LATE-R');
  assert.equal(open?.document_id, early.id);
  assert.equal(open?.matched_document_id, null);

  const paid = await submit('UM-LATE', 'UM-LATE-E2E');
  assert.equal(paid.amount, '125.50', 'the entry above must book what the template pays');
  const later = await ingest(statementWith('UM-L2', 4, [{ ...entry, amount: paid.amount }]));
  assert.equal(await lineState(paid.id), 'cleared');
  rows = await recorded();
  const resolved = rows.filter((r) => r.bank_ref === 'UM-LATE-R');
  assert.equal(resolved.length, 1);
  assert.equal(resolved[0]!.document_id, early.id);
  assert.equal(resolved[0]!.matched_document_id, later.id);
});
