/**
 * Races of maker-checker, run concurrently on real PostgreSQL: two checkers deciding at once, a
 * decision racing the client's cancel, a decision racing the expiry sweep. Whatever the order the
 * database picks, there is exactly one outcome and at most one delivery.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { expireApprovals } from '../../src/app/approvals/expire.ts';
import { relayQueuedDeliveries } from '../../src/app/delivery/relay.ts';
import { provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import {
  type Approval,
  addUser,
  approvalOf,
  count,
  createPolicy,
  decide,
  documentStatus,
  payment,
  type Sandbox,
  submitted,
} from './support.ts';

let t: TestApp;
let sb: Sandbox;

before(async () => {
  t = await startTestApp();
  sb = await provisionAndLogin(t);
});
after(() => t.close());

const ROUNDS = 6;

async function deliveryRequests(documentId: string) {
  return count(t, sql`SELECT count(*)::text AS n FROM delivery_requests WHERE document_id = ${documentId}`);
}

async function bankJobs(documentId: string) {
  return count(
    t,
    sql`SELECT count(*)::text AS n FROM pgboss.job WHERE name = 'bank-delivery' AND data->>'documentId' = ${documentId}`,
  );
}

async function outboxCount(documentId: string, type: string) {
  return count(
    t,
    sql`SELECT count(*)::text AS n FROM outbox_events WHERE type = ${type} AND payload->'data'->>'documentId' = ${documentId}`,
  );
}

test('checkers deciding at once: one outcome, one delivery request, one approval.approved', async (tc) => {
  const seen: string[] = [];
  const company = await provisionAndLogin(t);
  const checkers = await Promise.all(['Ann', 'Ben', 'Cay'].map((n) => addUser(t, company, n, ['approver'])));
  await createPolicy(t, company, { name: 'one', minAmount: '1' });
  for (let round = 0; round < ROUNDS; round++) {
    const doc = await submitted(t, company, payment(company));
    const { id } = await approvalOf(t, company, doc.id);
    // Two approve and one rejects, all at once.
    const [a, b, c] = await Promise.all([
      decide(t, checkers[0]!.sessionToken, id, 'approve'),
      decide(t, checkers[1]!.sessionToken, id, 'approve'),
      decide(t, checkers[2]!.sessionToken, id, 'reject', { reason: 'stop' }),
    ]);
    const answers = [a, b, c];
    const won = answers.filter((r) => r.statusCode === 200);
    assert.equal(won.length, 1, answers.map((r) => r.body).join('\n'));
    for (const lost of answers.filter((r) => r.statusCode !== 200)) {
      assert.equal(lost.statusCode, 409, lost.body);
      assert.equal((lost.json() as { error: { code: string } }).error.code, 'approval_not_pending');
    }
    const outcome = (won[0]!.json() as Approval).status;
    seen.push(outcome);
    const final = await approvalOf(t, company, doc.id);
    assert.equal(final.status, outcome);
    assert.equal(final.approvals.length + final.rejections.length, 1, 'one decision recorded');
    const status = await documentStatus(t, doc.id);
    if (outcome === 'approved') {
      assert.deepEqual(status, { status: 'converted', delivery_status: 'queued' });
      assert.equal(await deliveryRequests(doc.id), 1);
      assert.equal(await outboxCount(doc.id, 'approval.approved'), 1);
    } else {
      assert.equal(outcome, 'rejected');
      assert.deepEqual(status, { status: 'cancelled', delivery_status: 'cancelled' });
      assert.equal(await deliveryRequests(doc.id), 0);
      assert.equal(await outboxCount(doc.id, 'approval.rejected'), 1);
    }
  }
  tc.diagnostic(`outcomes: ${seen.join(', ')}`);
  // The relay makes one bank-delivery job per approved document, none for the others.
  while ((await relayQueuedDeliveries(t.ctx)) > 0);
  const docs = await t.ctx.db.execute<{ id: string; status: string }>(
    sql`SELECT id, status FROM journal_documents WHERE company_id = ${company.companyId} AND direction = 'outbound'`,
  );
  for (const d of docs.rows) assert.equal(await bankJobs(d.id), d.status === 'converted' ? 1 : 0, d.id);
});

test('an approval racing the client cancel: the document never goes out once cancelled', async (tc) => {
  const seen: string[] = [];
  const checker = await addUser(t, sb, 'Dora', ['approver']);
  await createPolicy(t, sb, { name: 'one', minAmount: '1' });
  for (let round = 0; round < ROUNDS; round++) {
    const doc = await submitted(t, sb, payment(sb));
    const { id } = await approvalOf(t, sb, doc.id);
    const [approved, cancelled] = await Promise.all([
      decide(t, checker.sessionToken, id, 'approve'),
      t.request({
        method: 'POST',
        url: `/journal/documents/${doc.id}/cancel?companyId=${sb.companyId}`,
        headers: { 'x-api-key': sb.apiKey },
        payload: {},
      }),
    ]);
    // The cancel always succeeds before delivery: the approval came first (and released it) or not at all.
    assert.equal(cancelled.statusCode, 200, cancelled.body);
    assert.deepEqual(await documentStatus(t, doc.id), { status: 'cancelled', delivery_status: 'cancelled' });
    const final = await approvalOf(t, sb, doc.id);
    seen.push(final.status);
    if (approved.statusCode === 200) {
      assert.equal(final.status, 'approved');
      assert.equal(await outboxCount(doc.id, 'approval.approved'), 1);
    } else {
      assert.equal(approved.statusCode, 409, approved.body);
      assert.equal((approved.json() as { error: { code: string } }).error.code, 'approval_not_pending');
      assert.equal(final.status, 'cancelled');
      assert.equal(await deliveryRequests(doc.id), 0);
      assert.equal(await outboxCount(doc.id, 'approval.approved'), 0);
    }
  }
  tc.diagnostic(`approvals: ${seen.join(', ')}`);
  // Whatever was relayed, no cancelled document reaches the bank.
  while ((await relayQueuedDeliveries(t.ctx)) > 0);
  const sent = await count(
    t,
    sql`SELECT count(*)::text AS n FROM journal_documents WHERE company_id = ${sb.companyId} AND status = 'sent'`,
  );
  assert.equal(sent, 0);
});

test('a decision racing the expiry sweep: approved and released, or expired and cancelled, never both', async (tc) => {
  const company = await provisionAndLogin(t);
  const checker = await addUser(t, company, 'Eve', ['approver']);
  await createPolicy(t, company, { name: 'one', minAmount: '1' });
  // The sweep runs as if 15 days had passed; the decision in the present.
  const later = { ...t.ctx, clock: { now: () => new Date(Date.now() + 15 * 24 * 3600_000) } };
  const outcomes = new Set<string>();
  for (let round = 0; round < ROUNDS; round++) {
    const doc = await submitted(t, company, payment(company));
    const { id } = await approvalOf(t, company, doc.id);
    const [decision, expired] = await Promise.all([
      decide(t, checker.sessionToken, id, 'approve'),
      // The sweep starts a little later each round, so both orders get their turn.
      new Promise<void>((r) => setTimeout(r, round * 4)).then(() => expireApprovals(later)),
    ]);
    const final = await approvalOf(t, company, doc.id);
    const status = await documentStatus(t, doc.id);
    outcomes.add(final.status);
    if (decision.statusCode === 200) {
      assert.equal(final.status, 'approved');
      assert.equal(expired, 0);
      assert.deepEqual(status, { status: 'converted', delivery_status: 'queued' });
      assert.equal(await deliveryRequests(doc.id), 1);
      assert.equal(await outboxCount(doc.id, 'approval.expired'), 0);
    } else {
      assert.equal(decision.statusCode, 409, decision.body);
      assert.equal(final.status, 'expired');
      assert.equal(expired, 1);
      assert.deepEqual(status, { status: 'cancelled', delivery_status: 'cancelled' });
      assert.equal(await deliveryRequests(doc.id), 0);
      assert.equal(await outboxCount(doc.id, 'approval.approved'), 0);
      assert.equal(await outboxCount(doc.id, 'approval.expired'), 1);
    }
  }
  tc.diagnostic(`outcomes: ${[...outcomes].join(', ')}`);
});
