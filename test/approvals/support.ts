/**
 * Helpers of the maker-checker tests: users signed in through the real routes, policies and
 * decisions through HTTP, payments submitted with an API key or an admin's session, and TOTP
 * enrolment through the identity use cases.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { authenticateSession } from '../../src/app/identity/authenticate.ts';
import { totpCode } from '../../src/domain/identity/totp.ts';
import { addCompanyUser, nextIp, type provisionAndLogin, type TestApp } from '../harness.ts';

export type Sandbox = Awaited<ReturnType<typeof provisionAndLogin>>;
export type User = { id: string; name: string; email: string; sessionToken: string };

const PASSWORD = 'correct horse battery staple 42';

/** A user of the sandbox's company with these roles, created by its admin and signed in. */
export async function addUser(t: TestApp, sb: Sandbox, name: string, roles: string[]): Promise<User> {
  const email = `${name.toLowerCase()}.${randomBytes(4).toString('hex')}@example.com`;
  const id = await addCompanyUser(t, sb, { email, name, roles, password: PASSWORD });
  const user = { id, name, email, sessionToken: '' };
  return { ...user, sessionToken: await signIn(t, user) };
}

/** A new session of the user (password sign-in). */
export async function signIn(t: TestApp, user: Pick<User, 'email'>): Promise<string> {
  const login = await t.request({
    method: 'POST',
    url: '/auth/login',
    payload: { email: user.email, password: PASSWORD },
    remoteAddress: nextIp(),
  });
  assert.equal(login.statusCode, 200, login.body);
  return (login.json() as { sessionToken: string }).sessionToken;
}

/** The sandbox admin's user id. */
export async function adminId(t: TestApp, sb: Sandbox): Promise<string> {
  const principal = await authenticateSession(t.ctx, sb.sessionToken);
  assert.ok(principal);
  return principal.user.id;
}

/**
 * Enrols TOTP for a signed-in user through the identity routes (POST /2fa/setup, /2fa/enable) and
 * answers the secret. The enabling code is the previous step's (RFC 6238 accepts one step either
 * side), so the current step's code is still unused when the test approves with it.
 */
export async function enrolTwoFactor(t: TestApp, user: User): Promise<string> {
  const headers = { 'x-session-token': user.sessionToken };
  const setup = await t.request({ method: 'POST', url: '/2fa/setup', headers, payload: {} });
  assert.equal(setup.statusCode, 200, setup.body);
  const { secret } = setup.json() as { secret: string };
  const earlier = new Date(t.ctx.clock.now().getTime() - 30_000);
  const enable = await t.request({
    method: 'POST',
    url: '/2fa/enable',
    headers,
    payload: { code: totpCode(secret, earlier) },
  });
  assert.equal(enable.statusCode, 200, enable.body);
  return secret;
}

export function currentCode(t: TestApp, secret: string): string {
  return totpCode(secret, t.ctx.clock.now());
}

let n = 0;
/** A new payment of the sandbox (its firstPayment with a fresh messageId); `amount` replaces 125.50. */
export function payment(sb: Sandbox, over: { amount?: string; remittance?: string } = {}) {
  n++;
  const body = structuredClone(sb.firstPayment.body) as {
    payment: { messageId: string; payments: Array<{ transactions: Array<Record<string, unknown>> }> };
  } & Record<string, unknown>;
  body.payment.messageId = `APPR-${process.pid}-${n}`;
  for (const group of body.payment.payments) {
    for (const [i, tx] of group.transactions.entries()) {
      tx['endToEndId'] = `E2E-${process.pid}-${n}-${i}`;
      if (over.amount !== undefined) tx['amount'] = over.amount;
      if (over.remittance !== undefined) tx['remittance'] = { unstructured: over.remittance };
    }
  }
  return body;
}

export type Submitted = { id: string; journalNo: string; status: string; delivery: { status: string } };

/** Submits with the API key (no maker) or, with `asSession`, with a company admin's session (the maker). */
export async function submit(t: TestApp, sb: Sandbox, body: object, asSession?: string) {
  return t.request({
    method: 'POST',
    url: '/journal/payments',
    headers: asSession ? { 'x-session-token': asSession } : { 'x-api-key': sb.apiKey },
    payload: body,
  });
}

export async function submitted(t: TestApp, sb: Sandbox, body: object, asSession?: string): Promise<Submitted> {
  const res = await submit(t, sb, body, asSession);
  assert.equal(res.statusCode, 201, res.body);
  return res.json() as Submitted;
}

export async function createPolicy(t: TestApp, sb: Sandbox, policy: Record<string, unknown>) {
  const res = await t.request({
    method: 'POST',
    url: '/approval-policies',
    headers: { 'x-session-token': sb.sessionToken },
    payload: { platformId: sb.platformId, companyId: sb.companyId, ...policy },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json() as { id: string } & Record<string, unknown>;
}

export type Approval = {
  id: string;
  status: string;
  documentId: string;
  approvals: Array<{ userId: string; userName: string; at: string }>;
  rejections: Array<{ userId: string; userName: string; at: string; reason: string }>;
  groups: Array<{ name: string; satisfied: boolean }>;
  canApprove: boolean;
  blockReason: string | null;
  requiredApprovals: number;
  makerUserId: string | null;
  closedReason: string | null;
} & Record<string, unknown>;

/** The document's approval, read by the document's per-payment view with the API key. */
export async function approvalOf(t: TestApp, sb: Sandbox, documentId: string, token?: string): Promise<Approval> {
  const res = await t.request({
    method: 'GET',
    url: `/journal/documents/${documentId}/payments?companyId=${sb.companyId}`,
    headers: token ? { 'x-session-token': token } : { 'x-api-key': sb.apiKey },
  });
  assert.equal(res.statusCode, 200, res.body);
  const approval = (res.json() as { approval: Approval | null }).approval;
  assert.ok(approval, `${documentId} has an approval`);
  return approval;
}

export function decide(
  t: TestApp,
  token: string,
  approvalId: string,
  decision: 'approve' | 'reject',
  body: object = {},
) {
  return t.request({
    method: 'POST',
    url: `/approvals/${approvalId}/${decision}`,
    headers: { 'x-session-token': token },
    payload: body,
  });
}

export async function documentStatus(t: TestApp, documentId: string) {
  const rows = await t.ctx.db.execute<{ status: string; delivery_status: string | null }>(
    sql`SELECT status, delivery_status FROM journal_documents WHERE id = ${documentId}`,
  );
  return rows.rows[0]!;
}

export async function count(t: TestApp, query: ReturnType<typeof sql>): Promise<number> {
  const rows = await t.ctx.db.execute<{ n: string }>(query);
  return Number(rows.rows[0]?.n);
}
