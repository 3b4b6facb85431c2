/**
 * A bank's pain.002 that a pickup takes while its payment's delivery is still under way (the bank has
 * the file, the service has not recorded the upload yet) is journaled and held, so the download that
 * brought it can be confirmed; the transaction that records the delivery applies it (docs/adr/0074):
 * the document ends as if the report had come a moment later, with one payment event each, and the
 * same report taken again is deduped. Parallel uploads of one session deliver each document once.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { receiveBankFiles } from '../../src/app/bank-files/receive.ts';
import type { AppContext } from '../../src/app/context.ts';
import { deliverDocuments } from '../../src/app/delivery/deliver-document.ts';
import { pickUpFrom } from '../../src/app/delivery/pickup.ts';
import type { BankChannel, OutboundFile } from '../../src/channels/channel.ts';
import { ChannelError } from '../../src/channels/errors.ts';
import { findConnectionFor } from '../../src/db/repositories/connections.ts';
import { deliveredFileFromPain001, demoCamt053, demoPain002 } from '../../src/domain/demo-bank/index.ts';
import { provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';

let t: TestApp;
let sandbox: Awaited<ReturnType<typeof provisionAndLogin>>;

before(async () => {
  t = await startTestApp();
  sandbox = await provisionAndLogin(t);
});
after(() => t.close());

const scope = () => ({ platformId: sandbox.platformId, companyId: sandbox.companyId });

let submitted = 0;
async function submitPayment(remittance?: string): Promise<string> {
  submitted++;
  const n = String(submitted).padStart(4, '0');
  let text = JSON.stringify(sandbox.firstPayment.body)
    .replace(/SANDBOX-(\d{8})-0001/g, `HELD-$1-${n}`)
    .replaceAll('E2E-0001', `E2E-H${n}`)
    .replaceAll('PMT-0001', `PMT-H${n}`);
  if (remittance) text = text.replace(/"unstructured":"[^"]*"/, `"unstructured":"${remittance}"`);
  const res = await t.request({
    method: 'POST',
    url: '/journal/payments',
    headers: { 'x-api-key': sandbox.apiKey, 'idempotency-key': `HELD-${n}` },
    payload: { ...(JSON.parse(text) as Record<string, unknown>), companyId: sandbox.companyId },
  });
  assert.equal(res.statusCode, 201, res.body);
  return (res.json() as { id: string }).id;
}

const job = (documentId: string) => ({
  job: { documentId, platformId: sandbox.platformId, companyId: sandbox.companyId },
  attempt: { retryCount: 0, retryLimit: 10 },
});

async function rows<T>(query: ReturnType<typeof sql>): Promise<T[]> {
  return (await t.ctx.db.execute(query)).rows as T[];
}

/** The bank's pain.002 about an uploaded file, as the demo bank would write it. */
function answerTo(file: OutboundFile, tag: string): string {
  const delivered = deliveredFileFromPain001(file.content);
  assert.ok(delivered, 'the delivered file is a pain.001');
  return demoPain002(delivered, `STS-${tag}`, new Date().toISOString());
}

/** A bank that answers during the upload: its pain.002 is picked up before the delivery is recorded. */
function answeringChannels(
  onDeliver: (file: OutboundFile) => Promise<void>,
  options: { inFlight?: number; fail?: ChannelError } = {},
): AppContext['channels'] {
  const channel: BankChannel = {
    kind: 'answering',
    ...(options.inFlight ? { deliveriesInFlight: options.inFlight } : {}),
    async deliver(file) {
      await onDeliver(file);
      if (options.fail) throw options.fail;
      return { channel: 'answering', reference: file.fileName, alreadyDelivered: false };
    },
    fetchInbound: async () => [],
    acknowledge: async () => {},
    close: async () => {},
  };
  return { open: () => channel, webServices: t.ctx.channels.webServices, ebics: t.ctx.channels.ebics };
}

async function pickUp(contents: string[]) {
  return receiveBankFiles(
    t.ctx,
    scope(),
    contents.map((content) => ({ content, bankKey: 'demo', environment: 'test' as const, source: 'channel' as const })),
  );
}

async function documentState(id: string) {
  const [doc] = await rows<{ status: string; delivery_status: string }>(
    sql`SELECT status, delivery_status FROM journal_documents WHERE id = ${id}`,
  );
  const lines = await rows<{ state: string }>(sql`SELECT state FROM payment_lines WHERE document_id = ${id}`);
  const events = await rows<{ type: string }>(
    sql`SELECT type FROM outbox_events WHERE payload->'data'->>'documentId' = ${id} ORDER BY id`,
  );
  const held = await rows<{ n: string }>(
    sql`SELECT count(*) AS n FROM held_status_reports WHERE outbound_document_id = ${id}`,
  );
  return {
    status: doc!.status,
    delivery: doc!.delivery_status,
    lines: lines.map((l) => l.state),
    events: events.map((e) => e.type),
    held: Number(held[0]!.n),
  };
}

