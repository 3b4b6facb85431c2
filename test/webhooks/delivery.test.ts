import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, beforeEach, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { emitEvent } from '../../src/app/events/outbox.ts';
import { runWebhookCycle, sendDueDeliveries } from '../../src/app/webhooks/send.ts';
import { createWebhookTransports, type WebhookTransports } from '../../src/app/webhooks/transports.ts';
import { backoffMs } from '../../src/domain/webhooks/index.ts';
import { manualClock } from '../../src/platform/clock.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { body, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { eventually, type Receiver, startReceiver, testCa } from './support.ts';

/** A receiver's own check: every v1 entry of X-Signature, HMAC-SHA256 of `<t>.<raw body>`. */
function matches(raw: string, header: string, secret: string): boolean {
  const parts = header.split(',');
  const t = parts.find((p) => p.startsWith('t='))?.slice(2);
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${t}.${raw}`).digest('hex');
  return parts.filter((p) => p.startsWith('v1=')).some((p) => p.slice(3) === expected);
}

type Delivery = {
  id: string;
  eventId: string;
  eventType: string;
  sequence: number;
  attempt: number;
  status: string;
  responseStatus: number | null;
  error: string | null;
  nextAttemptAt: string | null;
};

describe('webhook delivery (manual clock, real HTTPS receiver with a test CA)', () => {
  const clock = manualClock(new Date('2026-06-01T10:00:00Z'));
  let t: TestApp;
  let receiver: Receiver;
  let transports: WebhookTransports;
  let sb: Awaited<ReturnType<typeof provisionAndLogin>>;
  const logLines: string[] = [];
  const key = () => ({ 'x-api-key': sb.apiKey });
  const cycle = () => runWebhookCycle(t.ctx, transports);
  const drain = async () => {
    while (await cycle()) {}
  };

  before(async () => {
    const ca = testCa();
    receiver = await startReceiver();
    t = await startTestApp({
      clock,
      env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', EXTRA_CA_CERTS: ca.caFile },
      logger: createLogger('warn', { write: (line: string) => void logLines.push(line) }),
    });
    transports = createWebhookTransports(t.ctx, { random: () => 0.5 });
  });
  after(async () => {
    await transports.close();
    await receiver.close();
    await t.close();
  });
  beforeEach(async () => {
    sb = await provisionAndLogin(t);
    await drain();
    receiver.received.length = 0;
    receiver.answer = () => ({ status: 200, body: 'ok' });
  });

  const register = async (payload: Record<string, unknown> = {}) => {
    const res = await t.request({
      method: 'POST',
      url: '/webhooks',
      headers: key(),
      payload: { companyId: sb.companyId, url: receiver.url, ...payload },
    });
    assert.equal(res.statusCode, 201, res.body);
    return body<{ endpoint: { id: string }; secret: string }>(res);
  };
  const emit = (type: string, data: Record<string, unknown> = {}) =>
    emitEvent(t.ctx, t.ctx.db, {
      type,
      platformId: sb.platformId,
      companyId: sb.companyId,
      data: { bankKey: 'demo', totals: [{ currency: 'EUR', amount: '1500.00' }], ...data },
    });
  const deliveries = async (id: string) =>
    body<{ items: Delivery[] }>(
      await t.request({ method: 'GET', url: `/webhooks/${id}/deliveries?limit=1000`, headers: key() }),
    ).items;
  const endpoint = async (id: string) =>
    body<{ status: string; consecutiveFailures: number }>(
      await t.request({ method: 'GET', url: `/webhooks/${id}`, headers: key() }),
    );

  test('an outbox event arrives signed with every header; the delivery records success', async () => {
    const { endpoint: ep, secret } = await register();
    const eventId = await emit('payment.sent', { journalNo: 'OUT-1' });
    await drain();
    assert.equal(receiver.received.length, 1);
    const got = receiver.received[0]!;
    assert.equal(got.method, 'POST');
    assert.equal(got.headers['content-type'], 'application/json');
    assert.equal(got.headers['x-event-id'], eventId);
    assert.equal(got.headers['x-event-type'], 'payment.sent');
    assert.match(got.headers['x-delivery-id']!, /^del_/);
    assert.equal(got.headers['x-delivery-attempt'], '1');
    assert.equal(got.headers['x-delivery-sequence'], '1');
    assert.match(got.headers['x-signature']!, /^t=\d+,v1=[0-9a-f]{64}$/);
    assert.equal(got.headers['x-signature']!.split(',')[0], `t=${Math.floor(clock.now().getTime() / 1000)}`);
    assert.ok(matches(got.body, got.headers['x-signature']!, secret));
    assert.ok(!matches(got.body, got.headers['x-signature']!, `${secret}x`));
    const envelope = JSON.parse(got.body) as Record<string, unknown>;
    assert.deepEqual(Object.keys(envelope).sort(), [
      'apiVersion',
      'companyId',
      'createdAt',
      'data',
      'id',
      'platformId',
      'type',
    ]);
    assert.equal(envelope.id, eventId);
    assert.equal(envelope.companyId, sb.companyId);
    const [d] = await deliveries(ep.id);
    assert.equal(d!.status, 'succeeded');
    assert.equal(d!.responseStatus, 200);
    assert.equal(d!.attempt, 1);
    assert.equal(d!.nextAttemptAt, null);
    assert.equal(d!.id, got.headers['x-delivery-id']);
  });

  test('eventTypes and filterPredicate (bankKey, minAmount in exact minor units) pick the events', async () => {
    await register({ eventTypes: ['payment.executed'], filterPredicate: { bankKey: 'demo', minAmount: 1000 } });
    await emit('payment.sent', { totals: [{ currency: 'EUR', amount: '5000.00' }] });
    await emit('payment.executed', { totals: [{ currency: 'EUR', amount: '999.99' }] });
    await emit('payment.executed', { bankKey: 'other', totals: [{ currency: 'EUR', amount: '5000.00' }] });
    const exact = await emit('payment.executed', { totals: [{ currency: 'EUR', amount: '1000.00' }] });
    const yen = await emit('payment.executed', { totals: [{ currency: 'JPY', amount: '1000' }] });
    await drain();
    assert.deepEqual(
      receiver.received.map((r) => r.headers['x-event-id']),
      [exact, yen],
    );
    assert.deepEqual(
      receiver.received.map((r) => r.headers['x-delivery-sequence']),
      ['1', '2'],
    );
  });

  test('500 answers are retried with backoff 30 s doubling to 1 h (jitter pinned), failed after 8 attempts', async () => {
    const { endpoint: ep } = await register();
    receiver.answer = () => ({ status: 500, body: 'down' });
    await emit('payment.sent');
    const start = clock.now().getTime();
    await drain();
    assert.equal(receiver.received.length, 1);
    const waits: number[] = [];
    for (let attempt = 2; attempt <= 8; attempt++) {
      const [d] = await deliveries(ep.id);
      assert.equal(d!.status, 'pending');
      assert.equal(d!.attempt, attempt - 1);
      assert.equal(d!.responseStatus, 500);
      const due = Date.parse(d!.nextAttemptAt!);
      waits.push(due - clock.now().getTime());
      clock.set(new Date(due - 1000));
      await drain();
      assert.equal(receiver.received.length, attempt - 1, 'not before it is due');
      clock.set(new Date(due));
      await drain();
      assert.equal(receiver.received.length, attempt);
      assert.equal(receiver.received.at(-1)!.headers['x-delivery-attempt'], String(attempt));
    }
    assert.deepEqual(waits, [30_000, 60_000, 120_000, 240_000, 480_000, 960_000, 1_920_000]);
    const [d] = await deliveries(ep.id);
    assert.equal(d!.status, 'failed');
    assert.equal(d!.attempt, 8);
    assert.equal(d!.nextAttemptAt, null);
    clock.advance(10 * 3_600_000);
    await drain();
    assert.equal(receiver.received.length, 8, 'no ninth attempt');
    assert.equal((await endpoint(ep.id)).consecutiveFailures, 1);
    assert.ok(clock.now().getTime() > start);
  });

  test('backoff jitter stays within +-20% and the delay never exceeds 1 h + 20%', () => {
    for (let attempt = 1; attempt <= 8; attempt++) {
      const base = Math.min(30_000 * 2 ** (attempt - 1), 3_600_000);
      assert.equal(
        backoffMs(attempt, () => 0),
        Math.round(base * 0.8),
      );
      assert.equal(
        backoffMs(attempt, () => 0.5),
        base,
      );
      assert.ok(backoffMs(attempt, () => 0.999999) <= Math.round(base * 1.2));
    }
    assert.equal(
      backoffMs(12, () => 0.5),
      3_600_000,
    );
  });

  test('X-Delivery-Sequence counts per endpoint; a redelivery keeps its event sequence; none reused', async () => {
    const a = await register();
    const b = await register({ eventTypes: ['payment.rejected'] });
    await emit('payment.sent');
    await emit('payment.rejected');
    await emit('payment.executed');
    await drain();
    assert.equal(receiver.received.length, 4);
    const listA = await deliveries(a.endpoint.id);
    const listB = await deliveries(b.endpoint.id);
    assert.deepEqual(listA.map((d) => d.sequence).sort(), [1, 2, 3]);
    assert.deepEqual(
      listB.map((d) => d.sequence),
      [1],
    );
    const first = listA.find((d) => d.sequence === 1)!;
    const replay = await t.request({
      method: 'POST',
      url: `/webhooks/${a.endpoint.id}/deliveries/${first.id}/redeliver`,
      headers: key(),
    });
    assert.equal(replay.statusCode, 202);
    await drain();
    const last = receiver.received.at(-1)!;
    assert.equal(last.headers['x-delivery-sequence'], '1');
    assert.equal(last.headers['x-event-id'], first.eventId);
    assert.equal(last.headers['x-delivery-id'], body<{ deliveryId: string }>(replay).deliveryId);
    await emit('payment.sent');
    await drain();
    assert.equal(receiver.received.at(-1)!.headers['x-delivery-sequence'], '4');
  });

  test('rotation: both secrets sign during the overlap, only the new one after it', async () => {
    const { endpoint: ep, secret: oldSecret } = await register();
    const rotated = await t.request({
      method: 'POST',
      url: `/webhooks/${ep.id}/rotate-secret`,
      headers: key(),
      payload: { overlapHours: 2 },
    });
    assert.equal(rotated.statusCode, 200);
    const { secret: newSecret, overlapUntil } = body<{ secret: string; overlapUntil: string }>(rotated);
    assert.equal(Date.parse(overlapUntil), clock.now().getTime() + 2 * 3_600_000);
    await emit('payment.sent');
    await drain();
    const during = receiver.received.at(-1)!;
    assert.equal(during.headers['x-signature']!.split(',').filter((p) => p.startsWith('v1=')).length, 2);
    assert.ok(matches(during.body, during.headers['x-signature']!, oldSecret), 'old secret still verifies');
    assert.ok(matches(during.body, during.headers['x-signature']!, newSecret), 'new secret verifies');
    clock.advance(2 * 3_600_000 + 1000);
    await emit('payment.sent');
    await drain();
    const afterOverlap = receiver.received.at(-1)!;
    assert.equal(afterOverlap.headers['x-signature']!.split(',').filter((p) => p.startsWith('v1=')).length, 1);
    assert.ok(matches(afterOverlap.body, afterOverlap.headers['x-signature']!, newSecret));
    assert.ok(!matches(afterOverlap.body, afterOverlap.headers['x-signature']!, oldSecret));
    const audit = await t.ctx.db.$client.query(
      `SELECT 1 FROM activity_events WHERE company_id = $1 AND type = 'webhook.secret-rotated'`,
      [sb.companyId],
    );
    assert.equal(audit.rowCount, 1);
  });

  test('5 consecutive failed events auto-disable (audit only), events are kept, re-enable clears it', async () => {
    const { endpoint: ep } = await register();
    receiver.answer = () => ({ status: 503 });
    const failAll = async () => {
      for (let i = 0; i < 10; i++) {
        await drain();
        clock.advance(3_600_000 * 1.3);
      }
    };
    // A success in between resets the count: 4 failures, 1 success, then 5 failures.
    for (let i = 0; i < 4; i++) await emit('payment.sent');
    await failAll();
    assert.equal((await endpoint(ep.id)).consecutiveFailures, 4);
    receiver.answer = () => ({ status: 204 });
    await emit('payment.sent');
    await drain();
    assert.equal((await endpoint(ep.id)).consecutiveFailures, 0);
    receiver.answer = () => ({ status: 503 });
    for (let i = 0; i < 5; i++) await emit('payment.sent');
    await failAll();
    const state = await endpoint(ep.id);
    assert.equal(state.status, 'auto-disabled');
    assert.equal(state.consecutiveFailures, 5);
    const audit = await t.ctx.db.$client.query(
      `SELECT metadata FROM activity_events WHERE company_id = $1 AND type = 'webhook.auto-disabled'`,
      [sb.companyId],
    );
    assert.equal(audit.rowCount, 1);
    const outbox = await t.ctx.db.$client.query(`SELECT 1 FROM outbox_events WHERE type = 'webhook.auto-disabled'`);
    assert.equal(outbox.rowCount, 0, 'never delivered as a webhook');

    // While auto-disabled, new events are kept as pending deliveries and not sent.
    const sentBefore = receiver.received.length;
    const heldEvent = await emit('payment.executed');
    await drain();
    assert.equal(receiver.received.length, sentBefore);
    const held = (await deliveries(ep.id)).find((d) => d.eventId === heldEvent)!;
    assert.equal(held.status, 'pending');

    receiver.answer = () => ({ status: 200 });
    const re = await t.request({ method: 'POST', url: `/webhooks/${ep.id}/re-enable`, headers: key() });
    assert.equal(re.statusCode, 200);
    assert.equal(body<{ status: string }>(re).status, 'enabled');
    assert.equal(body<{ consecutiveFailures: number }>(re).consecutiveFailures, 0);
    await drain();
    assert.equal(receiver.received.at(-1)!.headers['x-event-id'], heldEvent);

    // The failed events can be replayed: each latest failed delivery since the timestamp, once.
    const since = new Date(0).toISOString();
    const replay = await t.request({
      method: 'POST',
      url: `/webhooks/${ep.id}/redeliver-failed?since=${since}`,
      headers: key(),
    });
    assert.equal(replay.statusCode, 202);
    assert.deepEqual(body(replay), { count: 9 });
    await drain();
    const again = await t.request({
      method: 'POST',
      url: `/webhooks/${ep.id}/redeliver-failed?since=${since}`,
      headers: key(),
    });
    assert.deepEqual(body(again), { count: 0 }, 'replayed events succeeded, nothing left to replay');
  });

  test('a disabled endpoint keeps its deliveries and sends them when enabled again', async () => {
    const { endpoint: ep } = await register();
    await t.request({ method: 'POST', url: `/webhooks/${ep.id}/disable`, headers: key() });
    const eventId = await emit('payment.sent');
    await drain();
    assert.equal(receiver.received.length, 0);
    assert.equal((await deliveries(ep.id))[0]!.status, 'pending');
    await t.request({ method: 'POST', url: `/webhooks/${ep.id}/enable`, headers: key() });
    await drain();
    assert.equal(receiver.received.length, 1);
    assert.equal(receiver.received[0]!.headers['x-event-id'], eventId);
  });

  test('POST /webhooks/{id}/test goes through the real signing and delivery path to that endpoint only', async () => {
    const { endpoint: ep, secret } = await register();
    await register({ url: `${receiver.url}?other=1` });
    const res = await t.request({ method: 'POST', url: `/webhooks/${ep.id}/test`, headers: key() });
    assert.equal(res.statusCode, 202);
    const { deliveryId, eventId } = body<{ deliveryId: string; eventId: string }>(res);
    await drain();
    assert.equal(receiver.received.length, 1);
    const got = receiver.received[0]!;
    assert.equal(got.headers['x-event-type'], 'webhook.test');
    assert.equal(got.headers['x-event-id'], eventId);
    assert.equal(got.headers['x-delivery-id'], deliveryId);
    assert.ok(matches(got.body, got.headers['x-signature']!, secret));
  });

  test('while the receiver answers, the sender holds no transaction and no row lock; its lease keeps other senders off', async () => {
    const { endpoint: ep } = await register();
    await emit('payment.sent', { documentId: 'doc_lease' });
    receiver.answer = () => 'hang';
    const sending = cycle();
    await eventually(() => receiver.received.length === 1);
    const open = await t.ctx.db.execute<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM pg_stat_activity
           WHERE datname = current_database() AND state LIKE 'idle in transaction%'`,
    );
    assert.equal(open.rows[0]!.n, 0, 'a transaction stays open during the call');
    // The delivery row is free to lock (NOWAIT would fail on a held lock) ...
    await t.ctx.db.transaction(async (tx) => {
      const rows = await tx.execute(
        sql`SELECT id FROM webhook_deliveries WHERE company_id = ${sb.companyId} FOR UPDATE NOWAIT`,
      );
      assert.equal(rows.rows.length, 1);
    });
    // ... and still not sent twice: the lease moved its next attempt past now.
    assert.equal(await sendDueDeliveries(t.ctx, transports, 10), 0);
    logLines.length = 0;
    receiver.hangUp();
    await sending;
    // The failed attempt is logged at warn with the endpoint and the reason.
    const warned = logLines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.endpointId === ep.id);
    assert.equal(warned.length, 1);
    assert.equal(warned[0]!.level, 40);
    assert.equal(warned[0]!.attempt, 1);
    assert.ok(typeof warned[0]!.reason === 'string' && warned[0]!.reason.length > 0);
    assert.equal(receiver.received.length, 1);
    const [d] = await deliveries(ep.id);
    assert.equal(d?.attempt, 1);
    assert.equal(d?.status, 'pending');
    assert.ok(d?.error);
  });

  test('two senders at once (SKIP LOCKED) never send the same delivery twice', async () => {
    await register();
    const ids = new Set<string>();
    for (let i = 0; i < 40; i++) ids.add(await emit('payment.sent'));
    await cycle();
    receiver.received.length = 0;
    // Re-queue: everything sent above; make 40 more and let two senders race for them.
    for (let i = 0; i < 40; i++) await emit('payment.executed');
    const { dispatchOutbox } = await import('../../src/app/webhooks/dispatch.ts');
    while ((await dispatchOutbox(t.ctx)) > 0) {}
    const second = createWebhookTransports(t.ctx, { random: () => 0.5 });
    try {
      const counts = await Promise.all([
        sendDueDeliveries(t.ctx, transports, 10),
        sendDueDeliveries(t.ctx, second, 10),
        sendDueDeliveries(t.ctx, transports, 10),
        sendDueDeliveries(t.ctx, second, 10),
      ]);
      while ((await sendDueDeliveries(t.ctx, second, 10)) > 0) {}
      assert.equal(counts.reduce((a, b) => a + b, 0) > 0, true);
    } finally {
      await second.close();
    }
    const deliveryIds = receiver.received.map((r) => r.headers['x-delivery-id']);
    assert.equal(deliveryIds.length, 40);
    assert.equal(new Set(deliveryIds).size, 40);
  });
});
