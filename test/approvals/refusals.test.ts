/**
 * Maker-checker through HTTP on real PostgreSQL: who may manage policies, which policy applies and
 * that its rules freeze at submit, every refusal code of the decision routes, rejection and expiry
 * (on a clock the test moves), and the approval events in the outbox and the webhook fan-out.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { expireApprovals } from '../../src/app/approvals/expire.ts';
import { dispatchOutbox } from '../../src/app/webhooks/dispatch.ts';
import { manualClock } from '../../src/platform/clock.ts';
import { assertError, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { bearer, registerClient, tokensFor } from '../support/oauth.ts';
import {
  type Approval,
  addUser,
  adminId,
  approvalOf,
  count,
  createPolicy,
  currentCode,
  decide,
  documentStatus,
  enrolTwoFactor,
  payment,
  type Sandbox,
  signIn,
  submit,
  submitted,
} from './support.ts';

const clock = manualClock(new Date());
let t: TestApp;

before(async () => {
  t = await startTestApp({ clock, env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
});
after(() => t.close());

function policies(sb: Sandbox, headers: Record<string, string>, method = 'GET', payload?: object) {
  return t.request({
    method: method as 'GET',
    url: `/approval-policies?platformId=${sb.platformId}&companyId=${sb.companyId}`,
    headers,
    ...(payload ? { payload: { ...payload } } : {}),
  });
}

/** The company's webhook events in the outbox, by name (this clock stands still, so their times tie). */
async function outboxTypes(sb: Sandbox): Promise<string[]> {
  const rows = await t.ctx.db.execute<{ type: string }>(
    sql`SELECT type FROM outbox_events WHERE company_id = ${sb.companyId} ORDER BY type`,
  );
  return rows.rows.map((r) => r.type);
}