async function reportMatch(reportId: string) {
  const [doc] = await rows<{ details: { match: Record<string, unknown> } }>(
    sql`SELECT details FROM journal_documents WHERE id = ${reportId}`,
  );
  return doc!.details.match;
}

test('a pain.002 picked up while its delivery is under way is held, then applied when the delivery is recorded', async () => {
  const id = await submitPayment();
  let content = '';
  let reportId = '';
  const ctx = {
    ...t.ctx,
    channels: answeringChannels(async (file) => {
      content = answerTo(file, 'HELD-1');
      const [received] = await pickUp([content]);
      assert.ok(received?.ok, 'the report is journaled, not refused');
      reportId = received.result.body.id;
      assert.equal(received.statusReport?.match.held, true);
      // Nothing applied yet: the document is still being delivered.
      assert.deepEqual(await documentState(id), {
        status: 'converted',
        delivery: 'in-progress',
        lines: ['pending'],
        events: [],
        held: 1,
      });
    }),
  };
  assert.deepEqual(await deliverDocuments(ctx, [job(id)]), ['delivered']);
  assert.deepEqual(await documentState(id), {
    status: 'executed',
    delivery: 'delivered',
    lines: ['cleared'],
    events: ['payment.sent', 'payment.executed'],
    held: 0,
  });
  const match = await reportMatch(reportId);
  assert.equal(match.status, 'executed');
  assert.equal(match.previousStatus, 'sent');
  assert.equal(match.held, undefined);
  assert.equal(typeof match.heldUntil, 'string');

  // The bank offers the same report again (its receipt was lost): deduped, nothing applied twice.
  const [again] = await pickUp([content]);
  assert.ok(again?.ok);
  assert.equal(again.result.status, 200);
  assert.equal(again.result.body.id, reportId);
  assert.deepEqual((await documentState(id)).events, ['payment.sent', 'payment.executed']);
  const audit = await rows<{ type: string }>(
    sql`SELECT type FROM activity_events WHERE company_id = ${sandbox.companyId}
         AND (metadata->>'documentId' = ${id} OR metadata->>'matchedDocumentId' = ${id}) ORDER BY seq`,
  );
  assert.deepEqual(
    audit.map((a) => a.type).filter((type) => type !== 'payment.submitted' && type !== 'journal.document.created'),
    ['journal.document.ingested', 'payment.delivered', 'payment.status_changed'],
  );
});

test('a batch with reports about delivered and still-delivering payments takes both: one applied, one held', async () => {
  const [early, late] = [await submitPayment(), await submitPayment()];
  // `early` is delivered first; its answer comes in the same pickup as `late`'s, during late's upload.
  let earlyAnswer = '';
  await deliverDocuments(
    {
      ...t.ctx,
      channels: answeringChannels(async (file) => {
        earlyAnswer = answerTo(file, 'BATCH-EARLY');
      }),
    },
    [job(early)],
  );
  let received: Awaited<ReturnType<typeof pickUp>> = [];
  const ctx = {
    ...t.ctx,
    channels: answeringChannels(async (file) => {
      received = await pickUp([earlyAnswer, answerTo(file, 'BATCH-LATE')]);
    }),
  };
  assert.deepEqual(await deliverDocuments(ctx, [job(late)]), ['delivered']);
  assert.deepEqual(
    received.map((r) => (r.ok ? [r.statusReport?.match.status, r.statusReport?.match.held ?? false] : ['failed'])),
    [
      ['executed', false],
      ['converted', true],
    ],
  );
  assert.equal((await documentState(early)).status, 'executed');
  const after = await documentState(late);
  assert.equal(after.status, 'executed');
  assert.deepEqual(after.events, ['payment.sent', 'payment.executed']);
  assert.equal(after.held, 0);
});

test('a rejecting report held during the upload rejects the payment once the delivery is recorded', async () => {
  const id = await submitPayment('REJECT:AC04');
  const ctx = {
    ...t.ctx,
    channels: answeringChannels(async (file) => {
      const [r] = await pickUp([answerTo(file, 'HELD-RJCT')]);
      assert.ok(r?.ok);
      assert.equal(r.statusReport?.match.held, true);
    }),
  };
  assert.deepEqual(await deliverDocuments(ctx, [job(id)]), ['delivered']);
  const state = await documentState(id);
  assert.equal(state.status, 'rejected');
  assert.deepEqual(state.lines, ['rejected']);
  assert.deepEqual(state.events, ['payment.sent', 'payment.rejected']);
});

