import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { verifyCompanyChain } from '../../src/app/audit/verify.ts';
import { body, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';

/**
 * Test submits are group-committed (src/db/submit-batcher.ts, journal_submit_batch): requests that
 * arrive together share one statement and one transaction. Each must still get its own journal
 * number, lines, events and answer, chains must verify, and one item failing must not take the
 * others with it.
 */
let t: TestApp;

before(async () => {
  t = await startTestApp();
});
after(() => t.close());

type Sandbox = Awaited<ReturnType<typeof provisionAndLogin>>;

function submit(s: Sandbox, messageId: string) {
  const b = structuredClone(s.firstPayment.body) as { payment: { messageId: string } };
  b.payment.messageId = messageId;
  return t.request({
    method: 'POST',
    url: '/journal/payments',
    headers: { 'x-api-key': s.apiKey, 'idempotency-key': messageId },
    payload: b,
  });
}

test('120 simultaneous submits over three companies: each journaled once, numbers gap-free, chains verify', async () => {
  const companies = [await provisionAndLogin(t), await provisionAndLogin(t), await provisionAndLogin(t)];
  const answers = await Promise.all(Array.from({ length: 120 }, (_, i) => submit(companies[i % 3]!, `BATCH-${i}`)));
  for (const res of answers) assert.equal(res.statusCode, 201, res.body);
  const docs = answers.map((res) => body<{ id: string; journalNo: string; companyId: string; messageId: string }>(res));
  assert.equal(new Set(docs.map((d) => d.id)).size, 120);
  for (const s of companies) {
    const own = docs.filter((d) => d.companyId === s.companyId);
    assert.equal(own.length, 40);
    // The numbers each answer carries are the company's next 40, whatever order the batches took.
    const numbers = own.map((d) => Number(d.journalNo.slice(4))).sort((a, b) => a - b);
    const first = numbers[0]!;
    assert.deepEqual(
      numbers,
      numbers.map((_, i) => first + i),
    );
    const stored = await t.ctx.db.execute<{ id: string; journal_no: string; lines: string; events: string }>(sql`
      SELECT d.id, d.journal_no,
             (SELECT count(*) FROM payment_lines l WHERE l.document_id = d.id)::text AS lines,
             (SELECT count(*) FROM activity_events e WHERE e.metadata->>'documentId' = d.id)::text AS events
        FROM journal_documents d WHERE d.company_id = ${s.companyId} AND d.message_id LIKE 'BATCH-%'`);
    assert.equal(stored.rows.length, 40);
    for (const row of stored.rows) {
      assert.equal(own.find((d) => d.id === row.id)?.journalNo, row.journal_no, 'the answer carries the stored number');
      assert.deepEqual([row.lines, row.events], ['1', '1']);
    }
    const verdict = await verifyCompanyChain(t.ctx.db, { platformId: s.platformId, companyId: s.companyId });
    assert.equal(verdict.ok, true, JSON.stringify(verdict));
  }
});

test('one failing item in a batch is rolled back alone; the others are journaled', async () => {
  const s = await provisionAndLogin(t);
  const { submitOutbound } = await import('../../src/db/repositories/journal-submit.ts');
  const scope = { platformId: s.platformId, companyId: s.companyId };
  const now = new Date();
  const entry = (i: number, platformId: string) => ({
    document: {
      id: `doc_batch_item_${i}`,
      platformId,
      companyId: s.companyId,
      direction: 'outbound',
      type: 'pain.001',
      sourceFormat: 'pain.001.001.09',
      bankKey: 'demo',
      environment: 'test',
      status: 'converted',
      messageId: `ITEM-${i}`,
      importSource: 'api',
      transactionCount: 0,
      totals: [],
      paymentType: null,
      idempotencyKey: `ITEM-${i}`,
      requestDigest: null,
      deliveryMode: 'host-to-host',
      deliveryStatus: 'queued',
      summary: `item ${i}`,
      accountIban: null,
      accountCurrency: null,
      contentDigest: null,
      blockIndex: null,
      payloadSealed: null,
      fileSealed: null,
      warnings: null,
      details: null,
      collected: false,
      collectedAt: null,
      createdAt: now,
      updatedAt: now,
      expiresAt: null,
    },
    lines: [],
    approval: null,
    events: (journalNo: string) => [
      {
        id: `evt_batch_item_${i}`,
        chainId: s.companyId,
        platformId: s.platformId,
        companyId: s.companyId,
        type: 'payment.submitted',
        message: `${journalNo} submitted: item ${i}`,
        actorUserId: null,
        metadata: { journalNo, item: i },
        bankKey: 'demo',
        environment: 'test',
        connectionId: null,
        createdAt: now,
        expiresAt: null,
      },
    ],
  });
  // Issued in one tick: the first few go out at once, one batch each; the rest queue and go out
  // together, the failing item (a platform that does not exist: the document's foreign key fails)
  // in the middle of them.
  const calls = Array.from({ length: 12 }, (_, i) =>
    submitOutbound(t.ctx.db, scope, `ITEM-${i}`, `ITEM-${i}`, entry(i, i === 9 ? 'plat_missing' : s.platformId), {
      apiKeyId: null,
      context: null,
    }),
  );
  const settled = await Promise.allSettled(calls);
  settled.forEach((r, i) => {
    if (i === 9) {
      assert.equal(r.status, 'rejected');
      assert.match(String((r as PromiseRejectedResult).reason), /journal_submit_batch: 23503/);
    } else {
      assert.equal(r.status, 'fulfilled', String((r as PromiseRejectedResult).reason));
      assert.match((r as PromiseFulfilledResult<{ journalNo: string }>).value.journalNo, /^OUT-\d+$/);
    }
  });
  const stored = await t.ctx.db.execute<{ n: string }>(
    sql`SELECT count(*)::text AS n FROM journal_documents WHERE company_id = ${s.companyId} AND message_id LIKE 'ITEM-%'`,
  );
  assert.equal(stored.rows[0]?.n, '11');
  const verdict = await verifyCompanyChain(t.ctx.db, { platformId: s.platformId, companyId: s.companyId });
  assert.equal(verdict.ok, true, JSON.stringify(verdict));
});
