import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { relayQueuedDeliveries } from '../../src/app/delivery/relay.ts';
import { firstPaymentRequest } from '../../src/app/sandbox/first-payment.ts';
import { insertPolicy } from '../../src/db/repositories/approvals.ts';
import { setBilling } from '../../src/db/repositories/billing.ts';
import { assertError, body, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';

/** POST /journal/payments and POST /journal/documents/{id}/cancel through HTTP on real PostgreSQL. */
type Sandbox = Awaited<ReturnType<typeof provisionAndLogin>> & { firstBody: SubmitBody };
type SubmitBody = { companyId: string; bankKey: string; environment?: string; payment: Payment; [k: string]: unknown };
type Payment = {
  messageId?: string;
  payments: Array<{
    paymentId?: string;
    paymentType?: string;
    [k: string]: unknown;
    transactions: Array<Record<string, unknown> & { amount: string; endToEndId: string }>;
  }>;
} & Record<string, unknown>;
type Doc = {
  id: string;
  journalNo: string;
  status: string;
  xml: string;
  deliveryMode: string;
  delivery: { status: string } | null;
  messageId: string;
  transactionCount: number;
  totals: Array<{ currency: string; amount: string }>;
  paymentType: string;
  idempotencyKey: string;
  summary: string;
  environment: string;
  warnings?: unknown[];
};

let t: TestApp;
let s: Sandbox;
let n = 0;

async function sandbox(): Promise<Sandbox> {
  const sb = await provisionAndLogin(t);
  return { ...sb, firstBody: firstBodyFor(sb.companyId) };
}

/** The sandbox's own first payment (src/app/sandbox/first-payment.ts), under message id MSG-1. */
function firstBodyFor(companyId: string): SubmitBody {
  const { body } = firstPaymentRequest({ baseUrl: '', apiKey: '', companyId, bankKey: 'demo', today: new Date() });
  return { ...body, payment: { ...body.payment, messageId: 'MSG-1' } };
}

/** A fresh body (unique messageId) for the sandbox's company. */
function fresh(over: Partial<SubmitBody> = {}, sb: Sandbox = s): SubmitBody {
  n++;
  const b = structuredClone(sb.firstBody);
  b.payment.messageId = `MSG-${process.pid}-${n}`;
  return { ...b, ...over };
}

function submit(b: unknown, headers: Record<string, string> = {}, sb: Sandbox = s) {
  return t.request({
    method: 'POST',
    url: '/journal/payments',
    headers: { 'x-api-key': sb.apiKey, ...headers },
    payload: b as object,
  });
}

async function count(table: string, where: ReturnType<typeof sql>) {
  const r = await t.ctx.db.execute<{ n: string }>(
    sql`SELECT count(*)::text AS n FROM ${sql.raw(table)} WHERE ${where}`,
  );
  return Number(r.rows[0]?.n);
}

before(async () => {
  t = await startTestApp();
  s = await sandbox();
});
after(() => t.close());

describe('POST /journal/payments', () => {
  test('the sandbox firstPayment body is accepted as given', async () => {
    const provisioned = await t.request({
      method: 'POST',
      url: '/sandbox/provision',
      payload: {},
      remoteAddress: '10.77.0.1',
    });
    const fp = (
      provisioned.json() as { apiKey: string; firstPayment: { headers: Record<string, string>; body: unknown } }
    ).firstPayment;
    const res = await t.request({
      method: 'POST',
      url: '/journal/payments',
      headers: fp.headers,
      payload: fp.body as object,
    });
    assert.equal(res.statusCode, 201, res.body);
    const doc = body<Doc>(res);
    assert.equal(doc.journalNo, 'OUT-1');
    assert.equal(doc.delivery?.status, 'queued');
  });

  test('201 journals the document, its lines, its audit event and its delivery job in one go', async () => {
    const b = fresh();
    const res = await submit(b, { 'idempotency-key': `k-${n}` });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.headers['idempotency-replayed'], undefined);
    const doc = body<Doc>(res);
    assert.match(doc.journalNo, /^OUT-\d+$/);
    assert.match(doc.id, /^doc_/);
    assert.equal(doc.status, 'converted');
    assert.equal(doc.deliveryMode, 'host-to-host');
    assert.deepEqual(doc.delivery, { status: 'queued' });
    assert.equal(doc.messageId, b.payment.messageId);
    assert.equal(doc.transactionCount, 1);
    assert.deepEqual(doc.totals, [{ currency: 'EUR', amount: '125.50' }]);
    assert.equal(doc.paymentType, 'SEPA_CT');
    assert.equal(doc.idempotencyKey, `k-${n}`);
    assert.equal(doc.environment, 'test');
    assert.equal(doc.summary, '1 payment, EUR 125.50 to Example Supplier Oy');
    assert.match(doc.xml, /<CstmrCdtTrfInitn>/);
    assert.match(doc.xml, new RegExp(`<MsgId>${b.payment.messageId}</MsgId>`));

    const stored = await t.ctx.db.execute<Record<string, unknown>>(
      sql`SELECT payload_sealed, file_sealed, request_digest FROM journal_documents WHERE id = ${doc.id}`,
    );
    const row = stored.rows[0]!;
    assert.doesNotMatch(String(row.payload_sealed), /Example Supplier/, 'payload sealed at rest');
    assert.equal(JSON.parse(t.ctx.encryptor.decrypt(String(row.payload_sealed))).messageId, b.payment.messageId);
    assert.equal(t.ctx.encryptor.decrypt(String(row.file_sealed)), doc.xml);
    assert.match(String(row.request_digest), /^[0-9a-f]{64}$/);

    const lines = await t.ctx.db.execute<Record<string, unknown>>(
      sql`SELECT line_index, end_to_end_id, amount, amount_minor::text AS minor, currency, payee_name, payee_iban, state FROM payment_lines WHERE document_id = ${doc.id}`,
    );
    assert.deepEqual(lines.rows, [
      {
        line_index: 0,
        end_to_end_id: 'E2E-0001',
        amount: '125.50',
        minor: '12550',
        currency: 'EUR',
        payee_name: 'Example Supplier Oy',
        payee_iban: 'FI5542345670000081',
        state: 'pending',
      },
    ]);
    const events = await t.ctx.db.execute<{ type: string; metadata: { documentId: string } }>(
      sql`SELECT type, metadata FROM activity_events WHERE company_id = ${s.companyId} AND metadata->>'documentId' = ${doc.id}`,
    );
    assert.deepEqual(
      events.rows.map((e) => e.type),
      ['payment.submitted'],
    );
    // The queued row is the delivery request; the relay makes its one bank-delivery job, once.
    const deliveryJobs = async () =>
      (
        await t.ctx.db.execute<{ n: string }>(
          sql`SELECT count(*)::text AS n FROM pgboss.job WHERE name = 'bank-delivery' AND data->>'documentId' = ${doc.id}`,
        )
      ).rows[0]?.n;
    const queued = await t.ctx.db.execute<{ delivery_status: string; requests: string }>(
      sql`SELECT delivery_status, (SELECT count(*) FROM delivery_requests r WHERE r.document_id = d.id)::text AS requests
            FROM journal_documents d WHERE d.id = ${doc.id}`,
    );
    assert.deepEqual(queued.rows, [{ delivery_status: 'queued', requests: '1' }]);
    assert.equal(await deliveryJobs(), '0');
    assert.ok((await relayQueuedDeliveries(t.ctx)) >= 1);
    assert.equal(await deliveryJobs(), '1');
    await relayQueuedDeliveries(t.ctx);
    assert.equal(await deliveryJobs(), '1', 'a second relay pass adds no job');
    const job = await t.ctx.db.execute<{ data: unknown }>(
      sql`SELECT data FROM pgboss.job WHERE name = 'bank-delivery' AND data->>'documentId' = ${doc.id}`,
    );
    assert.deepEqual(job.rows[0]?.data, { documentId: doc.id, platformId: s.platformId, companyId: s.companyId });
  });

  test('journal numbers count up per company', async () => {
    const a = body<Doc>(await submit(fresh()));
    const b = body<Doc>(await submit(fresh()));
    assert.equal(Number(b.journalNo.slice(4)), Number(a.journalNo.slice(4)) + 1);
  });

  test('same key and body replays the original 201; same key with another body is 409 conflict', async () => {
    const b = fresh();
    const first = await submit(b, { 'idempotency-key': `replay-${n}` });
    assert.equal(first.statusCode, 201);
    const again = await submit(b, { 'idempotency-key': `replay-${n}` });
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers['idempotency-replayed'], 'true');
    assert.deepEqual(body(again), body(first));
    // The key in the body is the same key.
    const viaBody = await submit({ ...b, idempotencyKey: `replay-${n}` });
    assert.equal(viaBody.headers['idempotency-replayed'], 'true');
    const other = structuredClone(b);
    other.payment.payments[0]!.transactions[0]!.amount = '999.00';
    assertError(await submit(other, { 'idempotency-key': `replay-${n}` }), 409, 'conflict');
    assert.equal(await count('journal_documents', sql`idempotency_key = ${`replay-${n}`}`), 1);
  });

  test('payment.messageId is the fallback key; a host-to-host submit with neither is 400', async () => {
    const b = fresh();
    const first = body<Doc>(await submit(b));
    assert.equal(first.idempotencyKey, b.payment.messageId);
    const again = await submit(b);
    assert.equal(again.headers['idempotency-replayed'], 'true');
    // The same payment under a new key is the same payment: replayed, not journaled twice.
    const newKey = await submit(b, { 'idempotency-key': `other-${n}` });
    assert.equal(newKey.statusCode, 201);
    assert.equal(newKey.headers['idempotency-replayed'], 'true');
    assert.equal(body<Doc>(newKey).id, first.id);
    // Another payment reusing the messageId is refused.
    const reuse = structuredClone(b);
    reuse.payment.payments[0]!.transactions[0]!.amount = '1.00';
    assertError(await submit(reuse, { 'idempotency-key': `other2-${n}` }), 409, 'conflict');

    const none = fresh();
    delete none.payment.messageId;
    assertError(await submit(none), 400, 'idempotency_key_required');
  });

  test('a converted-only bank journals without a delivery job: delivery not-applicable', async () => {
    const b = fresh({ bankKey: 'handelsbanken-se' });
    const res = await submit(b);
    assert.equal(res.statusCode, 201, res.body);
    const doc = body<Doc>(res);
    assert.equal(doc.deliveryMode, 'converted-only');
    assert.deepEqual(doc.delivery, { status: 'not-applicable' });
    await relayQueuedDeliveries(t.ctx);
    const jobs = await t.ctx.db.execute<{ n: string }>(
      sql`SELECT count(*)::text AS n FROM pgboss.job WHERE name = 'bank-delivery' AND data->>'documentId' = ${doc.id}`,
    );
    assert.equal(jobs.rows[0]?.n, '0');
    // No key and no messageId is not a 400 here: the payment itself is invalid without messageId.
    const none = fresh({ bankKey: 'handelsbanken-se' });
    delete none.payment.messageId;
    const err = assertError(await submit(none), 422, 'invalid_payment');
    assert.ok(
      ((err.details?.issues ?? []) as Array<{ path: string }>).some((i) => i.path === 'messageId'),
      JSON.stringify(err),
    );
  });

  test('request errors: platformId refused, missing fields, unknown bank, 422 with every issue', async () => {
    assertError(await submit({ ...fresh(), platformId: s.platformId }), 400, 'bad_request');
    const { companyId: _c, ...noCompany } = fresh();
    assertError(await submit(noCompany), 400, 'validation_failed');
    assertError(await submit(fresh({ bankKey: 'no-such-bank' })), 404, 'not_found');
    const bad = fresh();
    const tx = bad.payment.payments[0]!.transactions[0]!;
    tx.amount = '12.345';
    (tx.creditor as { account: { iban: string } }).account.iban = 'FI0000000000000000';
    const err = assertError(await submit(bad), 422, 'invalid_payment');
    const codes = ((err.details?.issues ?? []) as Array<{ code: string }>).map((i) => i.code);
    assert.ok(codes.includes('amount_precision') && codes.includes('invalid_iban'), codes.join());
    assert.equal(await count('journal_documents', sql`message_id = ${bad.payment.messageId!}`), 0);
    assertError(await t.request({ method: 'POST', url: '/journal/payments', payload: fresh() }), 401, 'unauthorized');
  });

  test('company scope: unknown company 404, company of another platform 403', async () => {
    assertError(await submit(fresh({ companyId: 'comp_doesnotexist' })), 404, 'not_found');
    const other = await sandbox();
    assertError(await submit(fresh({ companyId: other.companyId })), 403, 'forbidden');
  });

  test('per-company bank settings apply to submit: charge bearer and execution-date offset', async () => {
    const sb = await sandbox();
    await t.ctx.db.execute(
      sql`UPDATE connections SET settings = ${JSON.stringify({ chargeBearer: 'SLEV', executionDateOffsetDays: 2 })}::jsonb WHERE company_id = ${sb.companyId} AND bank_key = 'demo'`,
    );
    const b = fresh({}, sb);
    delete (b.payment.payments[0] as Record<string, unknown>).executionDate;
    const res = await submit(b, {}, sb);
    assert.equal(res.statusCode, 201, res.body);
    const xml = body<Doc>(res).xml;
    assert.match(xml, /<ChrgBr>SLEV<\/ChrgBr>/);
    const expected = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
    assert.match(xml, new RegExp(`<ReqdExctnDt>(<Dt>)?${expected}`));
  });

  test('warnings are returned when raised and never change the status', async () => {
    const b = fresh();
    (b.payment.payments[0]!.transactions[0]!.remittance as { unstructured: string }).unstructured = 'Laskú ñ 1001';
    const res = await submit(b);
    assert.equal(res.statusCode, 201, res.body);
    const doc = body<Doc>(res);
    assert.ok(Array.isArray(doc.warnings) && doc.warnings.length > 0, res.body);
    const plain = body<Doc>(await submit(fresh()));
    assert.equal(plain.warnings, undefined);
  });
});

