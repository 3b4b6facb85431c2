import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { deliverDocument } from '../../src/app/delivery/deliver-document.ts';
import { pickUpDemoBankAnswers } from '../../src/app/delivery/demo-bank-answers.ts';
import { openJobQueue } from '../../src/workers/job-queue.ts';
import { startWorkers } from '../../src/workers/runner.ts';
import { provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';

/**
 * The demo bank's reply is a durable job: a process that stops after delivering loses nothing (the
 * next worker process answers), and a reply that runs twice (a crash after ingesting) duplicates nothing.
 */
let t: TestApp;
before(async () => {
  t = await startTestApp({ env: { DEMO_BANK_DELAY_MS: '100' } });
});
after(() => t.close());

async function count(sql: string, params: unknown[]): Promise<number> {
  const db = new pg.Client({ connectionString: t.databaseUrl });
  await db.connect();
  try {
    return Number((await db.query(sql, params)).rows[0].n);
  } finally {
    await db.end();
  }
}

test('delivered by one process, answered by the next; a repeated reply journals nothing twice', async () => {
  const sandbox = await provisionAndLogin(t);
  const body = sandbox.firstPayment.body;
  const submitted = await t.request({
    method: 'POST',
    url: '/journal/payments',
    headers: { 'x-api-key': sandbox.apiKey, 'idempotency-key': 'RESTART-1' },
    payload: { ...body, companyId: sandbox.companyId },
  });
  assert.equal(submitted.statusCode, 201, submitted.body);
  const documentId = (submitted.json() as { id: string }).id;
  const job = { documentId, platformId: sandbox.platformId, companyId: sandbox.companyId };

  // Process 1 delivers and "dies" before the demo bank answers (no workers run in this app).
  await deliverDocument(t.ctx, job, { retryCount: 0, retryLimit: 3 });
  const inbound = `SELECT count(*) AS n FROM journal_documents WHERE company_id = $1 AND direction = 'inbound'`;
  assert.equal(await count(inbound, [sandbox.companyId]), 0);

  // Process 2 starts its workers on the same database: the queued reply is answered.
  const queue = await openJobQueue(t.databaseUrl, t.ctx.logger, { supervise: true });
  try {
    await startWorkers({ ...t.ctx, jobs: queue.queue }, queue.boss);
    for (let i = 0; i < 600 && (await count(inbound, [sandbox.companyId])) < 2; i++)
      await new Promise((r) => setTimeout(r, 100));
  } finally {
    await queue.stop();
  }
  assert.equal(await count(inbound, [sandbox.companyId]), 2);
  const status = await count(`SELECT count(*) AS n FROM journal_documents WHERE id = $1 AND status = 'executed'`, [
    documentId,
  ]);
  assert.equal(status, 1);

  // The same reply again (a worker that crashed after ingesting and was retried): nothing new.
  const events = `SELECT count(*) AS n FROM activity_events WHERE company_id = $1`;
  const before = await count(events, [sandbox.companyId]);
  const replyAt = new Date(Date.now()).toISOString();
  const db = new pg.Client({ connectionString: t.databaseUrl });
  await db.connect();
  const original = await db.query(
    `SELECT data FROM pgboss.job WHERE name = 'demo-bank-reply' AND data->>'documentId' = $1`,
    [documentId],
  );
  await db.end();
  const data = original.rows[0]?.data as { replyAt: string } | undefined;
  assert.deepEqual(await pickUpDemoBankAnswers(t.ctx, [{ ...job, replyAt: data?.replyAt ?? replyAt }]), [true]);
  assert.equal(await count(inbound, [sandbox.companyId]), 2);
  assert.equal(await count(events, [sandbox.companyId]), before);
});