describe('approval policies', () => {
  test('a company admin session manages them; an API key and a non-admin are refused; every change is audited', async () => {
    const sb = await provisionAndLogin(t);
    const alice = await addUser(t, sb, 'Alice', ['approver']);
    const viewer = await addUser(t, sb, 'Vera', ['viewer']);
    assertError(await policies(sb, { 'x-api-key': sb.apiKey }), 403, 'forbidden');
    assertError(await policies(sb, { 'x-api-key': sb.apiKey }, 'POST', { name: 'x' }), 403, 'forbidden');
    assertError(await policies(sb, { 'x-session-token': alice.sessionToken }, 'POST', { name: 'x' }), 403, 'forbidden');

    // Every problem at once, with its path; nothing is written.
    const bad = await policies(sb, { 'x-session-token': sb.sessionToken }, 'POST', {
      name: 'bad',
      orderedApproval: true,
      requiredApprovals: 3,
      groups: [{ name: 'g', userIds: [alice.id, viewer.id, 'usr_nobody'] }],
    });
    const error = assertError(bad, 400, 'bad_request');
    assert.deepEqual(
      (error.details!['issues'] as Array<{ path: string; code: string }>).map((i) => `${i.path}:${i.code}`).sort(),
      ['groups[0].userIds[1]:not_an_approver', 'groups[0].userIds[2]:unknown_user'],
    );
    assertError(
      await policies(sb, { 'x-session-token': sb.sessionToken }, 'POST', { name: 'x', requireOneFromEachGroup: true }),
      400,
      'bad_request',
    );
    assertError(
      await policies(sb, { 'x-session-token': sb.sessionToken }, 'POST', { name: 'x', bankKeys: ['no-such-bank'] }),
      400,
      'bad_request',
    );

    const created = await createPolicy(t, sb, { name: 'Big EUR', currency: 'eur', minAmount: '1000.00' });
    assert.equal(created['currency'], 'EUR');
    assert.equal(created['environment'], 'any');
    const changed = await t.request({
      method: 'PUT',
      url: `/approval-policies/${created.id}`,
      headers: { 'x-session-token': sb.sessionToken },
      payload: { requiredApprovals: 1, twoFactorRequired: true },
    });
    assert.equal(changed.statusCode, 200, changed.body);
    assert.equal((changed.json() as { minAmount: string }).minAmount, '1000.00', 'fields left out stay');
    assert.equal((changed.json() as { twoFactorRequired: boolean }).twoFactorRequired, true);
    const list = await policies(sb, { 'x-session-token': sb.sessionToken });
    assert.deepEqual(
      (list.json() as { items: Array<{ id: string }> }).items.map((p) => p.id),
      [created.id],
    );
    const removed = await t.request({
      method: 'DELETE',
      url: `/approval-policies/${created.id}`,
      headers: { 'x-session-token': sb.sessionToken },
    });
    assert.equal(removed.statusCode, 204, removed.body);
    assertError(
      await t.request({
        method: 'DELETE',
        url: `/approval-policies/${created.id}`,
        headers: { 'x-session-token': sb.sessionToken },
      }),
      404,
      'not_found',
    );
    const audit = await t.ctx.db.execute<{ type: string; actor_user_id: string }>(
      sql`SELECT type, actor_user_id FROM activity_events
           WHERE company_id = ${sb.companyId} AND type LIKE 'approval-policy.%' ORDER BY seq`,
    );
    const adminId = (
      await t.ctx.db.execute<{ id: string }>(sql`SELECT id FROM users WHERE company_id = ${sb.companyId}
      AND 'admin' = ANY(roles)`)
    ).rows[0]!.id;
    assert.deepEqual(
      audit.rows.map((r) => [r.type, r.actor_user_id]),
      [
        ['approval-policy.created', adminId],
        ['approval-policy.updated', adminId],
        ['approval-policy.deleted', adminId],
      ],
    );
  });

  test('the policy with the highest minAmount applies, and its rules freeze at submit', async () => {
    const sb = await provisionAndLogin(t);
    const alice = await addUser(t, sb, 'Alice', ['approver']);
    await createPolicy(t, sb, { name: 'small', minAmount: '10' });
    const big = await createPolicy(t, sb, { name: 'large', minAmount: '100.00', requiredApprovals: 2 });
    await createPolicy(t, sb, { name: 'huge', minAmount: '1000000' });
    const doc = await submitted(t, sb, payment(sb));
    const approval = await approvalOf(t, sb, doc.id);
    assert.equal(approval['policyName'], 'large');
    assert.equal(approval.requiredApprovals, 2);
    assert.equal(approval.makerUserId, null, 'an API key submit has no maker');

    // Editing the policy now changes nothing for the approval in flight.
    const put = await t.request({
      method: 'PUT',
      url: `/approval-policies/${big.id}`,
      headers: { 'x-session-token': sb.sessionToken },
      payload: { requiredApprovals: 1 },
    });
    assert.equal(put.statusCode, 200, put.body);
    const after1 = await decide(t, alice.sessionToken, approval.id, 'approve');
    assert.equal(after1.statusCode, 200, after1.body);
    assert.equal((after1.json() as Approval).status, 'pending', 'still two approvals, as frozen');
    assert.equal((await documentStatus(t, doc.id)).status, 'pending-approval');
  });
});

