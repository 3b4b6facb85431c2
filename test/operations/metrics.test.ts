/**
 * GET /metrics as operators scrape it: behind METRICS_TOKEN, in the Prometheus text format, with
 * values that move as the operations happen (a submit, its delivery to the demo bank, the bank's
 * files coming back, a failing webhook), labels by route pattern and code word only, and never a
 * tenant id or anything the customer typed. /ready reports the process's workers.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { manualClock } from '../../src/platform/clock.ts';
import { assertError, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { type Receiver, startReceiver, testCa } from '../webhooks/support.ts';

const TOKEN = 'metrics-token-0123456789abcdef';

let t: TestApp;
let receiver: Receiver;
before(async () => {
  receiver = await startReceiver();
  receiver.answer = () => ({ status: 500, body: 'receiver down' });
  t = await startTestApp({
    workers: true,
    metrics: true,
    env: {
      DEMO_BANK_DELAY_MS: '200',
      METRICS_TOKEN: TOKEN,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      EXTRA_CA_CERTS: testCa().caFile,
    },
  });
});
after(async () => {
  await t.close();
  await receiver.close();
});

async function scrape(): Promise<string> {
  const res = await t.request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(res.statusCode, 200, res.body);
  assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  return res.body;
}

/** The value of one series, matched by its exact label set (label order as prom-client writes it). */
function value(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .join(',');
  const prefix = wanted === '' ? `${name} ` : `${name}{${wanted}} `;
  const line = text.split('\n').find((l) => l.startsWith(prefix));
  return line === undefined ? undefined : Number(line.slice(prefix.length));
}

async function eventually(name: string, labels: Record<string, string>, atLeast: number): Promise<string> {
  for (let i = 0; i < 300; i++) {
    const text = await scrape();
    if ((value(text, name, labels) ?? 0) >= atLeast) return text;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`${name}${JSON.stringify(labels)} never reached ${atLeast}`);
}

