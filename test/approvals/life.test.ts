/**
 * The whole maker-checker life through HTTP on real PostgreSQL, with the workers running: a company
 * admin makes a policy, submits a payment that needs two approvals as the maker, two approvers (one
 * with TOTP 2FA) approve it from the queue, and the demo bank executes it and the line clears.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { verifyCompanyChain } from '../../src/app/audit/verify.ts';
import { provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import {
  type Approval,
  addUser,
  adminId,
  approvalOf,
  createPolicy,
  currentCode,
  decide,
  enrolTwoFactor,
  payment,
  submitted,
} from './support.ts';

let t: TestApp;

before(async () => {
  t = await startTestApp({ workers: true, env: { DEMO_BANK_DELAY_MS: '300' } });
});
after(() => t.close());

async function waitFor<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`never: ${what}`);
}

test('policy, submit by the maker, queue, two approvers (one with 2FA), demo-bank delivery to executed', async () => {
  const sb = await provisionAndLogin(t);
  const alice = await addUser(t, sb, 'Alice', ['approver']);
  const bob = await addUser(t, sb, 'Bob', ['approver']);
  const bobSecret = await enrolTwoFactor(t, bob);
  const maker = await adminId(t, sb);

  const policy = await createPolicy(t, sb, {
    name: 'Two signatures over 100 EUR',
    currency: 'EUR',
    minAmount: '100.00',
    requiredApprovals: 2,
  });
  assert.match(policy.id, /^apol_/);
  assert.equal(policy['requiredApprovals'], 2);

  // The admin submits with their session: they are the maker.
  const doc = await submitted(t, sb, payment(sb), sb.sessionToken);
  assert.equal(doc.status, 'pending-approval');
  assert.equal(doc.delivery.status, 'awaiting-approval');

  // The queue shows it to every member, with what each may do.
  const queue = await t.request({
    method: 'GET',
    url: `/approvals?platformId=${sb.platformId}&companyId=${sb.companyId}`,
    headers: { 'x-session-token': alice.sessionToken },
  });
  assert.equal(queue.statusCode, 200, queue.body);
  const items = (queue.json() as { items: Approval[]; nextCursor: string | null }).items;
  assert.equal(items.length, 1);
  const pending = items[0]!;
  assert.equal(pending.documentId, doc.id);
  assert.equal(pending.status, 'pending');
  assert.equal(pending.makerUserId, maker);
  assert.equal(pending['policyName'], 'Two signatures over 100 EUR');
  assert.equal(pending['journalTotal'], '125.50');
  assert.equal(pending.canApprove, true);
  assert.equal(pending.blockReason, null);
  const asMaker = await approvalOf(t, sb, doc.id, sb.sessionToken);
  assert.deepEqual([asMaker.canApprove, asMaker.blockReason], [false, 'maker_cannot_approve']);

  // First approval: still pending, nothing queued for the bank.
  const first = await decide(t, alice.sessionToken, pending.id, 'approve');
  assert.equal(first.statusCode, 200, first.body);
  assert.equal((first.json() as Approval).status, 'pending');
  assert.equal((await approvalOf(t, sb, doc.id, alice.sessionToken)).blockReason, 'already_decided');
  const waiting = await t.ctx.db.execute<{ n: string }>(
    sql`SELECT count(*)::text AS n FROM delivery_requests WHERE document_id = ${doc.id}`,
  );
  assert.equal(waiting.rows[0]?.n, '0');

  // Second approval, with Bob's TOTP code: approved, released for delivery.
  const second = await decide(t, bob.sessionToken, pending.id, 'approve', { code: currentCode(t, bobSecret) });
  assert.equal(second.statusCode, 200, second.body);
  const approved = second.json() as Approval;
  assert.equal(approved.status, 'approved');
  assert.deepEqual(
    approved.approvals.map((a) => a.userName),
    ['Alice', 'Bob'],
  );
  assert.ok(approved['decidedAt']);

  // The demo bank executes it and the line clears.
  const lines = await waitFor(
    'executed and cleared',
    async () =>
      (
        await t.request({
          method: 'GET',
          url: `/journal/documents/${doc.id}/payments?companyId=${sb.companyId}`,
          headers: { 'x-api-key': sb.apiKey },
        })
      ).json() as { status: string; payments: Array<{ recon: { state: string } }>; approval: Approval },
    (v) => v.status === 'executed' && v.payments.every((p) => p.recon.state === 'cleared'),
  );
  assert.equal(lines.approval.status, 'approved');

  // Events: to the outbox for webhooks, and the audit trail with each decision's actor, verified.
  const outbox = await t.ctx.db.execute<{ type: string }>(
    sql`SELECT type FROM outbox_events WHERE company_id = ${sb.companyId} ORDER BY created_at, id`,
  );
  assert.deepEqual(
    outbox.rows.map((r) => r.type),
    ['approval.requested', 'approval.approved', 'payment.sent', 'payment.executed'],
  );
  const audit = await t.ctx.db.execute<{
    type: string;
    actor_user_id: string | null;
    metadata: Record<string, unknown>;
  }>(
    sql`SELECT type, actor_user_id, metadata FROM activity_events
         WHERE company_id = ${sb.companyId} AND type LIKE 'approval%' ORDER BY seq`,
  );
  assert.deepEqual(
    audit.rows.map((r) => [r.type, r.actor_user_id]),
    [
      ['approval-policy.created', maker],
      ['approval.requested', maker],
      ['approval.decision', alice.id],
      ['approval.decision', bob.id],
      ['approval.approved', bob.id],
    ],
  );
  assert.equal(audit.rows[3]!.metadata['twoFactor'], true);
  const verdict = await verifyCompanyChain(t.ctx.db, { platformId: sb.platformId, companyId: sb.companyId });
  assert.equal(verdict.ok, true, JSON.stringify(verdict));
});
