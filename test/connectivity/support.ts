import assert from 'node:assert/strict';
import pg from 'pg';
import { deliverDocument } from '../../src/app/delivery/deliver-document.ts';
import { nextIp, type provisionAndLogin, type TestApp } from '../harness.ts';

export type Sandbox = Awaited<ReturnType<typeof provisionAndLogin>>;

export type ConnectionBody = {
  id: string;
  bankKey: string;
  environment: string;
  status: string;
  channel: string | null;
  settings: Record<string, unknown> | null;
  readiness: {
    ready: boolean;
    missing: string[];
    activation?: { route: string; family: string; fields: Array<{ name: string }> };
    certificate?: { subject: string; expiry: string; serialNumber: string; renewsFrom: string } | null;
    bankCertificate?: { subject: string; expiry: string } | null;
    sandboxActivation?: Record<string, string>;
    lastTestPayment: null | {
      documentId: string;
      journalNo: string;
      outcome: string;
      status: string;
      deliveryStatus: string;
      delivery: Record<string, unknown> | null;
      lines: { cleared: number; rejected: number; pending: number };
    };
  };
};

export const session = (sb: Sandbox) => ({ 'x-session-token': sb.sessionToken });
export const scopeOf = (sb: Sandbox) => ({ platformId: sb.platformId, companyId: sb.companyId });

export async function createConnection(t: TestApp, sb: Sandbox, bankKey: string, environment = 'test') {
  const res = await t.request({
    method: 'POST',
    url: '/connections',
    headers: session(sb),
    payload: { ...scopeOf(sb), bankKey, environment },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json() as ConnectionBody;
}

export async function getConnection(t: TestApp, sb: Sandbox, id: string) {
  const res = await t.request({
    method: 'GET',
    url: `/connections/${id}?platformId=${sb.platformId}&companyId=${sb.companyId}`,
    headers: session(sb),
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as ConnectionBody;
}

export async function activate(t: TestApp, sb: Sandbox, connection: ConnectionBody, fields: Record<string, string>) {
  const route = connection.bankKey === 'op' ? 'activate-op' : 'activate-nordea';
  return t.request({
    method: 'POST',
    url: `/connections/${connection.id}/${route}`,
    headers: session(sb),
    payload: { ...scopeOf(sb), ...fields },
  });
}

/** The activation fields exactly as the sandbox readiness shows them (without the family tag). */
export function activationFields(connection: ConnectionBody): Record<string, string> {
  const { family: _family, ...fields } = connection.readiness.sandboxActivation ?? {};
  return fields as Record<string, string>;
}

/** Runs the bank-delivery job of a document now, as a worker would. */
export async function deliver(t: TestApp, sb: Sandbox, documentId: string) {
  await deliverDocument(t.ctx, { documentId, ...scopeOf(sb) }, { retryCount: 0, retryLimit: 3 });
}

export async function documentOf(t: TestApp, sb: Sandbox, id: string) {
  const res = await t.request({
    method: 'GET',
    url: `/journal/documents/${id}/payments?companyId=${sb.companyId}`,
    headers: { 'x-api-key': sb.apiKey },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as {
    status: string;
    payments: Array<{ endToEndId: string; recon: { state: string; evidence: Record<string, unknown> | null } }>;
  };
}

/** The company's audit events of some types, oldest first. */
export async function auditEvents(t: TestApp, companyId: string, types: string[]) {
  const db = new pg.Client({ connectionString: t.databaseUrl });
  await db.connect();
  try {
    const rows = await db.query<{ type: string; message: string; metadata: Record<string, unknown> }>(
      `SELECT type, message, metadata FROM activity_events WHERE company_id = $1 AND type = ANY($2) ORDER BY seq`,
      [companyId, types],
    );
    return rows.rows;
  } finally {
    await db.end();
  }
}

export async function sql<T extends pg.QueryResultRow>(t: TestApp, text: string, values: unknown[] = []) {
  const db = new pg.Client({ connectionString: t.databaseUrl });
  await db.connect();
  try {
    return (await db.query<T>(text, values)).rows;
  } finally {
    await db.end();
  }
}

/** A new session for the sandbox admin (after the test clock moved past the old one's expiry). */
export async function signInAgain(t: TestApp, sb: Sandbox): Promise<Sandbox> {
  const login = await t.request({
    method: 'POST',
    url: '/auth/login',
    payload: { email: sb.dashboardLogin.email, password: sb.dashboardLogin.password },
    remoteAddress: nextIp(),
  });
  assert.equal(login.statusCode, 200, login.body);
  return { ...sb, sessionToken: (login.json() as { sessionToken: string }).sessionToken };
}

/** A test-environment connection to a simulated bank, activated with what the simulator issued; answers its customer id. */
export async function activatedConnection(t: TestApp, sb: Sandbox, bankKey: 'op' | 'nordea-fi') {
  const created = await createConnection(t, sb, bankKey);
  const fields = activationFields(created);
  const res = await activate(t, sb, created, fields);
  assert.equal(res.statusCode, 200, res.body);
  return { connection: res.json() as ConnectionBody, customerId: fields['userId'] ?? fields['signerId']! };
}

/** Submits the sandbox's first payment to `bankKey` (test environment) under a new message id; answers the document id. */
export async function submitFirstPayment(t: TestApp, sb: Sandbox, bankKey: string, messageId: string): Promise<string> {
  const payment = structuredClone(sb.firstPayment.body.payment) as Record<string, unknown>;
  payment['messageId'] = messageId;
  const res = await t.request({
    method: 'POST',
    url: '/journal/payments',
    headers: { 'x-api-key': sb.apiKey, 'idempotency-key': messageId },
    payload: { ...sb.firstPayment.body, bankKey, payment },
  });
  assert.equal(res.statusCode, 201, res.body);
  return (res.json() as { id: string }).id;
}