describe('approval policies', () => {
  test('a matching enabled policy puts the document in pending-approval with an approval and no job', async () => {
    const sb = await sandbox();
    const now = new Date();
    const base = { platformId: sb.platformId, companyId: sb.companyId, groups: [], createdAt: now, updatedAt: now };
    await insertPolicy(t.ctx.db, { ...base, id: 'apol_disabled', name: 'off', enabled: false, minAmount: '0' });
    await insertPolicy(t.ctx.db, {
      ...base,
      id: 'apol_prod',
      name: 'prod only',
      environment: 'production',
      minAmount: '0',
    });
    await insertPolicy(t.ctx.db, { ...base, id: 'apol_sek', name: 'sek', currency: 'SEK', minAmount: '0' });
    await insertPolicy(t.ctx.db, {
      ...base,
      id: 'apol_other_bank',
      name: 'b',
      bankKeys: ['nordea-fi'],
      minAmount: '0',
    });
    await insertPolicy(t.ctx.db, {
      ...base,
      id: 'apol_big',
      name: 'big',
      environment: 'any',
      currency: 'EUR',
      minAmount: '125.51',
    });

    const below = await submit(fresh({}, sb), {}, sb);
    assert.equal(body<Doc>(below).status, 'converted', 'EUR 125.50 is below 125.51 and no other policy matches');

    await insertPolicy(t.ctx.db, {
      ...base,
      id: 'apol_exact',
      name: 'exact',
      environment: 'test',
      currency: 'EUR',
      minAmount: '125.5',
      bankKeys: ['demo'],
    });
    const res = await submit(fresh({}, sb), {}, sb);
    assert.equal(res.statusCode, 201, res.body);
    const doc = body<Doc>(res);
    assert.equal(doc.status, 'pending-approval', 'EUR 125.50 reaches 125.5 exactly');
    assert.deepEqual(doc.delivery, { status: 'awaiting-approval' });
    const approvals = await t.ctx.db.execute<{ status: string; policy_id: string }>(
      sql`SELECT status, policy_id FROM approvals WHERE document_id = ${doc.id}`,
    );
    assert.deepEqual(approvals.rows, [{ status: 'pending', policy_id: 'apol_exact' }]);
    await relayQueuedDeliveries(t.ctx);
    const jobs = await t.ctx.db.execute<{ n: string }>(
      sql`SELECT count(*)::text AS n FROM pgboss.job WHERE name = 'bank-delivery' AND data->>'documentId' = ${doc.id}`,
    );
    assert.equal(jobs.rows[0]?.n, '0');
    const events = await t.ctx.db.execute<{ type: string }>(
      sql`SELECT type FROM activity_events WHERE metadata->>'documentId' = ${doc.id} ORDER BY seq`,
    );
    assert.deepEqual(
      events.rows.map((e) => e.type),
      ['payment.submitted', 'payment.pending-approval', 'approval.requested'],
    );
  });
});

