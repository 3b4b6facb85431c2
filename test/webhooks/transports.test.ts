import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { emitEvent } from '../../src/app/events/outbox.ts';
import { runWebhookCycle } from '../../src/app/webhooks/send.ts';
import { createWebhookTransports, type WebhookTransports } from '../../src/app/webhooks/transports.ts';
import { body, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { type Receiver, type SmtpServer, startReceiver, startSmtpServer, testCa } from './support.ts';

describe('webhook transports: Slack-shaped receiver and SMTP', () => {
  let t: TestApp;
  let slack: Receiver;
  let smtp: SmtpServer;
  let transports: WebhookTransports;
  let sb: Awaited<ReturnType<typeof provisionAndLogin>>;
  const drain = async () => {
    while (await runWebhookCycle(t.ctx, transports)) {}
  };

  before(async () => {
    slack = await startReceiver();
    smtp = await startSmtpServer();
    t = await startTestApp({
      env: {
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        EXTRA_CA_CERTS: testCa().caFile,
        SMTP_URL: smtp.url,
        SMTP_FROM: 'webhooks@payops.test',
      },
    });
    transports = createWebhookTransports(t.ctx, { random: () => 0.5 });
    sb = await provisionAndLogin(t);
  });
  after(async () => {
    await transports.close();
    await slack.close();
    await smtp.close();
    await t.close();
  });

  const register = async (payload: Record<string, unknown>) => {
    const res = await t.request({
      method: 'POST',
      url: '/webhooks',
      headers: { 'x-api-key': sb.apiKey },
      payload: { companyId: sb.companyId, ...payload },
    });
    assert.equal(res.statusCode, 201, res.body);
    return body<{ endpoint: { id: string } }>(res).endpoint;
  };
  const emit = (type: string) =>
    emitEvent(t.ctx, t.ctx.db, {
      type,
      platformId: sb.platformId,
      companyId: sb.companyId,
      data: { journalNo: 'OUT-7', bankKey: 'demo', totals: [{ currency: 'EUR', amount: '12.30' }] },
    });

  test('slack: a formatted {text, blocks} message to the incoming-webhook URL', async () => {
    const ep = await register({
      url: `${slack.url}/services/T000/B000/XXXX`,
      transport: 'slack',
      eventTypes: ['payment.rejected'],
    });
    const eventId = await emit('payment.rejected');
    await drain();
    assert.equal(slack.received.length, 1);
    const got = slack.received[0]!;
    assert.equal(got.path, '/hook/services/T000/B000/XXXX');
    assert.equal(got.headers['content-type'], 'application/json');
    const message = JSON.parse(got.body) as {
      text: string;
      blocks: { type: string; text: { type: string; text: string } }[];
    };
    assert.match(message.text, /payment\.rejected/);
    assert.match(message.text, /OUT-7/);
    assert.match(message.text, /12\.30 EUR/);
    assert.match(message.text, new RegExp(eventId));
    assert.equal(message.blocks[0]!.type, 'section');
    assert.equal(message.blocks[0]!.text.type, 'mrkdwn');
    const list = body<{ items: { status: string; responseStatus: number }[] }>(
      await t.request({ method: 'GET', url: `/webhooks/${ep.id}/deliveries`, headers: { 'x-api-key': sb.apiKey } }),
    );
    assert.equal(list.items[0]!.status, 'succeeded');
    assert.equal(list.items[0]!.responseStatus, 200);
  });

  test('email: SMTP to emailTo, and to the company admins when emailTo is omitted', async () => {
    await register({
      url: 'mailto:ops@example.test',
      transport: 'email',
      emailTo: 'ops@example.test',
      eventTypes: ['payment.sent'],
    });
    await register({ url: 'mailto:admins', transport: 'email', eventTypes: ['payment.executed'] });
    await emit('payment.sent');
    await drain();
    assert.equal(smtp.messages.length, 1);
    const first = smtp.messages[0]!;
    assert.equal(first.from, 'webhooks@payops.test');
    assert.deepEqual(first.to, ['ops@example.test']);
    assert.match(first.data, /Subject: \[payops\] payment\.sent/);
    assert.match(first.data, /OUT-7/);

    await emit('payment.executed');
    await drain();
    assert.equal(smtp.messages.length, 2);
    assert.deepEqual(smtp.messages[1]!.to, [sb.dashboardLogin.email.toLowerCase()]);
    assert.match(smtp.messages[1]!.data, /payment\.executed/);
  });
});
