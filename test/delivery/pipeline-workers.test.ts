/**
 * The pipeline's workers on a real PostgreSQL (issue 21): deliveries claimed and recorded in
 * batches, typed channel errors (a permanent one ends the delivery at once, with its reason, logged
 * at warn), the demo bank behind the channel interface recognising a repeated file, the job
 * catalogue refusing a payload that does not fit, and a transaction that meets a real deadlock run
 * again, or failing with an error that names the cause.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import type { AppContext } from '../../src/app/context.ts';
import { deliverDocuments } from '../../src/app/delivery/deliver-document.ts';
import { type DemoBankReplyJob, pickUpDemoBankAnswers } from '../../src/app/delivery/demo-bank-answers.ts';
import type { BankChannel } from '../../src/channels/channel.ts';
import { ChannelError } from '../../src/channels/errors.ts';
import { TransactionConflictError, transactionWithRetry } from '../../src/db/conflict-retry.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { openJobQueue } from '../../src/workers/job-queue.ts';
import { JobPayloadError } from '../../src/workers/jobs.ts';
import { startWorkers } from '../../src/workers/runner.ts';
import { provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';

let t: TestApp;
let sandbox: Awaited<ReturnType<typeof provisionAndLogin>>;
const logLines: string[] = [];

before(async () => {
  // The demo bank's answers are due at once: the tests below pick them up right after delivery.
  t = await startTestApp({
    env: { DEMO_BANK_DELAY_MS: '0' },
    logger: createLogger('warn', { write: (chunk: string) => void logLines.push(chunk) }),
  });
  sandbox = await provisionAndLogin(t);
});
after(() => t.close());

let submitted = 0;
async function submitPayment(): Promise<string> {
  submitted++;
  const n = String(submitted).padStart(4, '0');
  const body = JSON.parse(
    JSON.stringify(sandbox.firstPayment.body)
      .replace(/SANDBOX-(\d{8})-0001/g, `PIPE-$1-${n}`)
      .replaceAll('E2E-0001', `E2E-P${n}`)
      .replaceAll('PMT-0001', `PMT-P${n}`),
  ) as Record<string, unknown>;
  const res = await t.request({
    method: 'POST',
    url: '/journal/payments',
    headers: { 'x-api-key': sandbox.apiKey, 'idempotency-key': `PIPE-${n}` },
    payload: { ...body, companyId: sandbox.companyId },
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

test('a batch of delivery jobs: each claimable document delivered once, the rest skipped', async () => {
  const ids = [await submitPayment(), await submitPayment(), await submitPayment()];
  const cancelled = await t.request({
    method: 'POST',
    url: `/journal/documents/${ids[2]}/cancel`,
    headers: { 'x-api-key': sandbox.apiKey },
    payload: { companyId: sandbox.companyId },
  });
  assert.equal(cancelled.statusCode, 200, cancelled.body);
  // The same document twice in one batch (a lease that ran out while its first run went on).
  const outcomes = await deliverDocuments(t.ctx, [job(ids[0]!), job(ids[1]!), job(ids[0]!), job(ids[2]!)]);
  assert.deepEqual(outcomes, ['delivered', 'delivered', 'skipped', 'skipped']);
  const docs = await rows<{ id: string; status: string; delivery_status: string }>(
    sql`SELECT id, status, delivery_status FROM journal_documents WHERE id IN (${ids[0]}, ${ids[1]}, ${ids[2]}) ORDER BY id`,
  );
  const byId = new Map(docs.map((d) => [d.id, d]));
  assert.equal(byId.get(ids[0]!)?.status, 'sent');
  assert.equal(byId.get(ids[1]!)?.delivery_status, 'delivered');
  assert.equal(byId.get(ids[2]!)?.status, 'cancelled');
  // The demo bank got each file once and scheduled one reply each.
  const inbox = await rows<{ document_id: string; receipts: number }>(
    sql`SELECT document_id, receipts FROM demo_bank_files WHERE company_id = ${sandbox.companyId} ORDER BY document_id`,
  );
  assert.deepEqual(
    inbox.map((r) => [r.document_id, r.receipts]),
    [ids[0]!, ids[1]!].sort().map((id) => [id, 1]),
  );
  // Delivered again (a worker killed between upload and record): the bank recognises the file.
  const again = await deliverDocuments(t.ctx, [job(ids[0]!)]);
  assert.deepEqual(again, ['skipped'], 'a delivered document is not sent again');
});

/** The sandbox company's channel to the demo bank, as delivery opens it. */
const demoTarget = () => ({
  platformId: sandbox.platformId,
  companyId: sandbox.companyId,
  bankKey: 'demo',
  channel: 'DEMO',
  environment: 'test',
  config: null,
});