describe('decisions', () => {
  test('the maker, a second decision, a viewer, an API key and a decided approval are refused', async () => {
    const sb = await provisionAndLogin(t);
    const alice = await addUser(t, sb, 'Alice', ['approver']);
    const bob = await addUser(t, sb, 'Bob', ['approver']);
    const dave = await addUser(t, sb, 'Dave', ['admin']);
    const vera = await addUser(t, sb, 'Vera', ['viewer']);
    await createPolicy(t, sb, { name: 'two', minAmount: '1', requiredApprovals: 2 });
    const doc = await submitted(t, sb, payment(sb), sb.sessionToken);
    const { id } = await approvalOf(t, sb, doc.id);

    assertError(await decide(t, sb.sessionToken, id, 'approve'), 403, 'maker_cannot_approve');
    assertError(await decide(t, sb.sessionToken, id, 'reject', { reason: 'mine' }), 403, 'maker_cannot_approve');
    assertError(await decide(t, vera.sessionToken, id, 'approve'), 403, 'forbidden');
    const byKey = await t.request({
      method: 'POST',
      url: `/approvals/${id}/approve`,
      headers: { 'x-api-key': sb.apiKey },
      payload: {},
    });
    assertError(byKey, 403, 'forbidden');
    assertError(await decide(t, alice.sessionToken, 'appr_unknown', 'approve'), 404, 'not_found');
    const asVera = await approvalOf(t, sb, doc.id, vera.sessionToken);
    assert.deepEqual([asVera.canApprove, asVera.blockReason], [false, 'not_an_approver']);

    assert.equal((await decide(t, alice.sessionToken, id, 'approve')).statusCode, 200);
    assertError(await decide(t, alice.sessionToken, id, 'approve'), 409, 'already_decided');
    assertError(
      await decide(t, alice.sessionToken, id, 'reject', { reason: 'changed my mind' }),
      409,
      'already_decided',
    );
    const done = await decide(t, dave.sessionToken, id, 'approve');
    assert.equal((done.json() as Approval).status, 'approved', done.body);
    assert.deepEqual(await documentStatus(t, doc.id), { status: 'converted', delivery_status: 'queued' });
    assert.equal(
      await count(t, sql`SELECT count(*)::text AS n FROM delivery_requests WHERE document_id = ${doc.id}`),
      1,
      'the delivery request was written with the decision',
    );
    const late = assertError(await decide(t, bob.sessionToken, id, 'approve'), 409, 'approval_not_pending');
    assert.equal(late.details?.['status'], 'approved');
    assertError(await decide(t, bob.sessionToken, id, 'reject', { reason: 'late' }), 409, 'approval_not_pending');
    assert.deepEqual(await outboxTypes(sb), ['approval.approved', 'approval.requested']);
  });

  test('twoFactorRequired: no enrolment, no code, a wrong or a reused code are refused; a valid code approves', async () => {
    const sb = await provisionAndLogin(t);
    const alice = await addUser(t, sb, 'Alice', ['approver']);
    const bob = await addUser(t, sb, 'Bob', ['approver']);
    const secret = await enrolTwoFactor(t, bob);
    await createPolicy(t, sb, { name: '2fa', minAmount: '1', twoFactorRequired: true });
    const first = await submitted(t, sb, payment(sb));
    const second = await submitted(t, sb, payment(sb));
    const a1 = await approvalOf(t, sb, first.id, alice.sessionToken);
    assert.deepEqual([a1.canApprove, a1.blockReason, a1['twoFactorRequired']], [false, 'two_factor_required', true]);
    const b1 = await approvalOf(t, sb, first.id, bob.sessionToken);
    assert.deepEqual([b1.canApprove, b1.blockReason], [true, null]);

    assertError(await decide(t, alice.sessionToken, a1.id, 'approve', { code: '123456' }), 403, 'two_factor_required');
    assertError(await decide(t, bob.sessionToken, a1.id, 'approve'), 403, 'two_factor_required');
    const code = currentCode(t, secret);
    const wrong = code === '000000' ? '111111' : '000000';
    assertError(await decide(t, bob.sessionToken, a1.id, 'approve', { code: wrong }), 403, 'two_factor_required');
    const ok = await decide(t, bob.sessionToken, a1.id, 'approve', { code });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal((ok.json() as Approval).status, 'approved');
    // The same code again (same time step) is refused on the next approval.
    const b2 = await approvalOf(t, sb, second.id);
    assertError(await decide(t, bob.sessionToken, b2.id, 'approve', { code }), 403, 'two_factor_required');
    // A refused decision wrote nothing: the approval is untouched.
    assert.deepEqual((await approvalOf(t, sb, second.id)).approvals, []);
    clock.advance(30_000);
    const next = await decide(t, bob.sessionToken, b2.id, 'approve', { code: currentCode(t, secret) });
    assert.equal(next.statusCode, 200, next.body);
  });

  test('ordered groups go in their order; one from each group needs every group', async () => {
    const sb = await provisionAndLogin(t);
    const alice = await addUser(t, sb, 'Alice', ['approver']);
    const bob = await addUser(t, sb, 'Bob', ['approver']);
    const carl = await addUser(t, sb, 'Carl', ['approver']);
    const outsider = await addUser(t, sb, 'Olga', ['approver']);
    const ordered = await createPolicy(t, sb, {
      name: 'ordered',
      minAmount: '1',
      requiredApprovals: 2,
      orderedApproval: true,
      groups: [
        { name: 'treasury', userIds: [alice.id] },
        { name: 'cfo', userIds: [bob.id] },
      ],
    });
    const doc = await submitted(t, sb, payment(sb));
    const { id } = await approvalOf(t, sb, doc.id);
    assertError(await decide(t, outsider.sessionToken, id, 'approve'), 403, 'forbidden');
    const early = await approvalOf(t, sb, doc.id, bob.sessionToken);
    assert.deepEqual([early.canApprove, early.blockReason], [false, 'out_of_order']);
    assertError(await decide(t, bob.sessionToken, id, 'approve'), 409, 'out_of_order');
    assert.equal((await decide(t, alice.sessionToken, id, 'approve')).statusCode, 200);
    const mid = await approvalOf(t, sb, doc.id);
    assert.deepEqual(mid.groups, [
      { name: 'treasury', satisfied: true },
      { name: 'cfo', satisfied: false },
    ]);
    const done = await decide(t, bob.sessionToken, id, 'approve');
    assert.equal((done.json() as Approval).status, 'approved', done.body);

    // One from each group (unordered): two from the first group are not enough.
    await t.request({
      method: 'DELETE',
      url: `/approval-policies/${ordered.id}`,
      headers: { 'x-session-token': sb.sessionToken },
    });
    await createPolicy(t, sb, {
      name: 'each group',
      minAmount: '1',
      requiredApprovals: 2,
      requireOneFromEachGroup: true,
      groups: [
        { name: 'treasury', userIds: [alice.id, carl.id] },
        { name: 'cfo', userIds: [bob.id] },
      ],
    });
    const doc2 = await submitted(t, sb, payment(sb));
    const a2 = await approvalOf(t, sb, doc2.id);
    assert.equal((await decide(t, alice.sessionToken, a2.id, 'approve')).statusCode, 200);
    const two = await decide(t, carl.sessionToken, a2.id, 'approve');
    assert.equal((two.json() as Approval).status, 'pending', 'two approvals, but not one from the cfo group');
    const three = await decide(t, bob.sessionToken, a2.id, 'approve');
    assert.equal((three.json() as Approval).status, 'approved', three.body);
  });

  test('a rejection needs a reason, cancels the document, and uses up its messageId', async () => {
    const sb = await provisionAndLogin(t);
    const alice = await addUser(t, sb, 'Alice', ['approver']);
    await createPolicy(t, sb, { name: 'one', minAmount: '1' });
    const body = payment(sb);
    const doc = await submitted(t, sb, body);
    const { id } = await approvalOf(t, sb, doc.id);
    assertError(await decide(t, alice.sessionToken, id, 'reject', { reason: '   ' }), 400, 'bad_request');
    assertError(await decide(t, alice.sessionToken, id, 'reject', { reason: 'x'.repeat(501) }), 400, 'bad_request');
    assertError(await decide(t, alice.sessionToken, id, 'reject', {}), 400, 'validation_failed');
    const res = await decide(t, alice.sessionToken, id, 'reject', { reason: 'wrong supplier account' });
    assert.equal(res.statusCode, 200, res.body);
    const rejected = res.json() as Approval;
    assert.equal(rejected.status, 'rejected');
    assert.deepEqual(
      rejected.rejections.map((r) => [r.userName, r.reason]),
      [['Alice', 'wrong supplier account']],
    );
    assert.deepEqual(await documentStatus(t, doc.id), { status: 'cancelled', delivery_status: 'cancelled' });
    assertError(await submit(t, sb, body), 409, 'message_id_already_used');
    assert.deepEqual(await outboxTypes(sb), ['approval.rejected', 'approval.requested']);
  });
});

