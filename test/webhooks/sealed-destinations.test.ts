/**
 * Webhook destinations are secrets at rest and on read: a Slack incoming-webhook URL (its last path
 * segment is a bearer token) is stored sealed, and the API, the audit events and the store's plain
 * column only ever hold the masked form; deliveries still go to the real URL. Rows written before the
 * seal (migration 0018) are sealed by the start-up pass, and are masked on read meanwhile.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { emitEvent } from '../../src/app/events/outbox.ts';
import { sealWebhookDestinations } from '../../src/app/system/seal-destinations.ts';
import { runWebhookCycle } from '../../src/app/webhooks/send.ts';
import { createWebhookTransports, type WebhookTransports } from '../../src/app/webhooks/transports.ts';
import { maskedDestination } from '../../src/domain/webhooks/index.ts';
import { body, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { type Receiver, startReceiver, testCa } from './support.ts';

type Endpoint = { id: string; url: string; transport: string };
type Event = { type: string; metadata: Record<string, unknown> };

let t: TestApp;
let db: pg.Pool;
let slack: Receiver;
let transports: WebhookTransports;
let sb: Awaited<ReturnType<typeof provisionAndLogin>>;
const token = () => `tok${randomBytes(12).toString('hex')}`;

before(async () => {
  slack = await startReceiver();
  t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', EXTRA_CA_CERTS: testCa().caFile } });
  db = new pg.Pool({ connectionString: t.databaseUrl, max: 1 });
  transports = createWebhookTransports(t.ctx, { random: () => 0.5 });
  sb = await provisionAndLogin(t);
});
after(async () => {
  await transports.close();
  await db.end();
  await slack.close();
  await t.close();
});

const headers = () => ({ 'x-api-key': sb.apiKey });
const drain = async () => {
  while (await runWebhookCycle(t.ctx, transports)) {}
};
async function register(url: string, transport: string): Promise<Endpoint> {
  const res = await t.request({
    method: 'POST',
    url: '/webhooks',
    headers: headers(),
    payload: { companyId: sb.companyId, url, transport, eventTypes: ['payment.rejected'] },
  });
  assert.equal(res.statusCode, 201, res.body);
  return body<{ endpoint: Endpoint }>(res).endpoint;
}
async function events(): Promise<Event[]> {
  const res = await t.request({ method: 'GET', url: `/journal/events?companyId=${sb.companyId}`, headers: headers() });
  assert.equal(res.statusCode, 200, res.body);
  return body<{ items: Event[] }>(res).items;
}
/** Every text the store holds about webhooks and the audit trail, to search for the secret. */
async function storedText(): Promise<string> {
  const rows = await db.query(
    `SELECT (SELECT coalesce(string_agg(row_to_json(e)::text, ''), '') FROM webhook_endpoints e) ||
            (SELECT coalesce(string_agg(row_to_json(a)::text, ''), '') FROM activity_events a) AS text`,
  );
  return rows.rows[0].text as string;
}

describe('a Slack destination is sealed at rest and masked on read', () => {
  test('registration, list, fetch and the webhook.created event show the URL masked; the store holds no token', async () => {
    const secret = token();
    const url = `${slack.url}/services/T0AAA/B0BBB/${secret}`;
    const ep = await register(url, 'slack');
    const masked = url.replace(secret, '***');
    assert.equal(ep.url, masked);
    const list = await t.request({ method: 'GET', url: `/webhooks?companyId=${sb.companyId}`, headers: headers() });
    assert.equal(body<{ items: Endpoint[] }>(list).items.find((e) => e.id === ep.id)?.url, masked);
    const one = await t.request({ method: 'GET', url: `/webhooks/${ep.id}`, headers: headers() });
    assert.equal(body<Endpoint>(one).url, masked);
    const created = (await events()).find((e) => e.type === 'webhook.created' && e.metadata.endpointId === ep.id);
    assert.equal(created?.metadata.url, masked);
    for (const res of [list, one]) assert.doesNotMatch(res.body, new RegExp(secret));

    assert.doesNotMatch(await storedText(), new RegExp(secret), 'the token appears nowhere in plain text');
    const row = await db.query('SELECT url, url_sealed FROM webhook_endpoints WHERE id = $1', [ep.id]);
    assert.equal(row.rows[0].url, masked);
    assert.equal(t.ctx.encryptor.decrypt(row.rows[0].url_sealed), url);
  });

  test('the delivery still goes to the full URL', async () => {
    const secret = token();
    await register(`${slack.url}/services/T0AAA/B0CCC/${secret}`, 'slack');
    const before = slack.received.length;
    await emitEvent(t.ctx, t.ctx.db, {
      type: 'payment.rejected',
      platformId: sb.platformId,
      companyId: sb.companyId,
      data: { journalNo: 'OUT-1', bankKey: 'demo' },
    });
    await drain();
    const paths = slack.received.slice(before).map((r) => r.path);
    assert.ok(paths.includes(`/hook/services/T0AAA/B0CCC/${secret}`), paths.join(', '));
  });

  test('an https destination keeps its path; user-info and query values are masked', () => {
    assert.equal(
      maskedDestination('https://a.example/in/x?token=abc&v=1', 'https'),
      'https://a.example/in/x?token=***&v=***',
    );
    assert.equal(maskedDestination('https://u:p@a.example/in', 'https'), 'https://***@a.example/in');
    assert.equal(maskedDestination('https://a.example/in', 'https'), 'https://a.example/in');
    assert.equal(maskedDestination('not a url', 'slack'), '***');
  });
});

describe('destinations written before the seal', () => {
  test('are masked on read, then sealed by the start-up pass and still delivered to', async () => {
    const secret = token();
    const url = `${slack.url}/services/T0OLD/B0OLD/${secret}`;
    const ep = await register(url, 'slack');
    // As a row and an audit entry written before migration 0018 look: the plain URL, nothing sealed.
    await db.query('UPDATE webhook_endpoints SET url = $1, url_sealed = NULL WHERE id = $2', [url, ep.id]);
    await db.query(
      `UPDATE activity_events SET metadata = jsonb_set(metadata, '{url}', to_jsonb($1::text))
        WHERE type = 'webhook.created' AND metadata->>'endpointId' = $2`,
      [url, ep.id],
    );
    const one = await t.request({ method: 'GET', url: `/webhooks/${ep.id}`, headers: headers() });
    assert.equal(body<Endpoint>(one).url, url.replace(secret, '***'));
    const created = (await events()).find((e) => e.type === 'webhook.created' && e.metadata.endpointId === ep.id);
    assert.equal(created?.metadata.url, url.replace(secret, '***'));

    assert.ok((await sealWebhookDestinations(t.ctx)) >= 1);
    assert.equal(await sealWebhookDestinations(t.ctx), 0, 'a second pass finds nothing left');
    const row = await db.query('SELECT url, url_sealed FROM webhook_endpoints WHERE id = $1', [ep.id]);
    assert.equal(row.rows[0].url, url.replace(secret, '***'));
    assert.equal(t.ctx.encryptor.decrypt(row.rows[0].url_sealed), url);

    const before = slack.received.length;
    await emitEvent(t.ctx, t.ctx.db, {
      type: 'payment.rejected',
      platformId: sb.platformId,
      companyId: sb.companyId,
      data: { journalNo: 'OUT-2', bankKey: 'demo' },
    });
    await drain();
    assert.ok(slack.received.slice(before).some((r) => r.path === `/hook/services/T0OLD/B0OLD/${secret}`));
  });
});