test('the demo bank is a channel like any other: a repeated file is recognised and answered once', async () => {
  const id = await submitPayment();
  const connection = await rows<{ id: string }>(
    sql`SELECT id FROM connections WHERE company_id = ${sandbox.companyId} AND bank_key = 'demo'`,
  );
  assert.equal(connection.length, 1);
  const target = demoTarget();
  const file = { fileName: `OUT-X-${id}.xml`, content: '<Document/>', documentId: id, messageId: null };
  const first = await t.ctx.channels.open(target).deliver(file);
  const second = await t.ctx.channels.open(target).deliver(file);
  assert.equal(first.alreadyDelivered, false);
  assert.equal(second.alreadyDelivered, true);
  assert.equal(second.reference, first.reference);
  const replies = await rows<{ n: number }>(
    sql`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'demo-bank-reply' AND data->>'documentId' = ${id}`,
  );
  assert.equal(replies[0]!.n, 1);
  const inbox = await rows<{ receipts: number }>(
    sql`SELECT receipts FROM demo_bank_files WHERE file_name = ${file.fileName}`,
  );
  assert.equal(inbox[0]!.receipts, 2);
});

test('the demo bank takes a delivery batch in one call: each file once, a repeat in or after the batch recognised', async () => {
  const [a, b] = [await submitPayment(), await submitPayment()];
  const target = demoTarget();
  const file = (id: string) => ({
    fileName: `OUT-Y-${id}.xml`,
    content: '<Document/>',
    documentId: id,
    messageId: null,
  });
  const channel = t.ctx.channels.open(target);
  assert.ok(channel.deliverMany, 'the demo channel takes batches');
  const first = await channel.deliverMany([file(a), file(b), file(a)]);
  assert.deepEqual(
    first.map((r) => r.alreadyDelivered),
    [false, false, true],
  );
  const again = await channel.deliverMany([file(b)]);
  assert.deepEqual(
    again.map((r) => [r.alreadyDelivered, r.reference]),
    [[true, first[1]!.reference]],
  );
  const replies = await rows<{ id: string; n: number }>(
    sql`SELECT data->>'documentId' AS id, count(*)::int AS n FROM pgboss.job
         WHERE name = 'demo-bank-reply' AND data->>'documentId' IN (${a}, ${b}) GROUP BY 1 ORDER BY 1`,
  );
  assert.deepEqual(
    replies.map((r) => r.n),
    [1, 1],
  );
  const inbox = await rows<{ receipts: number }>(
    sql`SELECT receipts FROM demo_bank_files WHERE document_id IN (${a}, ${b}) ORDER BY document_id`,
  );
  assert.deepEqual(inbox.map((r) => r.receipts).sort(), [1, 2]);
});

function failingChannels(error: Error): AppContext['channels'] {
  const channel: BankChannel = {
    kind: 'failing',
    deliver: async () => {
      throw error;
    },
    fetchInbound: async () => [],
    acknowledge: async () => {},
    close: async () => {},
  };
  return { open: () => channel, webServices: t.ctx.channels.webServices, ebics: t.ctx.channels.ebics };
}

