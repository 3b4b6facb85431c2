/**
 * The overview's "approvals for me" is an exact COUNT in SQL (countApprovableBy): it must agree with
 * what GET /approvals says item by item (`canApprove`, the domain's rules), for every kind of rule.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { countApprovalsForMe } from '../../src/app/approvals/for-me.ts';
import { listQueue } from '../../src/app/approvals/queue.ts';
import { authenticateSession } from '../../src/app/identity/authenticate.ts';
import type { SessionPrincipal } from '../../src/app/identity/principal.ts';
import { provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import {
  addUser,
  adminId,
  createPolicy,
  enrolTwoFactor,
  payment,
  type Sandbox,
  submitted,
  type User,
} from './support.ts';

let t: TestApp;
let sb: Sandbox;
let users: User[];
let admin: string;

before(async () => {
  t = await startTestApp();
  sb = await provisionAndLogin(t);
  admin = await adminId(t, sb);
  users = [
    await addUser(t, sb, 'Anna', ['approver']),
    await addUser(t, sb, 'Bert', ['approver']),
    await addUser(t, sb, 'Cara', ['approver']),
    await addUser(t, sb, 'Vic', ['viewer']),
  ];
  await enrolTwoFactor(t, users[2]!);
  await createPolicy(t, sb, { name: 'Everything', minAmount: '0', requiredApprovals: 2 });
});
after(() => t.close());

/** A small deterministic generator (mulberry32), so a failure replays. */
function rng(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let r = Math.imul(a ^ (a >>> 15), 1 | a);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}

async function principalOf(token: string): Promise<SessionPrincipal> {
  const p = await authenticateSession(t.ctx, token);
  assert.ok(p);
  return p;
}

test('the count equals the queue items the user can approve, over generated rules and decisions', async () => {
  const ids = [admin, ...users.map((u) => u.id)];
  const docs = [];
  for (let i = 0; i < 40; i++) docs.push(await submitted(t, sb, payment(sb)));
  const random = rng(27);
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  const subset = (list: readonly string[]) => list.filter(() => random() < 0.5);
  for (const doc of docs) {
    const groups =
      random() < 0.3
        ? []
        : Array.from({ length: 1 + Math.floor(random() * 3) }, (_, g) => ({ name: `G${g}`, userIds: subset(ids) }));
    const ordered = groups.length > 0 && random() < 0.5;
    const rules = {
      requiredApprovals: 1 + Math.floor(random() * 3),
      groups,
      requireOneFromEachGroup: random() < 0.5,
      orderedApproval: ordered,
      twoFactorRequired: random() < 0.3,
    };
    const deciders = subset(ids).slice(0, 2);
    const decisions = deciders.map((userId) => ({
      userId,
      userName: 'x',
      decision: random() < 0.9 ? 'approve' : 'reject',
      at: '2026-11-20T10:00:00.000Z',
      ...(ordered ? { group: Math.floor(random() * groups.length) } : {}),
    }));
    const maker = random() < 0.3 ? pick(ids) : null;
    const status = random() < 0.1 ? 'approved' : 'pending';
    await t.ctx.db.execute(sql`
      UPDATE approvals SET rules = ${JSON.stringify(rules)}::jsonb, decisions = ${JSON.stringify(decisions)}::jsonb,
             maker_user_id = ${maker}, status = ${status}
       WHERE document_id = ${doc.id}`);
  }
  const scope = { platformId: sb.platformId, companyId: sb.companyId };
  let somebodyCan = 0;
  for (const token of [sb.sessionToken, ...users.map((u) => u.sessionToken)]) {
    const principal = await principalOf(token);
    const queue = await listQueue(t.ctx, principal, { ...scope, status: 'pending', limit: 200 });
    const expected = queue.items.filter((a) => a.canApprove).length;
    const counted = await countApprovalsForMe(t.ctx, principal, scope);
    assert.equal(counted.forMe, expected, `approvable by ${principal.user.name}`);
    assert.equal(counted.pending, queue.items.length);
    somebodyCan += expected;
  }
  // The generated cases are not all trivially zero (nor all everything).
  assert.ok(somebodyCan > 5, `only ${somebodyCan} approvable in all`);
  const viewer = await countApprovalsForMe(t.ctx, await principalOf(users[3]!.sessionToken), scope);
  assert.equal(viewer.forMe, 0);
});

test("the overview says the exact count, beyond the ten it names, and another company's approvals are not counted", async () => {
  await t.ctx.db.execute(sql`
    UPDATE approvals SET rules = ${JSON.stringify({ requiredApprovals: 1, groups: [], requireOneFromEachGroup: false, orderedApproval: false, twoFactorRequired: false })}::jsonb,
           decisions = '[]'::jsonb, maker_user_id = NULL, status = 'pending'
     WHERE company_id = ${sb.companyId}`);
  const other = await provisionAndLogin(t);
  const { signIn, get } = await import('../dashboard/support.ts');
  const browser = await signIn(t, users[0]!.email, 'correct horse battery staple 42');
  const page = await get(t, browser, '/dashboard');
  assert.equal(page.statusCode, 200);
  assert.match(
    page.body,
    /<p class="count">40 payments wait for your approval \(40 pending in all\); the oldest 10:<\/p>/,
  );
  assert.equal((page.body.match(/<li><a href="\/dashboard\/journal\/doc_/g) ?? []).length, 10);
  const otherBrowser = await signIn(t, other.dashboardLogin.email, other.dashboardLogin.password);
  const otherPage = await get(t, otherBrowser, '/dashboard');
  assert.match(otherPage.body, /<p>Nothing waits for your approval\.<\/p>/);
});
