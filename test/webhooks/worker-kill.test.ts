import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { emitEvent } from '../../src/app/events/outbox.ts';
import { dispatchOutbox } from '../../src/app/webhooks/dispatch.ts';
import { runWebhookCycle, sendDueDeliveries } from '../../src/app/webhooks/send.ts';
import { createWebhookTransports, type WebhookTransports } from '../../src/app/webhooks/transports.ts';
import { ATTEMPT_TIMEOUT_MS } from '../../src/domain/webhooks/index.ts';
import { body, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { eventually, type Receiver, startReceiver, testCa } from './support.ts';

describe('a worker killed mid-delivery', () => {
  let t: TestApp;
  let receiver: Receiver;
  let transports: WebhookTransports;

  before(async () => {
    receiver = await startReceiver();
    t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', EXTRA_CA_CERTS: testCa().caFile } });
    transports = createWebhookTransports(t.ctx, { random: () => 0.5 });
  });
  after(async () => {
    await transports.close();
    await receiver.close();
    await t.close();
  });

  test('the claimed delivery is sent again by another worker, never lost', async () => {
    const sb = await provisionAndLogin(t);
    const created = await t.request({
      method: 'POST',
      url: '/webhooks',
      headers: { 'x-api-key': sb.apiKey },
      payload: { companyId: sb.companyId, url: receiver.url },
    });
    const endpointId = body<{ endpoint: { id: string } }>(created).endpoint.id;
    const eventId = await emitEvent(t.ctx, t.ctx.db, {
      type: 'payment.sent',
      platformId: sb.platformId,
      companyId: sb.companyId,
      data: { bankKey: 'demo', totals: [] },
    });
    await dispatchOutbox(t.ctx);

    // A worker process (the benchmark's worker loop) claims the delivery and is killed while the
    // receiver holds the request open.
    receiver.answer = () => 'hang';
    const child = spawn(process.execPath, ['bench/webhooks.ts', 'worker'], {
      env: {
        ...process.env,
        DATABASE_URL: t.databaseUrl,
        MASTER_KEY: t.ctx.config.masterKey!,
        EXTRA_CA_CERTS: testCa().caFile,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    await eventually(() => receiver.received.length === 1);
    child.kill('SIGKILL');
    await exited;

    // Another worker (this process) finds it due again once the dead worker's lease has run out
    // (ATTEMPT_TIMEOUT_MS + 20 s): its clock runs past the lease.
    receiver.answer = () => ({ status: 200 });
    const later = { ...t.ctx, clock: { now: () => new Date(Date.now() + ATTEMPT_TIMEOUT_MS + 21_000) } };
    assert.equal(await sendDueDeliveries(t.ctx, transports), 0, 'the lease holds while it runs');
    await eventually(async () => {
      await runWebhookCycle(later, transports);
      return receiver.received.length >= 2;
    });
    assert.equal(receiver.received.length, 2);
    const [first, second] = receiver.received;
    assert.equal(second!.headers['x-event-id'], eventId);
    assert.equal(second!.headers['x-delivery-id'], first!.headers['x-delivery-id']);
    assert.equal(second!.headers['x-delivery-sequence'], '1');
    const list = body<{ items: { status: string; attempt: number }[] }>(
      await t.request({
        method: 'GET',
        url: `/webhooks/${endpointId}/deliveries`,
        headers: { 'x-api-key': sb.apiKey },
      }),
    );
    assert.equal(list.items.length, 1);
    assert.equal(list.items[0]!.status, 'succeeded');
    assert.equal(list.items[0]!.attempt, 1, 'the killed attempt left no trace; the retry counts as the first');
  });
});