test('a permanent channel error ends the delivery at once with its reason on the document, logged at warn', async () => {
  const id = await submitPayment();
  const ctx = {
    ...t.ctx,
    channels: failingChannels(new ChannelError('auth_failed', 'the bank refused our credentials', false)),
  };
  logLines.length = 0;
  assert.deepEqual(await deliverDocuments(ctx, [job(id)]), ['failed']);
  const [doc] = await rows<{ status: string; delivery_status: string; details: { delivery: Record<string, unknown> } }>(
    sql`SELECT status, delivery_status, details FROM journal_documents WHERE id = ${id}`,
  );
  assert.equal(doc!.status, 'converted');
  assert.equal(doc!.delivery_status, 'failed');
  assert.equal(doc!.details.delivery.failedReason, 'the bank refused our credentials');
  assert.equal(doc!.details.delivery.errorCode, 'auth_failed');
  const warned = logLines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.documentId === id);
  assert.equal(warned.length, 1);
  assert.equal(warned[0]!.level, 40);
  assert.equal(warned[0]!.reason, 'the bank refused our credentials');
  assert.equal(warned[0]!.retryable, false);
});

test('a retryable channel error leaves the delivery retrying while attempts are left, logged at warn', async () => {
  const id = await submitPayment();
  const ctx = { ...t.ctx, channels: failingChannels(new ChannelError('timeout', 'the bank did not answer', true)) };
  logLines.length = 0;
  assert.deepEqual(await deliverDocuments(ctx, [job(id)]), ['retry']);
  const [doc] = await rows<{ delivery_status: string }>(
    sql`SELECT delivery_status FROM journal_documents WHERE id = ${id}`,
  );
  assert.equal(doc!.delivery_status, 'retrying');
  assert.ok(logLines.some((l) => l.includes(id) && l.includes('the bank did not answer')));
  // The next attempt through the demo bank goes through.
  assert.deepEqual(await deliverDocuments(t.ctx, [{ ...job(id), attempt: { retryCount: 1, retryLimit: 10 } }]), [
    'delivered',
  ]);
});

test('the job catalogue refuses a payload that does not fit its schema, and enqueues nothing', async () => {
  const before = await rows<{ n: number }>(sql`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'bank-delivery'`);
  await assert.rejects(
    t.ctx.jobs.send('bankDelivery', { documentId: '', platformId: 'plat_x', companyId: 'comp_x' }),
    (error: unknown) => error instanceof JobPayloadError && /bank-delivery .*\/documentId/.test(error.message),
  );
  await assert.rejects(
    t.ctx.jobs.send('demoBankReply', {
      documentId: 'doc_x',
      platformId: 'plat_x',
      companyId: 'comp_x',
      replyAt: 'tomorrow',
    }),
    JobPayloadError,
  );
  const afterwards = await rows<{ n: number }>(
    sql`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'bank-delivery'`,
  );
  assert.equal(afterwards[0]!.n, before[0]!.n);
});

test('a transaction that meets a real deadlock runs again; when it never gets through, the error names the cause', async () => {
  await t.ctx.db.execute(sql`CREATE TABLE IF NOT EXISTS deadlock_probe (id int PRIMARY KEY, n int NOT NULL)`);
  await t.ctx.db.execute(sql`INSERT INTO deadlock_probe VALUES (1, 0), (2, 0) ON CONFLICT (id) DO UPDATE SET n = 0`);
  // Two transactions take the rows in opposite orders; each waits for the other to hold its first row.
  const barrier = () => {
    let arrived = 0;
    let release!: () => void;
    const all = new Promise<void>((r) => {
      release = r;
    });
    return async () => {
      arrived++;
      if (arrived === 2) release();
      await all;
    };
  };
  const crossing = (attempts: number) => {
    const meet = barrier();
    let runs = 0;
    const take = (first: number, second: number) =>
      transactionWithRetry(
        t.ctx.db,
        `probe ${first}->${second}`,
        async (tx) => {
          runs++;
          await tx.execute(sql`UPDATE deadlock_probe SET n = n + 1 WHERE id = ${first}`);
          if (runs <= 2) await meet();
          await tx.execute(sql`UPDATE deadlock_probe SET n = n + 1 WHERE id = ${second}`);
        },
        { attempts },
      );
    return Promise.allSettled([take(1, 2), take(2, 1)]);
  };
  const retried = await crossing(4);
  assert.deepEqual(
    retried.map((r) => r.status),
    ['fulfilled', 'fulfilled'],
  );
  const counts = await rows<{ n: number }>(sql`SELECT n FROM deadlock_probe ORDER BY id`);
  assert.deepEqual(
    counts.map((c) => c.n),
    [2, 2],
    'each transaction committed once',
  );

  const once = await crossing(1);
  const failed = once.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
  assert.equal(failed.length, 1);
  assert.ok(failed[0]!.reason instanceof TransactionConflictError);
  assert.match(failed[0]!.reason.message, /^probe \d->\d: deadlock detected \(SQLSTATE 40P01\) in each of 1 attempts$/);
});

