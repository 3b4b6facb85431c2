/**
 * Deliveries checked by the receivers' own libraries (issue 36.3): the `standardwebhooks` reference
 * library and Stripe's `webhooks.constructEvent`, each given the secret exactly as the service
 * returned it, over a real HTTPS receiver. Both libraries compare the timestamp with the real time
 * (5 minutes either way), so the manual clock starts at the real time and moves by seconds.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, beforeEach, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { emitEvent } from '../../src/app/events/outbox.ts';
import { runWebhookCycle } from '../../src/app/webhooks/send.ts';
import { createWebhookTransports, type WebhookTransports } from '../../src/app/webhooks/transports.ts';
import { manualClock } from '../../src/platform/clock.ts';
import { body, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { type Received, type Receiver, startReceiver, testCa } from './support.ts';

const stripe = new Stripe('sk_test_only_for_its_webhook_verifier');

/** Both receivers' checks of one delivery against one secret: what each library answers. */
function verifiers(got: Received, secret: string) {
  const standard = (() => {
    try {
      return new Webhook(secret).verify(got.body, got.headers) as { id: string };
    } catch (error) {
      return error as Error;
    }
  })();
  const stripeStyle = (() => {
    try {
      return stripe.webhooks.constructEvent(got.body, got.headers['x-signature']!, secret) as unknown as { id: string };
    } catch (error) {
      return error as Error;
    }
  })();
  return { standard, stripeStyle };
}

function assertBothVerify(got: Received, secret: string, eventId: string) {
  const { standard, stripeStyle } = verifiers(got, secret);
  assert.ok(!(standard instanceof Error), `standardwebhooks refused: ${String(standard)}`);
  assert.ok(!(stripeStyle instanceof Error), `stripe refused: ${String(stripeStyle)}`);
  assert.equal(standard.id, eventId);
  assert.equal(stripeStyle.id, eventId);
}

function assertNeitherVerifies(got: Received, secret: string) {
  const { standard, stripeStyle } = verifiers(got, secret);
  assert.ok(standard instanceof Error, 'standardwebhooks must refuse');
  assert.ok(stripeStyle instanceof Error, 'stripe must refuse');
}

describe('webhook deliveries verified by standardwebhooks and by stripe', () => {
  const clock = manualClock(new Date());
  let t: TestApp;
  let receiver: Receiver;
  let transports: WebhookTransports;
  let sb: Awaited<ReturnType<typeof provisionAndLogin>>;
  const key = () => ({ 'x-api-key': sb.apiKey });
  const drain = async () => {
    while (await runWebhookCycle(t.ctx, transports)) {}
  };

  before(async () => {
    receiver = await startReceiver();
    t = await startTestApp({
      clock,
      env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', EXTRA_CA_CERTS: testCa().caFile },
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

  const register = async () => {
    const res = await t.request({
      method: 'POST',
      url: '/webhooks',
      headers: key(),
      payload: { companyId: sb.companyId, url: receiver.url },
    });
    assert.equal(res.statusCode, 201, res.body);
    return body<{ endpoint: { id: string }; secret: string }>(res);
  };
  const emit = () =>
    emitEvent(t.ctx, t.ctx.db, {
      type: 'payment.sent',
      platformId: sb.platformId,
      companyId: sb.companyId,
      data: { bankKey: 'demo', journalNo: 'OUT-1', totals: [{ currency: 'EUR', amount: '12.50' }] },
    });

  test('a delivery carries webhook-id, webhook-timestamp and webhook-signature; both libraries verify it', async () => {
    const { secret } = await register();
    const eventId = await emit();
    await drain();
    const got = receiver.received.at(-1)!;
    assert.equal(got.headers['webhook-id'], eventId);
    assert.equal(got.headers['webhook-timestamp'], String(Math.floor(clock.now().getTime() / 1000)));
    assert.match(got.headers['webhook-signature']!, /^v1,[A-Za-z0-9+/]{43}=$/);
    assert.equal(got.headers['x-signature']!.split(',')[0], `t=${got.headers['webhook-timestamp']}`);
    assertBothVerify(got, secret, eventId);
    assertNeitherVerifies(got, `whsec_${randomBytes(48).toString('base64')}`);
    assertNeitherVerifies({ ...got, body: got.body.replace('12.50', '12.51') }, secret);
  });

  test('a retry and a redelivery keep webhook-id, are signed anew, and both libraries verify them', async () => {
    const { endpoint: ep, secret } = await register();
    receiver.answer = () => ({ status: 500, body: 'down' });
    const eventId = await emit();
    await drain();
    const failed = receiver.received.at(-1)!;
    receiver.answer = () => ({ status: 200, body: 'ok' });
    clock.advance(40_000);
    await drain();
    const retried = receiver.received.at(-1)!;
    assert.equal(retried.headers['x-delivery-attempt'], '2');
    clock.advance(5_000);
    const list = body<{ items: { id: string }[] }>(
      await t.request({ method: 'GET', url: `/webhooks/${ep.id}/deliveries`, headers: key() }),
    ).items;
    const replay = await t.request({
      method: 'POST',
      url: `/webhooks/${ep.id}/deliveries/${list[0]!.id}/redeliver`,
      headers: key(),
    });
    assert.equal(replay.statusCode, 202, replay.body);
    await drain();
    const redelivered = receiver.received.at(-1)!;
    assert.notEqual(redelivered.headers['x-delivery-id'], retried.headers['x-delivery-id']);
    for (const got of [failed, retried, redelivered]) {
      assert.equal(got.headers['webhook-id'], eventId);
      assertBothVerify(got, secret, eventId);
    }
    assert.notEqual(redelivered.headers['webhook-timestamp'], failed.headers['webhook-timestamp']);
  });

  test('rotation overlap: one v1 per live secret in both headers; each secret verifies in both libraries', async () => {
    const { endpoint: ep, secret: oldSecret } = await register();
    const rotated = await t.request({
      method: 'POST',
      url: `/webhooks/${ep.id}/rotate-secret`,
      headers: key(),
      payload: { overlapHours: 1 },
    });
    assert.equal(rotated.statusCode, 200, rotated.body);
    const { secret: newSecret } = body<{ secret: string }>(rotated);
    const eventId = await emit();
    await drain();
    const got = receiver.received.at(-1)!;
    assert.equal(got.headers['webhook-signature']!.split(' ').length, 2);
    assertBothVerify(got, oldSecret, eventId);
    assertBothVerify(got, newSecret, eventId);
  });

  test('a secret issued before Standard Webhooks (whsec_ + 64 hex) verifies in both libraries', async () => {
    const { endpoint: ep } = await register();
    const legacy = `whsec_${randomBytes(32).toString('hex')}`;
    await t.ctx.db.$client.query('UPDATE webhook_endpoints SET secret_sealed = $2 WHERE id = $1', [
      ep.id,
      t.ctx.encryptor.encrypt(legacy),
    ]);
    const eventId = await emit();
    await drain();
    assertBothVerify(receiver.received.at(-1)!, legacy, eventId);
  });
});
