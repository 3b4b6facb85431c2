import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';

/** The sandbox's firstPayment body is a complete, valid canonical payment for the demo bank. */
let t: TestApp;
let apiKey: string;
let payment: Record<string, unknown>;
const xml = { 'content-type': 'application/json' };

before(async () => {
  t = await startTestApp({ workers: true });
  const sandbox = await provisionAndLogin(t);
  apiKey = sandbox.apiKey;
  payment = sandbox.firstPayment.body.payment;
});
after(() => t.close());

const auth = () => ({ 'x-api-key': apiKey, ...xml });

describe('discovery', () => {
  test('profiles and payment types answer their arrays under items and their own name', async () => {
    const profiles = await t.request({ method: 'GET', url: '/profiles', headers: auth() });
    assert.equal(profiles.statusCode, 200);
    const body = profiles.json() as { items: Array<{ key: string }>; profiles: unknown[] };
    assert.deepEqual(body.items, body.profiles);
    assert.ok(body.items.length >= 16);
    assert.ok(body.items.some((p) => p.key === 'demo'));
    const types = (await t.request({ method: 'GET', url: '/payment-types', headers: auth() })).json() as {
      items: unknown[];
      paymentTypes: unknown[];
    };
    assert.ok(types.items.length >= 20);
    assert.deepEqual(types.items, types.paymentTypes);
  });

  test('bank payment types and status; unknown bank is 404', async () => {
    const res = await t.request({ method: 'GET', url: '/banks/demo/payment-types', headers: auth() });
    assert.equal(res.statusCode, 200);
    assert.equal((res.json() as { bankKey: string }).bankKey, 'demo');
    const status = await t.request({ method: 'GET', url: '/banks/demo/status' });
    assert.deepEqual(
      { ...(status.json() as object) },
      { ...(status.json() as object), bankKey: 'demo', deliveryMode: 'host-to-host', hostToHost: true },
    );
    const missing = await t.request({ method: 'GET', url: '/banks/nope/status' });
    assert.equal(missing.statusCode, 404);
    assert.equal((missing.json() as { error: { code: string } }).error.code, 'not_found');
  });

  test('discovery needs a credential', async () => {
    const res = await t.request({ method: 'GET', url: '/profiles' });
    assert.equal(res.statusCode, 401);
  });
});

describe('conversion', () => {
  test('validate answers 200 with every issue, convert writes XML with CtrlSum', async () => {
    const valid = await t.request({ method: 'POST', url: '/validate/demo', headers: auth(), payload: payment });
    assert.equal(valid.statusCode, 200);
    assert.equal((valid.json() as { valid: boolean }).valid, true);

    const converted = await t.request({ method: 'POST', url: '/convert/demo', headers: auth(), payload: payment });
    assert.equal(converted.statusCode, 200);
    assert.match(String(converted.headers['content-type']), /application\/xml/);
    assert.match(converted.body, /<CtrlSum>125\.50<\/CtrlSum>/);
    assert.match(converted.body, /<NbOfTxs>1<\/NbOfTxs>/);
  });

  test('an invalid payment gives 422 invalid_payment with all issues at once', async () => {
    const bad = structuredClone(payment) as { payments: Array<{ transactions: Array<Record<string, unknown>> }> };
    const tx = bad.payments[0]!.transactions[0]!;
    tx.amount = '12.345';
    (tx.creditor as { account: { iban: string } }).account.iban = 'FI0000000000000000';
    const res = await t.request({ method: 'POST', url: '/convert/demo', headers: auth(), payload: bad });
    assert.equal(res.statusCode, 422);
    const body = res.json() as { error: { code: string; details: { issues: Array<{ code: string; path: string }> } } };
    assert.equal(body.error.code, 'invalid_payment');
    const codes = body.error.details.issues.map((i) => `${i.code}@${i.path}`);
    assert.ok(codes.includes('amount_precision@payments[0].transactions[0].amount'), codes.join());
    assert.ok(codes.includes('invalid_iban@payments[0].transactions[0].creditor.account.iban'), codes.join());
  });

  test('batchBooking: written where the profile offers the choice, else 422 with the bank-level issue', async () => {
    const asked = structuredClone(payment) as { payments: Array<Record<string, unknown>> };
    asked.payments[0]!.batchBooking = false;
    const profiles = (await t.request({ method: 'GET', url: '/profiles', headers: auth() })).json() as {
      items: Array<{ key: string; batchBooking: { choice: boolean; default: boolean | null } }>;
    };
    const choice = new Map(profiles.items.map((p) => [p.key, p.batchBooking]));
    assert.deepEqual(choice.get('demo'), { choice: true, default: true });
    assert.deepEqual(choice.get('nordea-fi'), { choice: false, default: null });

    const demo = await t.request({ method: 'POST', url: '/convert/demo', headers: auth(), payload: asked });
    assert.equal(demo.statusCode, 200, demo.body);
    assert.deepEqual(
      [...demo.body.matchAll(/<BtchBookg>([^<]*)</g)].map((m) => m[1]),
      ['false'],
    );

    const nordea = await t.request({ method: 'POST', url: '/convert/nordea-fi', headers: auth(), payload: asked });
    assert.equal(nordea.statusCode, 422);
    const body = nordea.json() as {
      error: {
        code: string;
        details: { issues: Array<{ code: string; path: string; level: string; severity: string }> };
      };
    };
    assert.equal(body.error.code, 'invalid_payment');
    assert.deepEqual(
      body.error.details.issues
        .filter((i) => i.code === 'batch_booking_not_allowed')
        .map((i) => [i.path, i.level, i.severity]),
      [['payments[0].batchBooking', 'bank', 'error']],
    );
  });

  test('malformed JSON 400, unknown bank 404, unknown painVersion 400', async () => {
    const malformed = await t.request({ method: 'POST', url: '/convert/demo', headers: auth(), payload: '{"a":' });
    assert.equal((malformed.json() as { error: { code: string } }).error.code, 'invalid_json');
    const unknown = await t.request({ method: 'POST', url: '/convert/nope', headers: auth(), payload: payment });
    assert.equal(unknown.statusCode, 404);
    const version = await t.request({
      method: 'POST',
      url: '/convert/demo?painVersion=pain.001.001.99',
      headers: auth(),
      payload: payment,
    });
    assert.equal(version.statusCode, 400);
  });

  test('convert-async: 202, then the worker writes the XML; another platform cannot see the job', async () => {
    const accepted = await t.request({ method: 'POST', url: '/convert-async/demo', headers: auth(), payload: payment });
    assert.equal(accepted.statusCode, 202, accepted.body);
    const { jobId, status } = accepted.json() as { jobId: string; status: string };
    assert.equal(status, 'pending');
    assert.match(jobId, /^job_/);

    let done: { statusCode: number; body: string } | undefined;
    for (let i = 0; i < 100 && !done; i++) {
      const res = await t.request({ method: 'GET', url: `/convert-jobs/${jobId}`, headers: auth() });
      if (res.statusCode === 200) done = res;
      else await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(done, 'the job finished');
    assert.match(done.body, /<CtrlSum>125\.50<\/CtrlSum>/);

    const other = await provisionAndLogin(t);
    const hidden = await t.request({
      method: 'GET',
      url: `/convert-jobs/${jobId}`,
      headers: { 'x-api-key': other.apiKey },
    });
    assert.equal(hidden.statusCode, 404);
  });

  test('convert-async refuses validate=true', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/convert-async/demo?validate=true',
      headers: auth(),
      payload: payment,
    });
    assert.equal(res.statusCode, 400);
  });
});