test('a job whose payload does not fit is refused when it runs: failed at once, never retried', async () => {
  // Written past the catalogue's check (as an older version or a hand-made row might have).
  const id = await t.jobQueue.boss.send('bank-delivery', { documentId: 42 });
  const queue = await openJobQueue(t.databaseUrl, t.ctx.logger, { supervise: true });
  try {
    await startWorkers({ ...t.ctx, jobs: queue.queue }, queue.boss);
    let state = '';
    for (let i = 0; i < 300 && state !== 'failed'; i++) {
      const [row] = await rows<{ state: string }>(sql`SELECT state FROM pgboss.job WHERE id = ${id}`);
      state = row?.state ?? '';
      if (state !== 'failed') await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(state, 'failed');
    const [row] = await rows<{ retry_count: number; output: { error: string } }>(
      sql`SELECT retry_count, output FROM pgboss.job WHERE id = ${id}`,
    );
    assert.equal(row!.retry_count, 0);
    assert.match(row!.output.error, /bank-delivery job payload is invalid: .*platformId/);
  } finally {
    await queue.stop();
  }
});

/** Collects whatever the demo bank still has for the company (the answers to earlier tests' deliveries). */
async function drainDemoBank(): Promise<void> {
  const notice = { documentId: 'doc_none', platformId: sandbox.platformId, companyId: sandbox.companyId };
  await pickUpDemoBankAnswers(t.ctx, [{ ...notice, replyAt: new Date().toISOString() }]);
}

test('the demo bank answers a batch with a pain.002 per file and one statement booking them all, once', async () => {
  await drainDemoBank();
  const ids = [await submitPayment(), await submitPayment(), await submitPayment()];
  assert.deepEqual(await deliverDocuments(t.ctx, ids.map(job)), ['delivered', 'delivered', 'delivered']);
  const replies = (
    await rows<{ data: DemoBankReplyJob }>(
      sql`SELECT data FROM pgboss.job WHERE name = 'demo-bank-reply' AND data->>'documentId' IN (${ids[0]}, ${ids[1]}, ${ids[2]})`,
    )
  ).map((r) => r.data);
  assert.equal(replies.length, 3);
  const inbound = () =>
    rows<{ type: string; n: number }>(
      sql`SELECT type, count(*)::int AS n FROM journal_documents
           WHERE company_id = ${sandbox.companyId} AND direction = 'inbound' AND import_source = 'demo-bank'
           GROUP BY type ORDER BY type`,
    );
  const before = await inbound();
  const logged = logLines.length;
  assert.deepEqual(await pickUpDemoBankAnswers(t.ctx, replies), [true, true, true]);
  // Answered set-wise, not through the file-by-file fallback (docs/adr/0051).
  assert.ok(!logLines.slice(logged).some((l) => l.includes('journaled again file by file')));
  const added = (await inbound()).map((r) => [r.type, r.n - (before.find((b) => b.type === r.type)?.n ?? 0)]);
  assert.deepEqual(added, [
    ['camt.053', 1],
    ['pain.002', 3],
  ]);
  const docs = await rows<{ status: string }>(
    sql`SELECT status FROM journal_documents WHERE id IN (${ids[0]}, ${ids[1]}, ${ids[2]})`,
  );
  assert.deepEqual(
    docs.map((d) => d.status),
    ['executed', 'executed', 'executed'],
  );
  // Run again (a worker killed after the commit, before its jobs were settled): nothing new.
  const events = await rows<{ n: number }>(
    sql`SELECT count(*)::int AS n FROM activity_events WHERE company_id = ${sandbox.companyId}`,
  );
  assert.deepEqual(await pickUpDemoBankAnswers(t.ctx, replies), [true, true, true]);
  assert.deepEqual(
    (await inbound()).map((r) => [r.type, r.n - (before.find((b) => b.type === r.type)?.n ?? 0)]),
    added,
  );
  const again = await rows<{ n: number }>(
    sql`SELECT count(*)::int AS n FROM activity_events WHERE company_id = ${sandbox.companyId}`,
  );
  assert.equal(again[0]!.n, events[0]!.n);
});

test('a file of a demo-bank batch that fails rolls back alone: the others are answered, its job runs again', async () => {
  await drainDemoBank();
  const ids = [await submitPayment(), await submitPayment(), await submitPayment()].sort();
  assert.deepEqual(await deliverDocuments(t.ctx, ids.map(job)), ['delivered', 'delivered', 'delivered']);
  const replies = (
    await rows<{ data: DemoBankReplyJob }>(
      sql`SELECT data FROM pgboss.job WHERE name = 'demo-bank-reply' AND data->>'documentId' IN (${ids[0]}, ${ids[1]}, ${ids[2]})
           ORDER BY data->>'documentId'`,
    )
  ).map((r) => r.data);
  const [middle] = await rows<{ journal_no: string }>(
    sql`SELECT journal_no FROM journal_documents WHERE id = ${ids[1]}`,
  );
  // The database refuses the middle payment's status report (a fault put in for the test).
  await t.ctx.db.execute(
    sql.raw(`CREATE FUNCTION refuse_report() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.type = 'pain.002' AND NEW.summary LIKE '% for ${middle!.journal_no} %' THEN
          RAISE EXCEPTION 'refused for the test';
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER refuse_report BEFORE INSERT ON journal_documents FOR EACH ROW EXECUTE FUNCTION refuse_report()`),
  );
  const statuses = async () =>
    (
      await rows<{ id: string; status: string }>(
        sql`SELECT id, status FROM journal_documents WHERE id IN (${ids[0]}, ${ids[1]}, ${ids[2]}) ORDER BY id`,
      )
    ).map((d) => d.status);
  const reportsOf = async () =>
    (
      await rows<{ n: number }>(
        sql`SELECT count(*)::int AS n FROM journal_documents WHERE type = 'pain.002' AND company_id = ${sandbox.companyId}
          AND details->'match'->>'documentId' IN (${ids[0]}, ${ids[1]}, ${ids[2]})`,
      )
    )[0]!.n;
  try {
    // The notices are settled; the refused report stays at the bank, and a notice is sent again.
    assert.deepEqual(await pickUpDemoBankAnswers(t.ctx, replies), [true, true, true]);
    // The statement books every line, the refused report's too.
    assert.deepEqual(await statuses(), ['executed', 'executed', 'executed']);
    assert.equal(await reportsOf(), 2);
    assert.ok(logLines.some((l) => l.includes('bank file not ingested')));
    assert.ok(logLines.some((l) => l.includes('journaled again file by file')));
  } finally {
    await t.ctx.db.execute(sql.raw('DROP TRIGGER refuse_report ON journal_documents; DROP FUNCTION refuse_report()'));
  }
  // The bank hands the file out again once its lease runs out (here at once): taken now, the others not twice.
  await t.ctx.db.execute(sql`UPDATE demo_bank_files SET claimed_until = NULL WHERE document_id = ${ids[1]}`);
  assert.deepEqual(await pickUpDemoBankAnswers(t.ctx, [replies[1]!]), [true]);
  assert.deepEqual(await statuses(), ['executed', 'executed', 'executed']);
  const [reports] = await rows<{ n: number }>(
    sql`SELECT count(*)::int AS n FROM journal_documents WHERE type = 'pain.002' AND company_id = ${sandbox.companyId}
          AND details->'match'->>'documentId' IN (${ids[0]}, ${ids[1]}, ${ids[2]})`,
  );
  assert.equal(reports!.n, 3);
});
