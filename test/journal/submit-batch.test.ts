import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { verifyCompanyChain } from '../../src/app/audit/verify.ts';
import { submittedAs } from '../../src/domain/lifecycle/index.ts';
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

/**
 * An outbound entry as submitPayment builds one, for company `s`: `<TAG>-<i>` as message id and
 * idempotency key, with the given lines, approval (two events) and delivery mode; `platformId` may name
 * another platform (one that does not exist makes the document's foreign key fail).
 */
function outboundEntry(
  s: Sandbox,
  tag: string,
  i: number,
  shape: { platformId?: string; approval?: boolean; hostToHost?: boolean; lines?: number } = {},
) {
  const now = new Date('2026-11-21T10:00:00Z');
  const name = `${tag.toLowerCase()}_${s.companyId}_${i}`;
  const id = `doc_${name}`;
  const platformId = shape.platformId ?? s.platformId;
  const { status, deliveryStatus } = submittedAs(
    shape.hostToHost === false ? 'converted-only' : 'host-to-host',
    shape.approval === true,
  );
  const about = { platformId, companyId: s.companyId, bankKey: 'demo', environment: 'test' };
  return {
    document: {
      id,
      ...about,
      direction: 'outbound',
      type: 'pain.001',
      sourceFormat: 'pain.001.001.09',
      status,
      messageId: `${tag}-${i}`,
      importSource: 'api',
      transactionCount: shape.lines ?? 0,
      totals: [],
      paymentType: null,
      idempotencyKey: `${tag}-${i}`,
      requestDigest: null,
      deliveryMode: shape.hostToHost === false ? ('converted-only' as const) : ('host-to-host' as const),
      deliveryStatus,
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
    lines: Array.from({ length: shape.lines ?? 0 }, (_, l) => ({
      documentId: id,
      lineIndex: l,
      platformId,
      companyId: s.companyId,
      paymentId: `P-${i}`,
      endToEndId: `E2E-${i}-${l}`,
      instructionId: null,
      amountMinor: 100n + BigInt(l),
      amount: `1.0${l}`,
      currency: 'EUR',
      payeeName: 'Payee',
      payeeIban: 'FI2112345600000785',
      executionDate: '2026-11-23',
      state: 'pending' as const,
      evidence: null,
      updatedAt: now,
      openUntil: null,
    })),
    approval: shape.approval
      ? {
          id: `appr_${name}`,
          platformId,
          companyId: s.companyId,
          documentId: id,
          policyId: null,
          status: 'pending' as const,
          makerUserId: null,
          decisions: [],
          createdAt: now,
          updatedAt: now,
        }
      : null,
    events: (journalNo: string) =>
      (shape.approval ? ['payment.submitted', 'payment.pending-approval'] : ['payment.submitted']).map((type, e) => ({
        id: `evt_${name}_${e}`,
        chainId: s.companyId,
        ...about,
        type,
        message: `${journalNo} ${type}`,
        actorUserId: null,
        metadata: { journalNo, item: i },
        connectionId: null,
        createdAt: now,
        expiresAt: null,
      })),
  };
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
  // Issued in one tick: the first few go out at once, one batch each; the rest queue and go out
  // together, the failing item (a platform that does not exist: the document's foreign key fails)
  // in the middle of them.
  const calls = Array.from({ length: 12 }, (_, i) =>
    submitOutbound(
      t.ctx.db,
      scope,
      `ITEM-${i}`,
      `ITEM-${i}`,
      outboundEntry(s, 'ITEM', i, { platformId: i === 9 ? 'plat_missing' : s.platformId }),
      {
        apiKeyId: null,
        context: null,
      },
    ),
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

test('journaled together or one by one, a batch writes the same rows and answers the same', async () => {
  const { batchItem } = await import('../../src/db/repositories/journal-submit.ts');
  const { batchJson } = await import('../../src/db/submit-batcher.ts');
  const a = await provisionAndLogin(t);
  const b = await provisionAndLogin(t);
  // An earlier document for the 'earlier' item, and a revoked key for the 'revoked' one.
  assert.equal((await submit(a, 'SAME-EARLIER')).statusCode, 201);
  const keyOf = async (s: Sandbox) =>
    (await t.ctx.db.execute<{ id: string }>(sql`SELECT id FROM api_keys WHERE platform_id = ${s.platformId}`)).rows[0]!
      .id;
  const [keyA, keyB] = [await keyOf(a), await keyOf(b)];
  const revoked = `key_same_revoked_${process.pid}`;
  await t.ctx.db.execute(sql`INSERT INTO api_keys (id, platform_id, label, digest, created_at, revoked_at)
    VALUES (${revoked}, ${b.platformId}, 'revoked', ${`digest-${revoked}`}, now(), now())`);

  const scope = (s: Sandbox) => ({ platformId: s.platformId, companyId: s.companyId });
  const checks = (apiKeyId: string | null, context: string | null = null) => ({ apiKeyId, context });
  const items = batchJson([
    batchItem(scope(a), 'SAME-1', 'SAME-1', outboundEntry(a, 'SAME', 1, { lines: 2 }), checks(keyA)),
    batchItem(scope(a), 'SAME-2', 'SAME-2', outboundEntry(a, 'SAME', 2, { approval: true, lines: 1 }), checks(keyA)),
    batchItem(scope(a), 'SAME-EARLIER', 'SAME-EARLIER', outboundEntry(a, 'SAME', 3, {}), checks(keyA)),
    batchItem(
      scope(a),
      'SAME-4',
      'SAME-4',
      outboundEntry(a, 'SAME', 4, { hostToHost: false }),
      checks(keyA, 'not the context'),
    ),
    batchItem(scope(b), 'SAME-5', 'SAME-5', outboundEntry(b, 'SAME', 5, { lines: 3 }), checks(keyB)),
    batchItem(scope(b), 'SAME-6', 'SAME-6', outboundEntry(b, 'SAME', 6, {}), checks(revoked)),
    batchItem(
      scope(b),
      'SAME-7',
      'SAME-7',
      outboundEntry(b, 'SAME', 7, { hostToHost: false, approval: true }),
      checks(null),
    ),
  ]);

  // Each way in a transaction rolled back afterwards, reading what it wrote before the rollback.
  const written = async (isolated: boolean) => {
    const client = await t.ctx.db.$client.connect();
    try {
      await client.query('BEGIN');
      const answer = await client.query('SELECT journal_submit_batch($1::jsonb, $2) AS r', [items, isolated]);
      const companies = [a.companyId, b.companyId];
      const read = async (query: string) => (await client.query(query, [companies])).rows;
      const rows = {
        answer: answer.rows[0].r,
        documents: await read(
          `SELECT id, journal_no, status, delivery_status FROM journal_documents WHERE company_id = ANY($1) AND message_id LIKE 'SAME-%' ORDER BY id`,
        ),
        lines: await read(
          `SELECT document_id, line_index, amount_minor, end_to_end_id FROM payment_lines WHERE company_id = ANY($1) AND document_id LIKE 'doc_same_%' ORDER BY 1, 2`,
        ),
        approvals: await read(`SELECT id, document_id FROM approvals WHERE company_id = ANY($1) ORDER BY id`),
        deliveries: await read(
          `SELECT document_id FROM delivery_requests WHERE company_id = ANY($1) AND document_id LIKE 'doc_same_%' ORDER BY 1`,
        ),
        events: await read(
          `SELECT id, chain_id, seq, message, metadata, prev_hash, hash FROM activity_events WHERE company_id = ANY($1) AND id LIKE 'evt_same_%' ORDER BY id`,
        ),
        heads: await read(`SELECT chain_id, last_seq, last_hash FROM chain_heads WHERE chain_id = ANY($1) ORDER BY 1`),
        counters: await read(`SELECT company_id, last_no FROM journal_counters WHERE company_id = ANY($1) ORDER BY 1`),
      };
      await client.query('ROLLBACK');
      return rows;
    } finally {
      client.release();
    }
  };
  const together = await written(false);
  const oneByOne = await written(true);
  assert.deepEqual(together, oneByOne);
  // And what they wrote is what the items asked for.
  assert.deepEqual(
    together.answer.map((r: string) => r.replace(/^OUT-\d+$/, 'OUT-n')),
    ['OUT-n', 'OUT-n', 'earlier', 'stale-context', 'OUT-n', 'revoked', 'OUT-n'],
  );
  assert.deepEqual(
    [together.documents.length, together.lines.length, together.approvals.length, together.deliveries.length],
    [5, 6, 2, 2], // documents: the four new ones and the earlier one
  );
  assert.equal(together.events.length, 6);
});

test("a batch waiting on one company's lock does not hold up another company's submits", async () => {
  const [a, b] = [await provisionAndLogin(t), await provisionAndLogin(t)];
  assert.equal((await submit(a, 'WAIT-A-0')).statusCode, 201); // the counter row exists
  // Another transaction holds company A's journal counter, as a long production submit would.
  const holder = await t.ctx.db.$client.connect();
  try {
    await holder.query('BEGIN');
    await holder.query(`SELECT 1 FROM journal_counters WHERE company_id = $1 FOR UPDATE`, [a.companyId]);
    const blocked = submit(a, 'WAIT-A-1');
    let blockedDone = false;
    void blocked.then(() => {
      blockedDone = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 20)); // A's batch is in PostgreSQL, waiting
    const other = await Promise.race([
      submit(b, 'WAIT-B-1'),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error("company B's submit waited on company A's lock")), 10_000).unref(),
      ),
    ]);
    assert.equal(other.statusCode, 201, other.body);
    assert.equal(blockedDone, false, "company A's submit is still waiting on its lock");
    await holder.query('ROLLBACK');
    assert.equal((await blocked).statusCode, 201);
  } finally {
    await holder.query('ROLLBACK').catch(() => {});
    holder.release();
  }
});