describe('expiry', () => {
  test('after 14 days a pending approval expires and its document is cancelled with the reason', async () => {
    const sb = await provisionAndLogin(t);
    const alice = await addUser(t, sb, 'Alice', ['approver']);
    await createPolicy(t, sb, { name: 'one', minAmount: '1' });
    const body = payment(sb);
    const doc = await submitted(t, sb, body);
    const { id, expiresAt } = await approvalOf(t, sb, doc.id);
    assert.equal(new Date(String(expiresAt)).getTime() - clock.now().getTime(), 14 * 24 * 3600_000);

    clock.advance(14 * 24 * 3600_000 - 60_000);
    await expireApprovals(t.ctx);
    assert.equal((await approvalOf(t, sb, doc.id)).status, 'pending', 'not before its time');
    clock.advance(60_000);
    // Past its time, a decision is refused even before the sweep ran (signed in again: sessions expire too).
    const aliceNow = await signIn(t, alice);
    assertError(await decide(t, aliceNow, id, 'approve'), 409, 'approval_not_pending');
    assert.ok((await expireApprovals(t.ctx)) >= 1);
    const expired = await approvalOf(t, sb, doc.id);
    assert.equal(expired.status, 'expired');
    assert.equal(expired.closedReason, 'no decision within 14 days');
    assert.deepEqual(await documentStatus(t, doc.id), { status: 'cancelled', delivery_status: 'cancelled' });
    assertError(await decide(t, aliceNow, id, 'approve'), 409, 'approval_not_pending');
    assertError(await submit(t, sb, body), 409, 'message_id_already_used');
    assert.deepEqual(await outboxTypes(sb), ['approval.expired', 'approval.requested']);
    const audit = await t.ctx.db.execute<{ type: string }>(
      sql`SELECT type FROM activity_events WHERE metadata->>'documentId' = ${doc.id} ORDER BY seq`,
    );
    assert.deepEqual(
      audit.rows.map((r) => r.type),
      ['payment.submitted', 'payment.pending-approval', 'approval.requested', 'approval.expired', 'payment.cancelled'],
    );
  });
});

