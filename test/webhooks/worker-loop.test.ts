import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { body, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { eventually, type Receiver, startReceiver, testCa } from './support.ts';

describe('webhook worker loop (pg-boss workers running in the app process)', () => {
  let t: TestApp;
  let receiver: Receiver;

  before(async () => {
    receiver = await startReceiver();
    t = await startTestApp({
      workers: true,
      env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', EXTRA_CA_CERTS: testCa().caFile },
    });
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });

  test('POST /webhooks/{id}/test is delivered by the running workers without a manual cycle', async () => {
    const sb = await provisionAndLogin(t);
    const created = await t.request({
      method: 'POST',
      url: '/webhooks',
      headers: { 'x-api-key': sb.apiKey },
      payload: { companyId: sb.companyId, url: receiver.url, eventTypes: ['webhook.test'] },
    });
    const id = body<{ endpoint: { id: string } }>(created).endpoint.id;
    const res = await t.request({ method: 'POST', url: `/webhooks/${id}/test`, headers: { 'x-api-key': sb.apiKey } });
    assert.equal(res.statusCode, 202);
    const { deliveryId } = body<{ deliveryId: string }>(res);
    await eventually(() => receiver.received.length === 1);
    assert.equal(receiver.received[0]!.headers['x-delivery-id'], deliveryId);
    await eventually(async () => {
      const list = body<{ items: { status: string }[] }>(
        await t.request({ method: 'GET', url: `/webhooks/${id}/deliveries`, headers: { 'x-api-key': sb.apiKey } }),
      );
      return list.items[0]?.status === 'succeeded';
    });
  });
});
