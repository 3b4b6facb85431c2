import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError, body, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';

type Endpoint = {
  id: string;
  url: string;
  eventTypes: string[] | null;
  enabled: boolean;
  status: string;
  transport: string;
  emailTo: string | null;
  filterPredicate: { bankKey?: string; minAmount?: number } | null;
  consecutiveFailures: number;
  createdAt: string;
};

describe('webhook routes', () => {
  let t: TestApp;
  let sb: Awaited<ReturnType<typeof provisionAndLogin>>;
  let other: Awaited<ReturnType<typeof provisionAndLogin>>;
  const key = () => ({ 'x-api-key': sb.apiKey });

  before(async () => {
    // Registration must not touch DNS for these names: private targets are allowed here, the SSRF
    // rules themselves are tested in ssrf.test.ts with the relaxation off.
    t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
    sb = await provisionAndLogin(t);
    other = await provisionAndLogin(t);
  });
  after(async () => t.close());

  const register = (payload: Record<string, unknown>, headers: Record<string, string> = key()) =>
    t.request({ method: 'POST', url: '/webhooks', headers, payload });

  test('POST /webhooks: 201 with endpoint.id and a whsec_ secret shown once', async () => {
    const res = await register({
      companyId: sb.companyId,
      url: 'https://hooks.example.test/in',
      eventTypes: ['payment.sent'],
    });
    assert.equal(res.statusCode, 201, res.body);
    const b = body<{ endpoint: Endpoint; secret: string; id?: string }>(res);
    assert.match(b.endpoint.id, /^wh_/);
    assert.equal(b.id, undefined, 'no top-level id');
    assert.match(b.secret, /^whsec_[A-Za-z0-9+/]{64}$/);
    assert.equal(b.endpoint.url, 'https://hooks.example.test/in');
    assert.deepEqual(b.endpoint.eventTypes, ['payment.sent']);
    assert.equal(b.endpoint.enabled, true);
    assert.equal(b.endpoint.status, 'enabled');
    assert.equal(b.endpoint.transport, 'https');
    assert.equal(b.endpoint.consecutiveFailures, 0);

    const list = await t.request({ method: 'GET', url: `/webhooks?companyId=${sb.companyId}`, headers: key() });
    assert.equal(list.statusCode, 200);
    assert.ok(!list.body.includes(b.secret), 'the list never carries the secret');
    assert.ok(!list.body.includes('whsec_'));
    const items = body<{ items: Endpoint[]; nextCursor: string | null }>(list);
    assert.ok(items.items.some((e) => e.id === b.endpoint.id));
    const one = await t.request({ method: 'GET', url: `/webhooks/${b.endpoint.id}`, headers: key() });
    assert.equal(one.statusCode, 200);
    assert.ok(!one.body.includes('whsec_'));
    assert.equal(body<Endpoint>(one).id, b.endpoint.id);
  });

  test('body rules: url_required before transport, length, https, empty eventTypes, unknown fields', async () => {
    assertError(await register({ companyId: sb.companyId }), 400, 'url_required');
    assertError(await register({}), 400, 'url_required');
    assertError(await register({ companyId: sb.companyId, colour: 'red' }), 400, 'url_required');
    assertError(await register({ companyId: sb.companyId, transport: 'pigeon' }), 400, 'url_required');
    assertError(await register({ companyId: sb.companyId, url: '' }), 400, 'url_required');
    assertError(
      await register({ companyId: sb.companyId, url: 'https://a.example.test/', transport: 'pigeon' }),
      400,
      'validation_failed',
    );
    const long = `https://a.example.test/${'x'.repeat(2048)}`;
    const tooLong = assertError(await register({ companyId: sb.companyId, url: long }), 400, 'validation_failed');
    assert.match(JSON.stringify(tooLong.details), /too_long/);
    const exact = `https://a.example.test/${'x'.repeat(2048 - 'https://a.example.test/'.length)}`;
    assert.equal(exact.length, 2048);
    assert.equal((await register({ companyId: sb.companyId, url: exact })).statusCode, 201);
    const plain = assertError(
      await register({ companyId: sb.companyId, url: 'http://a.example.test/' }),
      400,
      'validation_failed',
    );
    assert.match(JSON.stringify(plain.details), /https_required/);
    assertError(
      await register({ companyId: sb.companyId, url: 'https://a.example.test/', eventTypes: [] }),
      400,
      'validation_failed',
    );
    assertError(
      await register({ companyId: sb.companyId, url: 'https://a.example.test/', eventTypes: ['payment.lost'] }),
      400,
      'validation_failed',
    );
    assertError(
      await register({
        companyId: sb.companyId,
        url: 'https://a.example.test/',
        eventTypes: ['webhook.auto-disabled'],
      }),
      400,
      'validation_failed',
    );
    const unknown = assertError(
      await register({ companyId: sb.companyId, url: 'https://a.example.test/', secret: 'mine' }),
      400,
      'validation_failed',
    );
    assert.match(JSON.stringify(unknown.details), /secret/);
    assertError(
      await register({
        companyId: sb.companyId,
        url: 'https://a.example.test/',
        filterPredicate: { bankKey: 'demo', colour: 'red' },
      }),
      400,
      'validation_failed',
    );
    assertError(await register({ url: 'https://a.example.test/' }), 400, 'validation_failed');
    assertError(await register({ companyId: sb.companyId, url: 'not a url' }), 400, 'validation_failed');
    // emailTo only with the email transport.
    assertError(
      await register({ companyId: sb.companyId, url: 'https://a.example.test/', emailTo: 'ops@example.test' }),
      400,
      'validation_failed',
    );
  });

  test('transports, filterPredicate and emailTo are kept as given', async () => {
    const email = await register({
      companyId: sb.companyId,
      url: 'mailto:ops@example.test',
      transport: 'email',
      emailTo: 'ops@example.test',
      filterPredicate: { bankKey: 'demo', minAmount: 1000.5 },
    });
    assert.equal(email.statusCode, 201, email.body);
    const e = body<{ endpoint: Endpoint }>(email).endpoint;
    assert.equal(e.transport, 'email');
    assert.equal(e.emailTo, 'ops@example.test');
    assert.deepEqual(e.filterPredicate, { bankKey: 'demo', minAmount: 1000.5 });
    assert.equal(e.eventTypes, null, 'omitted eventTypes means every event');
    const slack = await register({
      companyId: sb.companyId,
      url: 'https://hooks.slack.example.test/services/T/B/x',
      transport: 'slack',
    });
    assert.equal(slack.statusCode, 201);
    assert.equal(body<{ endpoint: Endpoint }>(slack).endpoint.transport, 'slack');
    assertError(
      await register({ companyId: sb.companyId, url: 'http://hooks.slack.example.test/x', transport: 'slack' }),
      400,
      'validation_failed',
    );
  });

  test('auth: admin session works, a key of another platform is 403, no credential 401, unknown company 404', async () => {
    const bySession = await register(
      { companyId: sb.companyId, url: 'https://s.example.test/' },
      { 'x-session-token': sb.sessionToken },
    );
    assert.equal(bySession.statusCode, 201, bySession.body);
    const id = body<{ endpoint: Endpoint }>(bySession).endpoint.id;

    assertError(
      await register({ companyId: sb.companyId, url: 'https://s.example.test/' }, { 'x-api-key': other.apiKey }),
      403,
      'forbidden',
    );
    assertError(
      await t.request({
        method: 'GET',
        url: `/webhooks?companyId=${sb.companyId}`,
        headers: { 'x-api-key': other.apiKey },
      }),
      403,
      'forbidden',
    );
    assertError(
      await t.request({
        method: 'GET',
        url: `/webhooks/${id}?companyId=${sb.companyId}`,
        headers: { 'x-api-key': other.apiKey },
      }),
      403,
      'forbidden',
    );
    assertError(
      await t.request({ method: 'GET', url: `/webhooks/${id}`, headers: { 'x-api-key': other.apiKey } }),
      404,
      'not_found',
    );
    assertError(
      await t.request({
        method: 'POST',
        url: `/webhooks/${id}/disable`,
        headers: { 'x-session-token': other.sessionToken },
      }),
      404,
      'not_found',
    );
    assertError(await t.request({ method: 'GET', url: `/webhooks?companyId=${sb.companyId}` }), 401, 'unauthorized');
    assertError(await register({ companyId: 'comp_doesnotexist', url: 'https://s.example.test/' }), 404, 'not_found');
    assertError(
      await register(
        { companyId: sb.companyId, url: 'https://s.example.test/' },
        { 'x-session-token': other.sessionToken },
      ),
      403,
      'forbidden',
    );
  });

  test('enable, disable, re-enable, delete; audit trail records each change', async () => {
    const created = body<{ endpoint: Endpoint }>(
      await register({ companyId: sb.companyId, url: 'https://x.example.test/' }),
    ).endpoint;
    const disabled = await t.request({ method: 'POST', url: `/webhooks/${created.id}/disable`, headers: key() });
    assert.equal(disabled.statusCode, 200);
    assert.equal(body<Endpoint>(disabled).enabled, false);
    assert.equal(body<Endpoint>(disabled).status, 'disabled');
    const enabled = await t.request({ method: 'POST', url: `/webhooks/${created.id}/enable`, headers: key() });
    assert.equal(body<Endpoint>(enabled).status, 'enabled');
    const reEnabled = await t.request({ method: 'POST', url: `/webhooks/${created.id}/re-enable`, headers: key() });
    assert.equal(reEnabled.statusCode, 200);
    assert.equal(body<Endpoint>(reEnabled).consecutiveFailures, 0);

    const audit = await t.ctx.db.$client.query<{ type: string }>(
      `SELECT type FROM activity_events WHERE company_id = $1 AND metadata->>'endpointId' = $2 ORDER BY seq`,
      [sb.companyId, created.id],
    );
    assert.deepEqual(
      audit.rows.map((r) => r.type),
      ['webhook.created', 'webhook.disabled', 'webhook.enabled'],
    );

    const del = await t.request({ method: 'DELETE', url: `/webhooks/${created.id}`, headers: key() });
    assert.equal(del.statusCode, 204);
    assertError(await t.request({ method: 'GET', url: `/webhooks/${created.id}`, headers: key() }), 404, 'not_found');
    assertError(
      await t.request({ method: 'DELETE', url: `/webhooks/${created.id}`, headers: key() }),
      404,
      'not_found',
    );
  });

  test('rotate-secret: 200 {secret, overlapUntil}, overlap default 24 h, clamped to 1..72', async () => {
    const created = body<{ endpoint: Endpoint; secret: string }>(
      await register({ companyId: sb.companyId, url: 'https://r.example.test/' }),
    );
    const rotate = async (payload?: Record<string, unknown>) => {
      const before = Date.now();
      const res = await t.request({
        method: 'POST',
        url: `/webhooks/${created.endpoint.id}/rotate-secret`,
        headers: key(),
        ...(payload ? { payload } : {}),
      });
      assert.equal(res.statusCode, 200, res.body);
      const b = body<{ secret: string; overlapUntil: string }>(res);
      assert.match(b.secret, /^whsec_[A-Za-z0-9+/]{64}$/);
      assert.notEqual(b.secret, created.secret);
      return Math.round((Date.parse(b.overlapUntil) - before) / 3_600_000);
    };
    assert.equal(await rotate(), 24);
    assert.equal(await rotate({}), 24);
    assert.equal(await rotate({ overlapHours: 0 }), 1);
    assert.equal(await rotate({ overlapHours: 500 }), 72);
    assert.equal(await rotate({ overlapHours: 6 }), 6);
    assertError(
      await t.request({
        method: 'POST',
        url: `/webhooks/${created.endpoint.id}/rotate-secret`,
        headers: key(),
        payload: { hours: 3 },
      }),
      400,
      'validation_failed',
    );
  });

  test('test, deliveries, redeliver and redeliver-failed answer the contract bodies', async () => {
    const created = body<{ endpoint: Endpoint }>(
      await register({ companyId: sb.companyId, url: 'https://d.example.test/' }),
    ).endpoint;
    const sent = await t.request({ method: 'POST', url: `/webhooks/${created.id}/test`, headers: key() });
    assert.equal(sent.statusCode, 202, sent.body);
    const { deliveryId, eventId } = body<{ deliveryId: string; eventId: string }>(sent);
    assert.match(deliveryId, /^del_/);
    assert.match(eventId, /^evt_/);
    const list = await t.request({ method: 'GET', url: `/webhooks/${created.id}/deliveries`, headers: key() });
    assert.equal(list.statusCode, 200);
    const items = body<{ items: Record<string, unknown>[]; nextCursor: string | null }>(list);
    assert.equal(items.items.length, 1);
    assert.deepEqual(Object.keys(items.items[0]!).sort(), [
      'attempt',
      'createdAt',
      'durationMs',
      'error',
      'eventId',
      'eventType',
      'id',
      'nextAttemptAt',
      'responseStatus',
      'sequence',
      'status',
    ]);
    assert.equal(items.items[0]!.eventType, 'webhook.test');
    assert.equal(items.items[0]!.status, 'pending');
    assert.equal(items.items[0]!.sequence, 1);

    const again = await t.request({
      method: 'POST',
      url: `/webhooks/${created.id}/deliveries/${deliveryId}/redeliver`,
      headers: key(),
    });
    assert.equal(again.statusCode, 202);
    const replay = body<{ deliveryId: string; eventId: string }>(again);
    assert.notEqual(replay.deliveryId, deliveryId);
    assert.equal(replay.eventId, eventId);
    assertError(
      await t.request({ method: 'POST', url: `/webhooks/${created.id}/deliveries/del_nope/redeliver`, headers: key() }),
      404,
      'not_found',
    );
    const none = await t.request({
      method: 'POST',
      url: `/webhooks/${created.id}/redeliver-failed?since=2020-01-01T00:00:00Z`,
      headers: key(),
    });
    assert.equal(none.statusCode, 202);
    assert.deepEqual(body(none), { count: 0 });
    assertError(
      await t.request({ method: 'POST', url: `/webhooks/${created.id}/redeliver-failed`, headers: key() }),
      400,
      'bad_request',
    );
    assertError(
      await t.request({
        method: 'POST',
        url: `/webhooks/${created.id}/redeliver-failed?since=yesterday`,
        headers: key(),
      }),
      400,
      'bad_request',
    );
  });

  test('list pages with nextCursor', async () => {
    const fresh = await provisionAndLogin(t);
    for (let i = 0; i < 3; i++) {
      await register({ companyId: fresh.companyId, url: `https://p${i}.example.test/` }, { 'x-api-key': fresh.apiKey });
    }
    const first = body<{ items: Endpoint[]; nextCursor: string | null }>(
      await t.request({
        method: 'GET',
        url: `/webhooks?companyId=${fresh.companyId}&limit=2`,
        headers: { 'x-api-key': fresh.apiKey },
      }),
    );
    assert.equal(first.items.length, 2);
    assert.ok(first.nextCursor);
    const second = body<{ items: Endpoint[]; nextCursor: string | null }>(
      await t.request({
        method: 'GET',
        url: `/webhooks?companyId=${fresh.companyId}&limit=2&cursor=${first.nextCursor}`,
        headers: { 'x-api-key': fresh.apiKey },
      }),
    );
    assert.equal(second.items.length, 1);
    assert.equal(second.nextCursor, null);
    assert.equal(new Set([...first.items, ...second.items].map((e) => e.id)).size, 3);
  });
});
