import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { relayQueuedDeliveries } from '../../src/app/delivery/relay.ts';
import { startTestApp, type TestApp } from '../harness.ts';

/**
 * Nothing is journaled twice: 50 simultaneous identical submits give exactly one document, through
 * app.inject and through real HTTP on a listening socket. Every other answer is either the replay of
 * that document (201, Idempotency-Replayed: true) or 409 conflict while it is still in flight.
 */
let t: TestApp;
let apiKey: string;
let companyId: string;
let firstBody: { payment: { messageId: string } } & Record<string, unknown>;
let seq = 0;

before(async () => {
  t = await startTestApp();
  const provisioned = await t.request({
    method: 'POST',
    url: '/sandbox/provision',
    payload: {},
    remoteAddress: '10.55.0.1',
  });
  const sb = provisioned.json() as { apiKey: string; companyId: string; firstPayment: { body: typeof firstBody } };
  apiKey = sb.apiKey;
  companyId = sb.companyId;
  firstBody = sb.firstPayment.body;
});
after(() => t.close());

function bodyWithNewMessageId() {
  seq++;
  const b = structuredClone(firstBody);
  b.payment.messageId = `CONC-${process.pid}-${seq}`;
  return b;
}

type Answer = { status: number; replayed: boolean; id?: string; code?: string };

function check(answers: Answer[]) {
  const created = answers.filter((a) => a.status === 201 && !a.replayed);
  assert.equal(created.length, 1, JSON.stringify(answers.map((a) => [a.status, a.replayed, a.code])));
  for (const a of answers) {
    if (a.status === 201) assert.equal(a.id, created[0]!.id);
    else assert.deepEqual([a.status, a.code], [409, 'conflict']);
  }
}

async function documentsWith(messageId: string) {
  const r = await t.ctx.db.execute<{ n: string }>(
    sql`SELECT count(*)::text AS n FROM journal_documents WHERE company_id = ${companyId} AND message_id = ${messageId}`,
  );
  return Number(r.rows[0]?.n);
}

describe('50 simultaneous identical submits', () => {
  test('through app.inject: exactly one document, one line set, one event, one job', async () => {
    const b = bodyWithNewMessageId();
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        t
          .request({
            method: 'POST',
            url: '/journal/payments',
            headers: { 'x-api-key': apiKey, 'idempotency-key': b.payment.messageId },
            payload: b,
          })
          .then((res) => {
            const json = res.json() as { id?: string; error?: { code: string } };
            return {
              status: res.statusCode,
              replayed: res.headers['idempotency-replayed'] === 'true',
              ...(json.id ? { id: json.id } : {}),
              ...(json.error ? { code: json.error.code } : {}),
            };
          }),
      ),
    );
    check(answers);
    assert.equal(await documentsWith(b.payment.messageId), 1);
    const id = answers.find((a) => a.status === 201)!.id!;
    await relayQueuedDeliveries(t.ctx);
    const counts = await t.ctx.db.execute<{ lines: string; events: string; jobs: string }>(sql`
      SELECT (SELECT count(*) FROM payment_lines WHERE document_id = ${id})::text AS lines,
             (SELECT count(*) FROM activity_events WHERE metadata->>'documentId' = ${id})::text AS events,
             (SELECT count(*) FROM pgboss.job WHERE data->>'documentId' = ${id})::text AS jobs`);
    assert.deepEqual(counts.rows[0], { lines: '1', events: '1', jobs: '1' });
  });

  test('the same payment under 50 different keys at once is still one document', async () => {
    const b = bodyWithNewMessageId();
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        t
          .request({
            method: 'POST',
            url: '/journal/payments',
            headers: { 'x-api-key': apiKey, 'idempotency-key': `${b.payment.messageId}-k${i}` },
            payload: b,
          })
          .then((res) => ({
            status: res.statusCode,
            replayed: res.headers['idempotency-replayed'] === 'true',
            id: (res.json() as { id?: string }).id,
            code: (res.json() as { error?: { code: string } }).error?.code,
          })),
      ),
    );
    check(
      answers.map((a) => ({
        status: a.status,
        replayed: a.replayed,
        ...(a.id ? { id: a.id } : {}),
        ...(a.code ? { code: a.code } : {}),
      })),
    );
    assert.equal(await documentsWith(b.payment.messageId), 1);
  });

  test('through real HTTP on a listening socket', async () => {
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const b = bodyWithNewMessageId();
    const answers = await Promise.all(
      Array.from({ length: 50 }, async () => {
        const res = await fetch(`${address}/journal/payments`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-api-key': apiKey,
            'idempotency-key': `http-${b.payment.messageId}`,
          },
          body: JSON.stringify(b),
        });
        const json = (await res.json()) as { id?: string; error?: { code: string } };
        return {
          status: res.status,
          replayed: res.headers.get('idempotency-replayed') === 'true',
          ...(json.id ? { id: json.id } : {}),
          ...(json.error ? { code: json.error.code } : {}),
        };
      }),
    );
    check(answers);
    assert.equal(await documentsWith(b.payment.messageId), 1);
    // After the dust settles a retry replays.
    const retry = await fetch(`${address}/journal/payments`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key': apiKey,
        'idempotency-key': `http-${b.payment.messageId}`,
      },
      body: JSON.stringify(b),
    });
    assert.equal(retry.status, 201);
    assert.equal(retry.headers.get('idempotency-replayed'), 'true');
  });
});
