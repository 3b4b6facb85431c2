import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';

/**
 * The loop users come for, end to end on real PostgreSQL: provision a sandbox, submit its
 * firstPayment, and watch the demo bank's real pain.002 and camt.053 go through the real parsers and
 * reconcile every line with evidence.
 */
let t: TestApp;
type Sandbox = Awaited<ReturnType<typeof provisionAndLogin>>;

before(async () => {
  t = await startTestApp({ workers: true, env: { DEMO_BANK_DELAY_MS: '300' } });
});
after(() => t.close());

type FirstPayment = {
  headers: Record<string, string>;
  body: { payment: Record<string, unknown> } & Record<string, unknown>;
};

async function sandboxWithFirstPayment(): Promise<{ sandbox: Sandbox; first: FirstPayment }> {
  const sandbox = await provisionAndLogin(t);
  return { sandbox, first: sandbox.firstPayment };
}

async function submit(sandbox: Sandbox, body: Record<string, unknown>, key: string) {
  const res = await t.request({
    method: 'POST',
    url: '/journal/payments',
    headers: { 'x-api-key': sandbox.apiKey, 'idempotency-key': key },
    payload: body,
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json() as { id: string; journalNo: string; delivery: { status: string }; status: string };
}

type Lines = {
  status: string;
  payments: Array<{ endToEndId: string; recon: { state: string; evidence: Record<string, unknown> | null } }>;
};

async function waitForStatus(
  sandbox: Sandbox,
  documentId: string,
  wanted: string[],
  also: (lines: Lines) => boolean = () => true,
): Promise<Lines> {
  for (let i = 0; i < 600; i++) {
    const res = await t.request({
      method: 'GET',
      url: `/journal/documents/${documentId}/payments?companyId=${sandbox.companyId}`,
      headers: { 'x-api-key': sandbox.apiKey },
    });
    const body = res.json() as Lines;
    if (wanted.includes(body.status) && also(body)) return body;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`document ${documentId} never reached ${wanted.join('/')}`);
}

test('firstPayment goes out, the demo bank answers, the payment is executed and its line cleared with evidence from both files', async () => {
  const { sandbox, first } = await sandboxWithFirstPayment();
  const doc = await submit(sandbox, first.body, 'loop-1');
  assert.equal(doc.delivery.status, 'queued');
  // The pain.002 and the camt.053 are ingested one after the other: wait for the statement's evidence.
  const lines = await waitForStatus(sandbox, doc.id, ['executed', 'rejected'], (l) =>
    l.payments.every((p) => p.recon.evidence?.['source'] === 'camt.053'),
  );
  assert.equal(lines.status, 'executed');
  assert.equal(lines.payments.length, 1);
  const line = lines.payments[0]!;
  assert.equal(line.recon.state, 'cleared');
  const evidence = line.recon.evidence!;
  assert.equal(evidence['source'], 'camt.053');
  assert.equal(evidence['amount'], '125.50');
  assert.equal(evidence['currency'], 'EUR');
  assert.match(String(evidence['documentId']), /^doc_/);
  assert.equal((evidence['statusReport'] as Record<string, unknown>)['source'], 'pain.002');

  // Both bank files were journaled as inbound documents, and the events went to the outbox.
  const db = new pg.Client({ connectionString: t.databaseUrl });
  await db.connect();
  try {
    const inbound = await db.query(
      `SELECT type, import_source FROM journal_documents WHERE company_id = $1 AND direction = 'inbound' ORDER BY journal_no`,
      [sandbox.companyId],
    );
    assert.deepEqual(inbound.rows.map((r) => [r.type, r.import_source]).sort(), [
      ['camt.053', 'demo-bank'],
      ['pain.002', 'demo-bank'],
    ]);
    const events = await db.query(`SELECT type FROM outbox_events WHERE company_id = $1 ORDER BY created_at, id`, [
      sandbox.companyId,
    ]);
    assert.deepEqual(
      events.rows.map((r) => r.type),
      ['payment.sent', 'payment.executed'],
    );
  } finally {
    await db.end();
  }
});

test('REJECT:<code> rejects that line with its reason while the other is booked; all rejected ends rejected', async () => {
  const { sandbox, first } = await sandboxWithFirstPayment();
  const payment = structuredClone(first.body.payment) as {
    messageId: string;
    payments: Array<{ transactions: Array<Record<string, unknown>> }>;
  };
  payment.messageId = 'MIXED-1';
  const ok = payment.payments[0]!.transactions[0]!;
  payment.payments[0]!.transactions.push({
    ...ok,
    endToEndId: 'E2E-REJ',
    remittance: { unstructured: 'REJECT:AC04 closed' },
  });
  const mixed = await submit(sandbox, { ...first.body, payment }, 'loop-mixed');
  const lines = await waitForStatus(sandbox, mixed.id, ['executed', 'rejected']);
  assert.equal(lines.status, 'executed');
  const byE2e = Object.fromEntries(lines.payments.map((p) => [p.endToEndId, p.recon]));
  assert.equal(byE2e['E2E-0001']!.state, 'cleared');
  assert.equal(byE2e['E2E-REJ']!.state, 'rejected');
  assert.equal(byE2e['E2E-REJ']!.evidence!['reason'], 'AC04');
  assert.equal(byE2e['E2E-REJ']!.evidence!['source'], 'pain.002');

  const rejectedOnly = structuredClone(first.body.payment) as typeof payment;
  rejectedOnly.messageId = 'REJ-ALL-1';
  // An end-to-end id of its own: MIXED-1's camt.053 (ingested after its pain.002, so possibly after
  // this submit on a loaded machine) books E2E-0001, and would clear this line by that id too.
  rejectedOnly.payments[0]!.transactions[0]!['endToEndId'] = 'E2E-ALL-REJ';
  rejectedOnly.payments[0]!.transactions[0]!['remittance'] = { unstructured: 'REJECT:AM04' };
  const rejected = await submit(sandbox, { ...first.body, payment: rejectedOnly }, 'loop-rej');
  const rejectedLines = await waitForStatus(sandbox, rejected.id, ['executed', 'rejected']);
  assert.equal(rejectedLines.status, 'rejected');
  assert.equal(rejectedLines.payments[0]!.recon.evidence!['reason'], 'AM04');
});

test('NOTPROVIDED lines (EPC132-08 AT-41): each is told apart by its generated InstrId in the pain.002 and the camt.053', async () => {
  const { sandbox, first } = await sandboxWithFirstPayment();
  const payment = structuredClone(first.body.payment) as {
    messageId: string;
    payments: Array<{ transactions: Array<Record<string, unknown>> }>;
  };
  payment.messageId = 'NOTPROVIDED-1';
  const base = payment.payments[0]!.transactions[0]!;
  delete base['instructionId'];
  payment.payments[0]!.transactions = [
    { ...base, endToEndId: 'NOTPROVIDED', amount: '10.00' },
    { ...base, endToEndId: 'NOTPROVIDED', amount: '20.00', remittance: { unstructured: 'REJECT:AC04 closed' } },
    { ...base, endToEndId: 'NOTPROVIDED', amount: '30.00' },
  ];
  const doc = await submit(sandbox, { ...first.body, payment }, 'loop-notprovided');
  const lines = await waitForStatus(sandbox, doc.id, ['executed', 'rejected'], (l) =>
    [0, 2].every((n) => l.payments[n]?.recon.evidence?.['source'] === 'camt.053'),
  );
  assert.equal(lines.status, 'executed');
  assert.deepEqual(
    lines.payments.map((p) => [
      p.endToEndId,
      p.recon.state,
      p.recon.evidence?.['source'],
      p.recon.evidence?.['amount'],
    ]),
    [
      ['NOTPROVIDED', 'cleared', 'camt.053', '10.00'],
      ['NOTPROVIDED', 'rejected', 'pain.002', '20.00'],
      ['NOTPROVIDED', 'cleared', 'camt.053', '30.00'],
    ],
  );
  assert.equal(lines.payments[1]!.recon.evidence!['reason'], 'AC04');
});
