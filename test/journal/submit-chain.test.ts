import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { recordEvent } from '../../src/app/audit/record.ts';
import { verifyCompanyChain } from '../../src/app/audit/verify.ts';
import { relayQueuedDeliveries } from '../../src/app/delivery/relay.ts';
import { firstPaymentRequest } from '../../src/app/sandbox/first-payment.ts';
import { insertPolicy } from '../../src/db/repositories/approvals.ts';
import { setBilling } from '../../src/db/repositories/billing.ts';
import { body, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';

/**
 * The submit statement (journal_submit_batch / journal_outbound, migrations 0007-0011) appends its audit events
 * to the company's hash chain inside PostgreSQL, from canonical JSON built here with placeholders for
 * the journal number and seq. These tests hold it to the verifier's definition of the chain.
 */
let t: TestApp;
let s: Awaited<ReturnType<typeof provisionAndLogin>>;
let n = 0;

before(async () => {
  t = await startTestApp();
  s = await provisionAndLogin(t);
});
after(() => t.close());

function payment(payeeName: string, environment: 'test' | 'production' = 'test') {
  const { body: b } = firstPaymentRequest({
    baseUrl: '',
    apiKey: '',
    companyId: s.companyId,
    bankKey: 'demo',
    today: new Date(),
  });
  n++;
  const p = structuredClone(b.payment) as {
    messageId: string;
    payments: Array<{ transactions: Array<{ creditor: { name: string } }> }>;
  };
  p.messageId = `CHAIN-${n}`;
  p.payments[0]!.transactions[0]!.creditor.name = payeeName;
  return { ...b, environment, payment: p };
}

async function submit(b: object) {
  // The key is free text and lands in the event metadata: JSON escapes and placeholder look-alikes.
  const res = await t.request({
    method: 'POST',
    url: '/journal/payments',
    headers: { 'x-api-key': s.apiKey, 'idempotency-key': `key "#journal-no:x#" \\ #seq:${n}# ${n}` },
    payload: b,
  });
  assert.equal(res.statusCode, 201, res.body);
  return body<{ id: string; journalNo: string; status: string }>(res);
}

test('submitted documents chain with every other event and verify; journal number and seq are filled in', async () => {
  const scope = { platformId: s.platformId, companyId: s.companyId };
  // Payee names that look like JSON, placeholders or escapes end up in the summary and the message.
  const names = ['Quote " and Ampersand & Oy', 'Seq "seq":1 Ab', 'Ünïcödé Ströme GmbH'];
  const docs = [];
  for (const name of names) {
    docs.push(await submit(payment(name)));
    await t.ctx.db.transaction((tx) =>
      recordEvent(t.ctx, tx, { ...scope, type: 'between.submits', message: 'in between', metadata: { name } }),
    );
  }
  // A production submit goes through the transaction with the billing gates: same chain.
  await setBilling(t.ctx.db, scope, { activePackage: true }, new Date());
  docs.push(await submit(payment('Production Payee Oy', 'production')));
  // A matching policy adds a second event in the same statement.
  const now = new Date();
  await insertPolicy(t.ctx.db, {
    ...scope,
    id: 'apol_chain',
    name: 'all',
    minAmount: '0',
    groups: [],
    createdAt: now,
    updatedAt: now,
  });
  const pending = await submit(payment('Needs Approval Oy'));
  assert.equal(pending.status, 'pending-approval');
  docs.push(pending);

  const verdict = await verifyCompanyChain(t.ctx.db, scope, 4);
  assert.equal(verdict.ok, true, JSON.stringify(verdict));

  const rows = await t.ctx.db.execute<{ seq: string; type: string; message: string; metadata: { journalNo?: string } }>(
    sql`SELECT seq::text AS seq, type, message, metadata FROM activity_events WHERE chain_id = ${s.companyId} ORDER BY activity_events.seq`,
  );
  const seqs = rows.rows.map((r) => Number(r.seq));
  assert.deepEqual(
    seqs,
    seqs.map((_, i) => i + 1),
    'gap-free from 1',
  );
  for (const doc of docs) {
    const own = rows.rows.filter((r) => r.type.startsWith('payment.') && r.metadata.journalNo === doc.journalNo);
    assert.ok(own.length >= 1, `events of ${doc.journalNo}`);
    for (const e of own) assert.ok(e.message.startsWith(`${doc.journalNo} `), e.message);
  }
  assert.deepEqual(
    rows.rows.filter((r) => r.metadata.journalNo === pending.journalNo).map((r) => r.type),
    ['payment.submitted', 'payment.pending-approval', 'approval.requested'],
  );
  assert.ok(rows.rows.every((r) => !r.message.includes('#journal-no:')));
});

test('the relay gives each queued document exactly one delivery job, also when relays race', async () => {
  s = await provisionAndLogin(t); // a company without the approval policy above
  const ids = [];
  for (let i = 0; i < 25; i++) ids.push((await submit(payment(`Relay Payee ${i}`))).id);
  const relayed = await Promise.all([relayQueuedDeliveries(t.ctx), relayQueuedDeliveries(t.ctx)]);
  await relayQueuedDeliveries(t.ctx);
  assert.ok(relayed[0]! + relayed[1]! >= 25);
  const jobs = await t.ctx.db.execute<{ id: string; n: string }>(sql`
    SELECT data->>'documentId' AS id, count(*)::text AS n FROM pgboss.job
     WHERE name = 'bank-delivery' AND data->>'documentId' IN ${ids} GROUP BY 1`);
  assert.equal(jobs.rows.length, 25);
  assert.ok(jobs.rows.every((r) => r.n === '1'));
  const left = await t.ctx.db.execute<{ n: string }>(sql`SELECT count(*)::text AS n FROM delivery_requests`);
  assert.equal(left.rows[0]?.n, '0');
});