describe('billing gates and rate limit (production only)', () => {
  test('402 trial_payments_exhausted after 10 production payments without a package; test submits pass', async () => {
    const sb = await sandbox();
    for (let i = 0; i < 10; i++) {
      const res = await submit(fresh({ environment: 'production' }, sb), {}, sb);
      assert.equal(res.statusCode, 201, res.body);
    }
    const err = assertError(
      await submit(fresh({ environment: 'production' }, sb), {}, sb),
      402,
      'trial_payments_exhausted',
    );
    assert.deepEqual(err.details, {
      productionPaymentsSent: 10,
      freeLimit: 10,
      packagesUrl: `${t.ctx.config.publicBaseUrl}/billing/packages`,
    });
    // environment defaults to production.
    const { environment: _e, ...defaulted } = fresh({}, sb);
    assertError(await submit(defaulted, {}, sb), 402, 'trial_payments_exhausted');
    assert.equal((await submit(fresh({ environment: 'test' }, sb), {}, sb)).statusCode, 201);
    const scope = { platformId: sb.platformId, companyId: sb.companyId };
    await setBilling(t.ctx.db, scope, { activePackage: true }, new Date());
    assert.equal((await submit(fresh({ environment: 'production' }, sb), {}, sb)).statusCode, 201);
    const billing = await t.ctx.db.execute<{ production_payments_sent: number }>(
      sql`SELECT production_payments_sent FROM company_billing WHERE company_id = ${sb.companyId}`,
    );
    assert.equal(billing.rows[0]?.production_payments_sent, 11);
  });

  test('402 billing_past_due from 30 days past due; 29 days still pass', async () => {
    const sb = await sandbox();
    const scope = { platformId: sb.platformId, companyId: sb.companyId };
    const day = 86_400_000;
    await setBilling(
      t.ctx.db,
      scope,
      { activePackage: true, pastDueSince: new Date(Date.now() - 29 * day) },
      new Date(),
    );
    assert.equal((await submit(fresh({ environment: 'production' }, sb), {}, sb)).statusCode, 201);
    const since = new Date(Date.now() - 30 * day - 1000);
    await setBilling(t.ctx.db, scope, { pastDueSince: since }, new Date());
    const err = assertError(await submit(fresh({ environment: 'production' }, sb), {}, sb), 402, 'billing_past_due');
    assert.deepEqual(err.details, { pastDueSince: since.toISOString(), graceDays: 30 });
    assert.equal((await submit(fresh({ environment: 'test' }, sb), {}, sb)).statusCode, 201);
  });

  test('production submits are limited to 120 a minute per company with Retry-After; test submits never', async () => {
    const sb = await sandbox();
    // Invalid production submits still count (the limit runs before the use case): cheap 422s.
    const invalid = () => {
      const b = fresh({ environment: 'production' }, sb);
      b.payment.payments[0]!.transactions[0]!.amount = 'x';
      return submit(b, {}, sb);
    };
    for (let i = 0; i < 120; i++) assert.equal((await invalid()).statusCode, 422);
    const limited = await invalid();
    assertError(limited, 429, 'rate_limited');
    assert.match(String(limited.headers['retry-after']), /^\d+$/);
    assert.ok(Number(limited.headers['retry-after']) >= 1 && Number(limited.headers['retry-after']) <= 60);
    assert.equal((await submit(fresh({ environment: 'test' }, sb), {}, sb)).statusCode, 201);
    // Another company of the platform has its own budget.
    assert.equal((await submit(fresh({ environment: 'production' }, s), {}, s)).statusCode !== 429, true);
  });
});