test('a report held for a delivery that is retried stays held until the retry is recorded', async () => {
  const id = await submitPayment();
  const failing = {
    ...t.ctx,
    channels: answeringChannels(
      async (file) => {
        await pickUp([answerTo(file, 'HELD-RETRY')]);
      },
      { fail: new ChannelError('transport', 'the connection broke after the upload', true) },
    ),
  };
  assert.deepEqual(await deliverDocuments(failing, [job(id)]), ['retry']);
  assert.deepEqual(await documentState(id), {
    status: 'converted',
    delivery: 'retrying',
    lines: ['pending'],
    events: [],
    held: 1,
  });
  // The retry: the bank recognises the file; nothing new is answered.
  const retry = { ...t.ctx, channels: answeringChannels(async () => {}) };
  assert.deepEqual(await deliverDocuments(retry, [{ ...job(id), attempt: { retryCount: 1, retryLimit: 10 } }]), [
    'delivered',
  ]);
  const state = await documentState(id);
  assert.equal(state.status, 'executed');
  assert.deepEqual(state.events, ['payment.sent', 'payment.executed']);
  assert.equal(state.held, 0);
});

test('uploads in flight at once deliver every document of a batch exactly once', async () => {
  const ids: string[] = [];
  for (let i = 0; i < 9; i++) ids.push(await submitPayment());
  const uploads: string[] = [];
  let inFlight = 0;
  let most = 0;
  const ctx = {
    ...t.ctx,
    channels: answeringChannels(
      async (file) => {
        inFlight++;
        most = Math.max(most, inFlight);
        uploads.push(file.documentId);
        await new Promise((resolve) => setImmediate(resolve));
        inFlight--;
      },
      { inFlight: 4 },
    ),
  };
  // The same job twice in a batch (a lease that expired while its first run went on) sends once.
  const outcomes = await deliverDocuments(ctx, [...ids.map(job), job(ids[0]!)]);
  assert.deepEqual(outcomes, [...ids.map(() => 'delivered'), 'skipped']);
  assert.equal(most, 4);
  assert.deepEqual([...uploads].sort(), [...ids].sort());
  for (const id of ids) assert.equal((await documentState(id)).status, 'sent');
});

test('a statement fetched while a delivery is under way is left at the bank, then taken once the delivery is recorded', async () => {
  const id = await submitPayment();
  let statement = '';
  const acknowledged: string[] = [];
  const channel: BankChannel = {
    kind: 'answering',
    async deliver(file) {
      const delivered = deliveredFileFromPain001(file.content)!;
      statement = demoCamt053(
        delivered,
        { messageId: 'STM-DEFER', statementId: 'STM-DEFER', sequence: 7 },
        '2026-12-03T09:00:00Z',
      );
      // The bank's statement already books the payment; a pickup runs before the upload is recorded.
      const result = await pickUpFrom(ctx, connection!);
      assert.deepEqual(result, { files: 0, failed: 0, deferred: 1 });
      assert.deepEqual(acknowledged, []);
      return { channel: 'answering', reference: file.fileName, alreadyDelivered: false };
    },
    fetchInbound: async () =>
      statement ? [{ name: 'STM-DEFER.xml', content: new TextEncoder().encode(statement) }] : [],
    acknowledge: async (file) => void acknowledged.push(file.name),
    close: async () => {},
  };
  const ctx = {
    ...t.ctx,
    channels: { open: () => channel, webServices: t.ctx.channels.webServices, ebics: t.ctx.channels.ebics },
  };
  const connection = await findConnectionFor(t.ctx.db, scope(), 'demo', 'test');
  assert.ok(connection);
  assert.deepEqual(await deliverDocuments(ctx, [job(id)]), ['delivered']);
  // No delivery under way now: the statement is journaled, proves the line and is acknowledged.
  assert.deepEqual(await pickUpFrom(ctx, connection), { files: 1, failed: 0, deferred: 0 });
  assert.deepEqual(acknowledged, ['STM-DEFER.xml']);
  const lines = await rows<{ state: string; open_until: Date | null }>(
    sql`SELECT state, open_until FROM payment_lines WHERE document_id = ${id}`,
  );
  assert.deepEqual(
    lines.map((l) => [l.state, l.open_until]),
    [['cleared', null]],
  );
  assert.equal((await documentState(id)).status, 'executed');
});