test('approval events reach the webhook endpoints that subscribe to them', async () => {
  const sb = await provisionAndLogin(t);
  const alice = await addUser(t, sb, 'Alice', ['approver']);
  const endpoint = await t.request({
    method: 'POST',
    url: '/webhooks',
    headers: { 'x-api-key': sb.apiKey },
    payload: {
      companyId: sb.companyId,
      url: 'https://127.0.0.1:9/hooks',
      eventTypes: ['approval.requested', 'approval.approved', 'approval.rejected', 'approval.expired'],
    },
  });
  assert.equal(endpoint.statusCode, 201, endpoint.body);
  await createPolicy(t, sb, { name: 'one', minAmount: '1' });
  const doc = await submitted(t, sb, payment(sb));
  const { id } = await approvalOf(t, sb, doc.id);
  clock.advance(1000);
  assert.equal((await decide(t, alice.sessionToken, id, 'approve')).statusCode, 200);
  await dispatchOutbox(t.ctx);
  const deliveries = await t.ctx.db.execute<{ event_type: string }>(
    sql`SELECT d.event_type FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
         WHERE e.company_id = ${sb.companyId} ORDER BY d.sequence`,
  );
  assert.deepEqual(
    deliveries.rows.map((r) => r.event_type),
    ['approval.requested', 'approval.approved'],
  );
});

