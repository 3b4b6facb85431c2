/**
 * The pipeline's statements that find their rows by key read those rows, not the company's, even
 * while PostgreSQL's statistics do not know the company yet (issue 21, docs/adr/0051): a young
 * database whose statistics were gathered when its tables were empty (autovacuum off on them, so no
 * ANALYZE catches up), and a company that has since grown to 5,000 documents. Before, a set-wise
 * status update of 100 documents read the company's rows through a company index and tested each
 * against each row of the batch (500,000 pairs, 130 ms).
 *
 * Each statement is explained (EXPLAIN ANALYZE, rolled back) with sequential scans disabled, so that
 * the size of a test's table does not decide: a plan fails on a company table read beyond the batch
 * or on a join that tests more pairs than that.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { generateJournal } from '../../bench/support/journal-generator.ts';
import { readDemoBankDocuments } from '../../src/db/repositories/demo-bank.ts';
import {
  findOutboundByMessageIds,
  listPaymentLinesOf,
  lockDocuments,
  updateDocumentStatuses,
  updateLinesOfDocuments,
} from '../../src/db/repositories/journal-documents.ts';
import { provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { explain, findings, recordStatements } from '../support/query-plans.ts';

const TABLES = ['journal_documents', 'payment_lines'];
const DOCUMENTS = 5000;
const BATCH = 100;
// Up to 20 lines a document in the generated journal; the rows of the batch twice over at most.
const LIMITS = { maxSorted: BATCH * 20, maxExamined: BATCH * 20 * 2 };

let t: TestApp;
let a: Awaited<ReturnType<typeof provisionAndLogin>>;
let client: pg.Client;
let batch: Array<{ id: string; messageId: string }>;

before(async () => {
  t = await startTestApp();
  client = new pg.Client({ connectionString: t.databaseUrl });
  await client.connect();
  // Statistics as a young database has them: gathered while the tables were empty, never since.
  for (const table of TABLES) await client.query(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`);
  await client.query(`ANALYZE ${TABLES.join(', ')}`);
  a = await provisionAndLogin(t);
  await generateJournal(client, a, { documents: DOCUMENTS, tag: 'kw', sealed: false });
  const { rows } = await client.query<{ id: string; message_id: string }>(
    `SELECT id, message_id FROM journal_documents
      WHERE company_id = $1 AND direction = 'outbound' AND status = 'executed' ORDER BY id LIMIT ${BATCH}`,
    [a.companyId],
  );
  batch = rows.map((r) => ({ id: r.id, messageId: r.message_id }));
  assert.equal(batch.length, BATCH);
});
after(async () => {
  await client?.end();
  await t?.close();
});

/** What makes the statement `run` sends grow with the company (none: it reads the batch by key). */
async function plansOf(run: () => Promise<unknown>) {
  const recording = recordStatements(t.ctx.db.$client);
  await run();
  const statements = recording.stop();
  assert.equal(statements.length, 1);
  await client.query('BEGIN');
  try {
    return findings(await explain(client, statements[0]!), new Set(TABLES), LIMITS);
  } finally {
    await client.query('ROLLBACK');
  }
}

const scope = () => ({ platformId: a.platformId, companyId: a.companyId });
const ids = () => batch.map((d) => d.id);

test('a batch of documents locked, read by the demo bank and its lines read: the batch rows, by key', async () => {
  assert.deepEqual(await plansOf(() => lockDocuments(t.ctx.db, scope(), ids())), []);
  assert.deepEqual(await plansOf(() => readDemoBankDocuments(t.ctx.db, scope(), ids())), []);
  assert.deepEqual(await plansOf(() => listPaymentLinesOf(t.ctx.db, scope(), ids())), []);
});

test('a set-wise status update and a set-wise line update reach each row by its key', async () => {
  const moves = batch.map((d) => ({
    id: d.id,
    from: 'executed' as const,
    to: 'executed' as const,
    details: { kw: 1 },
  }));
  assert.deepEqual(await plansOf(() => updateDocumentStatuses(t.ctx.db, scope(), moves, new Date())), []);
  const changes = batch.map((d) => ({
    documentId: d.id,
    index: 0,
    state: 'cleared' as const,
    evidence: { kw: 1 },
    settled: true,
  }));
  assert.deepEqual(await plansOf(() => updateLinesOfDocuments(t.ctx.db, scope(), changes, new Date())), []);
});

test("the replies' lookup of outbound documents by message id reads those documents", async () => {
  let found = new Map<string, string>();
  const plan = await plansOf(async () => {
    found = await findOutboundByMessageIds(
      t.ctx.db,
      scope(),
      batch.map((d) => d.messageId),
    );
  });
  assert.equal(found.size, BATCH);
  assert.deepEqual(plan, []);
});