describe('GET /metrics', () => {
  test('answers 401 with the error envelope without the bearer token, or with a wrong one', async () => {
    const none = await t.request({ method: 'GET', url: '/metrics' });
    assertError(none, 401, 'unauthorized');
    assert.equal(none.headers['www-authenticate'], 'Bearer realm="metrics"');
    const wrong = await t.request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}x` } });
    assertError(wrong, 401, 'unauthorized');
    const basic = await t.request({ method: 'GET', url: '/api/metrics', headers: { authorization: `Basic ${TOKEN}` } });
    assertError(basic, 401, 'unauthorized');
  });

  test('moves with a submit, its delivery, the bank files and a failing webhook; no label carries tenant data', async () => {
    const sandbox = await provisionAndLogin(t);
    const before = await scrape();
    assert.equal(
      value(before, 'payops_submits_total', { bank: 'demo', environment: 'test', outcome: 'converted' }),
      undefined,
    );
    assert.ok(value(before, 'nodejs_eventloop_lag_seconds') !== undefined, 'event-loop lag is reported');
    assert.equal(value(before, 'payops_db_pool_connections', { state: 'max' }), 5);

    const hook = await t.request({
      method: 'POST',
      url: '/webhooks',
      headers: { 'x-api-key': sandbox.apiKey },
      payload: { companyId: sandbox.companyId, url: receiver.url, eventTypes: ['payment.sent'] },
    });
    assert.equal(hook.statusCode, 201, hook.body);
    const endpointId = (hook.json() as { endpoint: { id: string } }).endpoint.id;

    const idempotencyKey = 'metrics-submit-1';
    const submit = await t.request({
      method: 'POST',
      url: '/journal/payments',
      headers: { 'x-api-key': sandbox.apiKey, 'idempotency-key': idempotencyKey },
      payload: sandbox.firstPayment.body,
    });
    assert.equal(submit.statusCode, 201, submit.body);
    const doc = submit.json() as { id: string; journalNo: string };

    // A bank key the customer typed is refused and counted under `other`, never as typed.
    const typedBank = `bank-${sandbox.companyId}`;
    const refused = await t.request({
      method: 'POST',
      url: '/journal/payments',
      headers: { 'x-api-key': sandbox.apiKey, 'idempotency-key': 'metrics-submit-2' },
      payload: { ...sandbox.firstPayment.body, bankKey: typedBank },
    });
    assertError(refused, 404, 'not_found');

    const afterSubmit = await scrape();
    assert.equal(
      value(afterSubmit, 'payops_submits_total', { bank: 'demo', environment: 'test', outcome: 'converted' }),
      1,
    );
    assert.equal(
      value(afterSubmit, 'payops_submits_total', { bank: 'other', environment: 'test', outcome: 'not_found' }),
      1,
    );
    assert.equal(
      value(afterSubmit, 'payops_http_requests_total', { method: 'POST', route: '/journal/payments', status: '201' }),
      1,
    );
    assert.equal(
      value(afterSubmit, 'payops_http_requests_total', { method: 'POST', route: '/webhooks', status: '201' }),
      1,
    );

    // The relay and the bank-delivery job hand the file to the demo bank.
    await eventually('payops_bank_delivery_attempts_total', { bank: 'demo', channel: 'demo', outcome: 'delivered' }, 1);
    // payment.sent goes to the endpoint, which answers 500: the attempt is counted, to be retried.
    await eventually('payops_webhook_attempts_total', { transport: 'https', outcome: 'retrying' }, 1);
    // The demo bank's pain.002 and camt.053 come back through ingest and reconcile the line.
    await eventually('payops_ingest_files_total', { kind: 'camt.053' }, 1);
    const settled = await eventually('payops_recon_lines', { state: 'cleared' }, 1);
    assert.equal(value(settled, 'payops_ingest_files_total', { kind: 'pain.002' }), 1);
    assert.equal(value(settled, 'payops_ingest_blocks_total', { kind: 'camt.053', outcome: 'ingested' }), 1);
    assert.equal(value(settled, 'payops_recon_oldest_pending_line_age_seconds'), 0);
    assert.equal(value(settled, 'payops_webhook_endpoints', { status: 'enabled' }), 1);
    assert.ok((value(settled, 'payops_worker_loop_cycles_total', { loop: 'delivery-relay' }) ?? 0) > 0);
    assert.ok(value(settled, 'payops_queue_depth', { queue: 'webhook-deliveries' }) !== undefined);
    assert.ok(value(settled, 'payops_queue_oldest_age_seconds', { queue: 'delivery-requests' }) !== undefined);

    // A read by id is labelled with its route pattern, not its URL.
    await t.request({
      method: 'GET',
      url: `/api/journal/documents/${doc.id}?companyId=${sandbox.companyId}`,
      headers: { 'x-api-key': sandbox.apiKey },
    });
    await t.request({ method: 'GET', url: `/no-such-route/${sandbox.companyId}` });
    const text = await scrape();
    assert.equal(
      value(text, 'payops_http_requests_total', { method: 'GET', route: '/journal/documents/:id', status: '200' }),
      1,
    );
    assert.equal(value(text, 'payops_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }), 1);

    for (const secretOrTenant of [
      sandbox.platformId,
      sandbox.companyId,
      sandbox.apiKey,
      sandbox.dashboardLogin.email,
      doc.id,
      doc.journalNo,
      endpointId,
      idempotencyKey,
      typedBank,
      receiver.url,
    ]) {
      assert.ok(!text.includes(secretOrTenant), `the metrics text carries ${secretOrTenant}`);
    }
    // Every label value is a code word, a route pattern, a status or the version: nothing else.
    for (const line of text.split('\n')) {
      if (line.startsWith('#') || !line.includes('{')) continue;
      for (const [, label, labelValue] of line.matchAll(/(\w+)="([^"]*)"/g)) {
        assert.match(labelValue ?? '', /^[A-Za-z0-9_.:/*+-]*$/, `label ${label} of ${line}`);
        assert.doesNotMatch(labelValue ?? '', /(plat|comp|doc|evt|wh|del|usr|ak)_[0-9a-z]{6,}/, line);
      }
    }
  });
});

describe('/ready with workers', () => {
  test('answers the workers running, 503 once a queue stalls, and 503 once they stop', async () => {
    const ready = await t.request({ method: 'GET', url: '/ready' });
    assert.equal(ready.statusCode, 200, ready.body);
    assert.deepEqual(ready.json(), { ready: true, workers: { running: true, stalled: [] } });

    const clock = manualClock(new Date());
    const w = await startTestApp({ workers: true, clock, env: { WORKER_STALL_SECONDS: '60' } });
    try {
      assert.equal((await w.request({ method: 'GET', url: '/ready' })).statusCode, 200);
      // Ten minutes pass on the workers' clock without pg-boss fetching a job: its workers stalled.
      clock.advance(600_000);
      const stalled = await w.request({ method: 'GET', url: '/ready' });
      assert.equal(stalled.statusCode, 503, stalled.body);
      const body = stalled.json() as {
        ready: boolean;
        error: string;
        workers: { running: boolean; stalled: string[] };
      };
      assert.equal(body.ready, false);
      assert.match(body.error, /^workers stalled: /);
      assert.ok(body.workers.stalled.includes('bank-delivery'), body.error);
      await w.jobQueue.stop();
      const stopped = await w.request({ method: 'GET', url: '/ready' });
      assert.equal(stopped.statusCode, 503);
      assert.deepEqual(stopped.json(), {
        ready: false,
        error: 'workers not running',
        workers: { running: false, stalled: [] },
      });
    } finally {
      await w.close();
    }
  });
});