test('the maker behind an OAuth token is its grant user; an approver session cannot submit; tokens never decide', async () => {
  const sb = await provisionAndLogin(t);
  const alice = await addUser(t, sb, 'Alice', ['approver']);
  await createPolicy(t, sb, { name: 'one', minAmount: '1' });
  assertError(await submit(t, sb, payment(sb), alice.sessionToken), 403, 'forbidden');

  const redirectUri = 'http://127.0.0.1:5599/callback';
  const { clientId } = await registerClient(t, sb, [redirectUri]);
  const tokens = await tokensFor(t, sb, { clientId, redirectUri }, 'payments:submit payments:read');
  const res = await t.request({
    method: 'POST',
    url: '/journal/payments',
    headers: bearer(tokens.access_token),
    payload: payment(sb),
  });
  assert.equal(res.statusCode, 201, res.body);
  const doc = res.json() as { id: string };
  const admin = await adminId(t, sb);
  const read = await t.request({
    method: 'GET',
    url: `/journal/documents/${doc.id}/payments?companyId=${sb.companyId}`,
    headers: bearer(tokens.access_token),
  });
  assert.equal(read.statusCode, 200, read.body);
  const approval = (read.json() as { approval: Approval }).approval;
  assert.equal(approval.makerUserId, admin);
  assert.deepEqual([approval.canApprove, approval.blockReason], [false, 'session_required']);
  const byToken = await t.request({
    method: 'POST',
    url: `/approvals/${approval.id}/approve`,
    headers: bearer(tokens.access_token),
    payload: {},
  });
  assertError(byToken, 403, 'forbidden');
  assertError(await decide(t, sb.sessionToken, approval.id, 'approve'), 403, 'maker_cannot_approve');
  assert.equal((await decide(t, alice.sessionToken, approval.id, 'approve')).statusCode, 200);
});

test('the queue: pending by default, other statuses on request, keyset pages oldest first, members only', async () => {
  const sb = await provisionAndLogin(t);
  const alice = await addUser(t, sb, 'Alice', ['approver']);
  const other = await provisionAndLogin(t);
  await createPolicy(t, sb, { name: 'one', minAmount: '1' });
  const docs = [];
  for (let i = 0; i < 3; i++) {
    docs.push(await submitted(t, sb, payment(sb)));
    clock.advance(1000);
  }
  const queue = (query: string, token = alice.sessionToken) =>
    t.request({
      method: 'GET',
      url: `/approvals?platformId=${sb.platformId}&companyId=${sb.companyId}${query}`,
      headers: { 'x-session-token': token },
    });
  const first = await approvalOf(t, sb, docs[0]!.id);
  assert.equal((await decide(t, alice.sessionToken, first.id, 'approve')).statusCode, 200);

  const page1 = (await queue('&limit=1')).json() as { items: Approval[]; nextCursor: string | null };
  assert.deepEqual(
    page1.items.map((a) => a.documentId),
    [docs[1]!.id],
  );
  assert.ok(page1.nextCursor);
  const page2 = (await queue(`&limit=1&cursor=${page1.nextCursor}`)).json() as {
    items: Approval[];
    nextCursor: string | null;
  };
  assert.deepEqual(
    page2.items.map((a) => a.documentId),
    [docs[2]!.id],
  );
  assert.equal(page2.nextCursor, null);
  const approved = (await queue('&status=approved')).json() as { items: Approval[] };
  assert.deepEqual(
    approved.items.map((a) => a.id),
    [first.id],
  );
  assertError(await queue('&status=maybe'), 400, 'bad_request');
  assertError(await queue('&cursor=!!'), 400, 'bad_request');
  // Another company's admin, an API key: refused.
  assertError(await queue('', other.sessionToken), 403, 'forbidden');
  const byKey = await t.request({
    method: 'GET',
    url: `/approvals?platformId=${sb.platformId}&companyId=${sb.companyId}`,
    headers: { 'x-api-key': sb.apiKey },
  });
  assertError(byKey, 403, 'forbidden');
  assertError(
    await t.request({
      method: 'GET',
      url: `/approvals/${first.id}`,
      headers: { 'x-session-token': other.sessionToken },
    }),
    404,
    'not_found',
  );
  const one = await t.request({
    method: 'GET',
    url: `/approvals/${first.id}`,
    headers: { 'x-session-token': alice.sessionToken },
  });
  assert.equal(one.statusCode, 200, one.body);
  assert.equal((one.json() as Approval).status, 'approved');
});
