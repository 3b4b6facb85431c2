import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { verifyCompanyChain } from '../../src/app/audit/verify.ts';
import { runMigrations } from '../../src/db/migrate.ts';
import { insertDocument, nextJournalNo, takesEvidence } from '../../src/db/repositories/journal-documents.ts';
import { journalDocuments } from '../../src/db/schema/index.ts';
import { deliveredFileOf, demoCamt053, demoPain002 } from '../../src/domain/demo-bank/index.ts';
import {
  APPROVAL_STATUSES,
  CONNECTION_STATUSES,
  CONVERSION_JOB_STATUSES,
  DELIVERY_MODES,
  DELIVERY_STATUSES,
  DIRECTIONS,
  ENVIRONMENTS,
  EXPECTED_PAYMENT_STATUSES,
  evidenceRefusal,
  GRANT_STATUSES,
  INBOUND_STATUSES,
  INCOMING_PAYMENT_STATUSES,
  LINE_STATES,
  OUTBOUND_STATUSES,
  TOKEN_PAIR_STATUSES,
  USER_STATUSES,
  WEBHOOK_DELIVERY_STATUSES,
  WEBHOOK_ENDPOINT_STATUSES,
} from '../../src/domain/lifecycle/index.ts';
import { assertError, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { deliverNow } from '../support/deliver.ts';

/**
 * The state machine's invariants on real PostgreSQL (issue 21): statuses are checked by the database
 * with the lists the code uses; a host-to-host document is sent only when its channel confirmed the
 * upload; evidence that matches nothing, or matches ambiguously, changes no document and emits no
 * event; a document that was never delivered is no candidate for its bank's evidence.
 */
let t: TestApp;
let db: pg.Client;
before(async () => {
  t = await startTestApp();
  db = new pg.Client({ connectionString: t.databaseUrl });
  await db.connect();
});
after(async () => {
  await db.end();
  await t.close();
});

type Sandbox = Awaited<ReturnType<typeof provisionAndLogin>>;
type Payment = { messageId: string; payments: Array<{ transactions: Array<Record<string, unknown>> }> };

async function submit(s: Sandbox, messageId: string, endToEndId = 'E2E-0001') {
  const payment = structuredClone(s.firstPayment.body.payment) as Payment;
  payment.messageId = messageId;
  payment.payments[0]!.transactions[0]!['endToEndId'] = endToEndId;
  const res = await t.request({
    method: 'POST',
    url: '/journal/payments',
    headers: { 'x-api-key': s.apiKey, 'idempotency-key': messageId },
    payload: { ...s.firstPayment.body, companyId: s.companyId, payment },
  });
  assert.equal(res.statusCode, 201, res.body);
  return { id: (res.json() as { id: string }).id, payment };
}

async function ingest(s: Sandbox, content: string) {
  return t.request({
    method: 'POST',
    url: '/journal/ingest',
    headers: { 'x-api-key': s.apiKey },
    payload: { companyId: s.companyId, content, bankKey: 'demo', environment: 'test' },
  });
}

const statement = (payment: unknown, n: number) =>
  demoCamt053(
    deliveredFileOf(payment, 'pain.001.001.09'),
    { messageId: `INV-STM-${n}`, statementId: `INV-S-${n}`, sequence: n },
    '2026-11-23T10:00:00Z',
  );
const report = (payment: unknown, n: number) =>
  demoPain002(deliveredFileOf(payment, 'pain.001.001.09'), `INV-STS-${n}`, '2026-11-23T09:00:00Z');

async function stateOf(id: string) {
  const doc = await db.query(`SELECT status, delivery_status FROM journal_documents WHERE id = $1`, [id]);
  const lines = await db.query(`SELECT state, evidence FROM payment_lines WHERE document_id = $1 ORDER BY line_index`, [
    id,
  ]);
  const events = await db.query(
    `SELECT type FROM outbox_events WHERE payload->'data'->>'documentId' = $1 ORDER BY created_at, id`,
    [id],
  );
  const audit = await db.query(
    `SELECT type FROM activity_events WHERE metadata->>'documentId' = $1 AND type LIKE 'payment.%' ORDER BY seq`,
    [id],
  );
  return {
    status: doc.rows[0]?.status as string,
    delivery: doc.rows[0]?.delivery_status as string,
    lines: lines.rows as Array<{ state: string; evidence: Record<string, unknown> | null }>,
    events: events.rows.map((r) => r.type as string),
    audit: audit.rows.map((r) => r.type as string),
  };
}

test('every status column has a CHECK constraint built from the lists the code uses', async () => {
  const expected: Array<[string, string, readonly string[]]> = [
    ['journal_documents', 'status', [...OUTBOUND_STATUSES, ...INBOUND_STATUSES]],
    ['journal_document_counts', 'status', [...OUTBOUND_STATUSES, ...INBOUND_STATUSES]],
    ['journal_document_counts', 'direction', DIRECTIONS],
    ['journal_documents', 'delivery_status', DELIVERY_STATUSES],
    ['journal_documents', 'delivery_mode', DELIVERY_MODES],
    ['journal_documents', 'direction', DIRECTIONS],
    ['journal_documents', 'environment', ENVIRONMENTS],
    ['payment_lines', 'state', LINE_STATES],
    ['approvals', 'status', APPROVAL_STATUSES],
    ['conversion_jobs', 'status', CONVERSION_JOB_STATUSES],
    ['webhook_endpoints', 'status', WEBHOOK_ENDPOINT_STATUSES],
    ['webhook_deliveries', 'status', WEBHOOK_DELIVERY_STATUSES],
    ['users', 'status', USER_STATUSES],
    ['connections', 'status', CONNECTION_STATUSES],
    ['connections', 'environment', ENVIRONMENTS],
    ['oauth_grants', 'status', GRANT_STATUSES],
    ['oauth_tokens', 'status', TOKEN_PAIR_STATUSES],
    ['expected_payments', 'status', EXPECTED_PAYMENT_STATUSES],
    ['incoming_payments', 'status', INCOMING_PAYMENT_STATUSES],
  ];
  for (const [table, column, values] of expected) {
    const found = await db.query(
      `SELECT pg_get_constraintdef(c.oid) AS def FROM pg_constraint c
        WHERE c.conrelid = $1::regclass AND c.contype = 'c' AND c.conname = $2`,
      [table, `${table}_${column}_ck`],
    );
    assert.equal(found.rows.length, 1, `${table}.${column} has no CHECK constraint`);
    const quoted = [...String(found.rows[0].def).matchAll(/'([^']+)'::text/g)].map((m) => m[1]!);
    const named = new Set(quoted.filter((v) => !['outbound', 'inbound'].includes(v) || column === 'direction'));
    assert.deepEqual([...named].sort(), [...values].sort(), `${table}.${column}`);
  }
  // Every column named status or state in the schema is among them.
  const columns = await db.query(
    `SELECT table_name, column_name FROM information_schema.columns
      WHERE table_schema = 'public' AND column_name IN ('status', 'state', 'delivery_status')`,
  );
  for (const row of columns.rows) {
    assert.ok(
      expected.some(([table, column]) => table === row.table_name && column === row.column_name),
      `${row.table_name}.${row.column_name} has no CHECK constraint in this test`,
    );
  }
  // And the database refuses a status the lifecycle does not know.
  const s = await provisionAndLogin(t);
  const { id } = await submit(s, 'CHECK-1', 'E2E-CHECK');
  await assert.rejects(
    db.query(`UPDATE journal_documents SET status = 'ingested' WHERE id = $1`, [id]),
    (e: { code?: string }) => e.code === '23514',
  );
  await assert.rejects(
    db.query(`UPDATE journal_documents SET delivery_status = 'lost' WHERE id = $1`, [id]),
    (e: { code?: string }) => e.code === '23514',
  );
  await assert.rejects(
    db.query(`UPDATE payment_lines SET state = 'maybe' WHERE document_id = $1`, [id]),
    (e: { code?: string }) => e.code === '23514',
  );
});

test('the store takes evidence for exactly the documents the state machine lets take it', async () => {
  const s = await provisionAndLogin(t);
  const scope = { platformId: s.platformId, companyId: s.companyId };
  const seeded: Array<{
    id: string;
    status: (typeof OUTBOUND_STATUSES)[number];
    mode: (typeof DELIVERY_MODES)[number];
  }> = [];
  await t.ctx.db.transaction(async (tx) => {
    for (const status of OUTBOUND_STATUSES) {
      for (const mode of DELIVERY_MODES) {
        const id = t.ctx.ids.next('doc');
        const now = new Date();
        await insertDocument(tx, {
          id,
          ...scope,
          journalNo: await nextJournalNo(tx, s.companyId, 'outbound'),
          direction: 'outbound',
          type: 'pain.001',
          sourceFormat: 'pain.001.001.09',
          bankKey: 'demo',
          environment: 'test',
          status,
          importSource: 'api',
          deliveryMode: mode,
          deliveryStatus:
            mode === 'converted-only' ? 'not-applicable' : status === 'converted' ? 'queued' : 'delivered',
          createdAt: now,
          updatedAt: now,
        });
        seeded.push({ id, status, mode });
      }
    }
  });
  const { sql, inArray, and } = await import('drizzle-orm');
  const rows = await t.ctx.db
    .select({ id: journalDocuments.id })
    .from(journalDocuments)
    .where(
      and(
        inArray(
          journalDocuments.id,
          seeded.map((d) => d.id),
        ),
        sql`${takesEvidence}`,
      ),
    );
  const inSql = new Set(rows.map((r) => r.id));
  for (const d of seeded) {
    const inTs = evidenceRefusal({ status: d.status, deliveryMode: d.mode }) === undefined;
    assert.equal(inSql.has(d.id), inTs, `${d.status} ${d.mode}`);
  }
});

test('the demo reply for one payment does not touch undelivered payments that share its end-to-end id', async () => {
  const s = await provisionAndLogin(t);
  const scope = { platformId: s.platformId, companyId: s.companyId };
  const a = await submit(s, 'REUSED-A');
  const b = await submit(s, 'REUSED-B');
  const c = await submit(s, 'REUSED-C');
  await deliverNow(t.ctx, scope, a.id);

  // The bank answers for A: its pain.002 (by message id) and a statement booking E2E-0001.
  assert.equal((await ingest(s, report(a.payment, 1))).statusCode, 201);
  assert.equal((await ingest(s, statement(a.payment, 1))).statusCode, 201);

  const stateA = await stateOf(a.id);
  assert.equal(stateA.status, 'executed');
  assert.deepEqual(
    stateA.lines.map((l) => [l.state, l.evidence?.['source']]),
    [['cleared', 'camt.053']],
  );
  assert.deepEqual(stateA.events, ['payment.sent', 'payment.executed']);
  for (const undelivered of [b, c]) {
    const state = await stateOf(undelivered.id);
    assert.equal(state.status, 'converted', 'a never-delivered payment is not sent');
    assert.equal(state.delivery, 'queued');
    assert.deepEqual(
      state.lines.map((l) => [l.state, l.evidence]),
      [['pending', null]],
    );
    assert.deepEqual(state.events, [], 'no payment event for a payment the bank never had');
    assert.deepEqual(state.audit, ['payment.submitted']);
  }
});

test('an ambiguous booking (a reused end-to-end id) moves no document and emits no event', async () => {
  const s = await provisionAndLogin(t);
  const scope = { platformId: s.platformId, companyId: s.companyId };
  const b = await submit(s, 'TWIN-B');
  const c = await submit(s, 'TWIN-C');
  await deliverNow(t.ctx, scope, b.id);
  await deliverNow(t.ctx, scope, c.id);
  const before = await Promise.all([stateOf(b.id), stateOf(c.id)]);

  // A statement booking E2E-0001, which both sent payments carry: ambiguous by its first rule, so no
  // weaker rule may take it either.
  assert.equal((await ingest(s, statement(b.payment, 2))).statusCode, 201);
  for (const [i, id] of [b.id, c.id].entries()) {
    const state = await stateOf(id);
    assert.equal(state.status, 'sent');
    assert.equal(state.lines[0]!.state, 'pending');
    assert.equal(state.lines[0]!.evidence?.['reason'], 'ambiguous');
    assert.deepEqual(state.events, before[i]!.events, 'no payment event');
    assert.deepEqual(state.audit, before[i]!.audit, 'no audit event about the document');
  }

  // A status report without an original message id of ours: its end-to-end ids name both; 422.
  const orphan = report(b.payment, 3).replace(/<OrgnlMsgId>[^<]*<\/OrgnlMsgId>/, '<OrgnlMsgId>UNKNOWN</OrgnlMsgId>');
  const refused = await t.request({
    method: 'POST',
    url: '/inbound/payment-status',
    headers: { 'x-api-key': s.apiKey },
    payload: { companyId: s.companyId, content: orphan },
  });
  const error = assertError(refused, 422, 'unmatched_report');
  assert.equal(error.details?.['reason'], 'ambiguous');
  for (const [i, id] of [b.id, c.id].entries()) assert.deepEqual((await stateOf(id)).events, before[i]!.events);

  // Evidence that matches nothing at all changes nothing either.
  const stranger = structuredClone(b.payment);
  stranger.messageId = 'STRANGER';
  stranger.payments[0]!.transactions[0]!['endToEndId'] = 'E2E-NOBODY';
  stranger.payments[0]!.transactions[0]!['amount'] = '999.99';
  assert.equal((await ingest(s, statement(stranger, 4))).statusCode, 201);
  for (const [i, id] of [b.id, c.id].entries()) {
    const state = await stateOf(id);
    assert.equal(state.status, 'sent');
    assert.deepEqual(state.events, before[i]!.events);
  }

  const verdict = await verifyCompanyChain(t.ctx.db, scope);
  assert.equal(verdict.ok, true, JSON.stringify(verdict));
});

test('SQL functions live only in src/db/functions, each defined once, and re-apply idempotently', async () => {
  const root = path.resolve(import.meta.dirname, '../../src/db');
  for (const file of readdirSync(path.join(root, 'migrations')).filter((f) => f.endsWith('.sql'))) {
    const text = readFileSync(path.join(root, 'migrations', file), 'utf8');
    assert.doesNotMatch(text, /CREATE\s+(OR\s+REPLACE\s+)?FUNCTION/i, `${file} defines a function`);
  }
  const definitions = new Map<string, number>();
  for (const file of readdirSync(path.join(root, 'functions')).filter((f) => f.endsWith('.sql'))) {
    const text = readFileSync(path.join(root, 'functions', file), 'utf8');
    for (const m of text.matchAll(/CREATE OR REPLACE FUNCTION (\w+)/g)) {
      definitions.set(m[1]!, (definitions.get(m[1]!) ?? 0) + 1);
    }
    // The hash formula has one SQL copy: audit_append.
    if (file !== '010_audit_append.sql') assert.doesNotMatch(text, /sha256\(/, `${file} hashes`);
  }
  for (const [name, count] of definitions) assert.equal(count, 1, `${name} defined ${count} times`);
  assert.ok(definitions.has('journal_outbound') && definitions.has('audit_append'));

  // Applying everything again (another process starting) changes nothing and keeps submits working.
  const pool = new pg.Pool({ connectionString: t.databaseUrl, max: 1 });
  await runMigrations(pool);
  await runMigrations(pool);
  await pool.end();
  const overloads = await db.query(`SELECT count(*)::int AS n FROM pg_proc WHERE proname = 'journal_outbound'`);
  assert.equal(overloads.rows[0].n, 1, 'the old journal_outbound signature was dropped');
  const s = await provisionAndLogin(t);
  await submit(s, 'AFTER-REAPPLY', 'E2E-RE');
});