describe('POST /journal/documents/{id}/cancel', () => {
  const cancel = (id: string, companyId: string, sb: Sandbox = s) =>
    t.request({
      method: 'POST',
      url: `/journal/documents/${id}/cancel`,
      headers: { 'x-api-key': sb.apiKey },
      payload: { companyId },
    });

  test('cancels a converted document; its messageId is then used up (409 message_id_already_used)', async () => {
    const b = fresh();
    const doc = body<Doc>(await submit(b));
    const res = await cancel(doc.id, s.companyId);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(body<Doc>(res).status, 'cancelled');
    assert.deepEqual(body<Doc>(res).delivery, { status: 'cancelled' });
    const events = await t.ctx.db.execute<{ type: string }>(
      sql`SELECT type FROM activity_events WHERE metadata->>'documentId' = ${doc.id} ORDER BY seq`,
    );
    assert.deepEqual(
      events.rows.map((e) => e.type),
      ['payment.submitted', 'payment.cancelled'],
    );
    // A retried cancel answers the document unchanged.
    assert.equal(body<Doc>(await cancel(doc.id, s.companyId)).status, 'cancelled');

    for (const headers of [{}, { 'idempotency-key': `brand-new-${n}` }] as Array<Record<string, string>>) {
      const err = assertError(await submit(b, headers), 409, 'message_id_already_used');
      assert.deepEqual(err.details, {
        originalJournalNo: doc.journalNo,
        originalStatus: 'cancelled',
        remedy: 'new_message_id',
      });
    }
  });

  test('a pending-approval document can be cancelled and its approval closes', async () => {
    const sb = await sandbox();
    const now = new Date();
    await insertPolicy(t.ctx.db, {
      id: `apol_c_${n}`,
      platformId: sb.platformId,
      companyId: sb.companyId,
      name: 'all',
      minAmount: '0',
      groups: [],
      createdAt: now,
      updatedAt: now,
    });
    const doc = body<Doc>(await submit(fresh({}, sb), {}, sb));
    assert.equal(doc.status, 'pending-approval');
    const res = await cancel(doc.id, sb.companyId, sb);
    assert.equal(body<Doc>(res).status, 'cancelled');
    const approvals = await t.ctx.db.execute<{ status: string }>(
      sql`SELECT status FROM approvals WHERE document_id = ${doc.id}`,
    );
    assert.deepEqual(approvals.rows, [{ status: 'cancelled' }]);
  });

  test('409 once delivery started or the document moved on; 404 unknown; 403 other platform', async () => {
    const started = body<Doc>(await submit(fresh()));
    await t.ctx.db.execute(sql`UPDATE journal_documents SET delivery_status = 'in-progress' WHERE id = ${started.id}`);
    assertError(await cancel(started.id, s.companyId), 409, 'conflict');
    const sent = body<Doc>(await submit(fresh()));
    await t.ctx.db.execute(
      sql`UPDATE journal_documents SET status = 'sent', delivery_status = 'delivered' WHERE id = ${sent.id}`,
    );
    assertError(await cancel(sent.id, s.companyId), 409, 'conflict');
    const still = await t.ctx.db.execute<{ status: string }>(
      sql`SELECT status FROM journal_documents WHERE id = ${sent.id}`,
    );
    assert.equal(still.rows[0]?.status, 'sent');

    assertError(await cancel('doc_nope', s.companyId), 404, 'not_found');
    const other = await sandbox();
    const theirs = body<Doc>(await submit(fresh({}, other), {}, other));
    assertError(await cancel(theirs.id, other.companyId), 403, 'forbidden');
    assertError(await cancel(theirs.id, s.companyId), 404, 'not_found');
    // companyId also works as a query parameter.
    const q = body<Doc>(await submit(fresh()));
    const viaQuery = await t.request({
      method: 'POST',
      url: `/journal/documents/${q.id}/cancel?companyId=${s.companyId}`,
      headers: { 'x-api-key': s.apiKey },
    });
    assert.equal(viaQuery.statusCode, 200, viaQuery.body);
  });
});
