import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { firstPaymentRequest } from '../../src/app/sandbox/first-payment.ts';
import { insertPolicy } from '../../src/db/repositories/approvals.ts';
import { assertError, body, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';

/**
 * A submit may take its API key and its company's context from what this process read before
 * (docs/adr/0011-submit-hot-path.md). Other processes change both without this one knowing: here a
 * row is changed directly in PostgreSQL, as another process would, and the next request must behave
 * as if nothing had been remembered.
 */
type Sandbox = Awaited<ReturnType<typeof provisionAndLogin>>;
type SubmitBody = { companyId: string; bankKey: string; environment?: string; payment: Record<string, unknown> };
type Doc = { id: string; journalNo: string; status: string; xml: string };

let t: TestApp;
let n = 0;

function fresh(sb: Sandbox, over: Partial<SubmitBody> = {}): SubmitBody {
  n++;
  const { body: b } = firstPaymentRequest({
    baseUrl: '',
    apiKey: '',
    companyId: sb.companyId,
    bankKey: 'demo',
    today: new Date(),
  });
  return { ...b, payment: { ...b.payment, messageId: `RECENT-${process.pid}-${n}` }, ...over } as SubmitBody;
}

function submit(sb: Sandbox, b: unknown, headers: Record<string, string> = {}) {
  return t.request({
    method: 'POST',
    url: '/journal/payments',
    headers: { 'x-api-key': sb.apiKey, ...headers },
    payload: b as object,
  });
}

async function documents(sb: Sandbox): Promise<number> {
  const r = await t.ctx.db.execute<{ n: string }>(
    sql`SELECT count(*)::text AS n FROM journal_documents WHERE company_id = ${sb.companyId}`,
  );
  return Number(r.rows[0]?.n);
}

function setAmount(b: SubmitBody, amount: string): SubmitBody {
  const payment = b.payment as { payments: Array<{ transactions: Array<{ amount: string }> }> };
  payment.payments[0]!.transactions[0]!.amount = amount;
  return b;
}

/** Revokes the sandbox's key in the database only: this process's memory of it is untouched. */
async function revokeElsewhere(sb: Sandbox): Promise<void> {
  await t.ctx.db.execute(sql`UPDATE api_keys SET revoked_at = now() WHERE platform_id = ${sb.platformId}`);
}

before(async () => {
  t = await startTestApp();
});

after(async () => {
  await t.close();
});

describe('a key revoked by another process', () => {
  test('its next test submit is 401 and journals nothing', async () => {
    const sb = await provisionAndLogin(t);
    assert.equal((await submit(sb, fresh(sb))).statusCode, 201);
    const before = await documents(sb);
    await revokeElsewhere(sb);
    assertError(await submit(sb, fresh(sb)), 401, 'unauthorized');
    assert.equal(await documents(sb), before);
  });

  test('a replay of an accepted request is 401, not a replay', async () => {
    const sb = await provisionAndLogin(t);
    const original = fresh(sb);
    const first = await submit(sb, original, { 'idempotency-key': 'RECENT-REPLAY' });
    assert.equal(first.statusCode, 201, first.body);
    await revokeElsewhere(sb);
    const replay = await submit(sb, original, { 'idempotency-key': 'RECENT-REPLAY' });
    assertError(replay, 401, 'unauthorized');
    assert.equal(replay.headers['idempotency-replayed'], undefined);
  });

  // Answers that never reach the journaling statement: the key is looked up before they leave.
  for (const [name, change] of [
    ['an invalid payment is 401, not 422', (b: SubmitBody) => setAmount(b, '-1')],
    ['an unknown bank is 401, not 404', (b: SubmitBody) => ({ ...b, bankKey: 'no-such-bank' })],
    ['a body without companyId is 401, not 400', ({ companyId: _, ...rest }: SubmitBody) => rest],
  ] as const) {
    test(name, async () => {
      const sb = await provisionAndLogin(t);
      assert.equal((await submit(sb, fresh(sb))).statusCode, 201);
      await revokeElsewhere(sb);
      assertError(await submit(sb, change(fresh(sb))), 401, 'unauthorized');
    });
  }

  test('its next production submit is 401 and journals nothing', async () => {
    const sb = await provisionAndLogin(t);
    assert.equal((await submit(sb, fresh(sb))).statusCode, 201);
    const before = await documents(sb);
    await revokeElsewhere(sb);
    assertError(await submit(sb, fresh(sb, { environment: 'production' })), 401, 'unauthorized');
    assert.equal(await documents(sb), before);
  });
});

describe("a company's context changed by another process", () => {
  test('new bank settings apply to the next test submit', async () => {
    const sb = await provisionAndLogin(t);
    const withoutDate = () => {
      const b = fresh(sb);
      delete (b.payment as { payments: Array<Record<string, unknown>> }).payments[0]!.executionDate;
      return b;
    };
    const inDays = (days: number) =>
      new RegExp(`<ReqdExctnDt>(<Dt>)?${new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10)}`);
    // Remembered without an offset: a payment without a date is refused.
    assert.equal((await submit(sb, fresh(sb))).statusCode, 201);
    assertError(await submit(sb, withoutDate()), 422, 'invalid_payment');
    await t.ctx.db.execute(
      sql`UPDATE connections SET settings = ${JSON.stringify({ executionDateOffsetDays: 3 })}::jsonb
           WHERE company_id = ${sb.companyId} AND bank_key = 'demo' AND environment = 'test'`,
    );
    const res = await submit(sb, withoutDate());
    assert.equal(res.statusCode, 201, res.body);
    assert.match(body<Doc>(res).xml, inDays(3));
  });

  test('a new approval policy applies to the next test submit', async () => {
    const sb = await provisionAndLogin(t);
    assert.equal(body<Doc>(await submit(sb, fresh(sb))).status, 'converted');
    const now = new Date();
    await insertPolicy(t.ctx.db, {
      id: `apol_recent_${process.pid}`,
      platformId: sb.platformId,
      companyId: sb.companyId,
      name: 'all test payments',
      environment: 'test',
      minAmount: '0',
      groups: [],
      createdAt: now,
      updatedAt: now,
    });
    const res = await submit(sb, fresh(sb));
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(body<Doc>(res).status, 'pending-approval');
  });
});
