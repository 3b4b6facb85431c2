import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { recordEvent } from '../../src/app/audit/record.ts';
import { verifyCompanyChain } from '../../src/app/audit/verify.ts';
import { removeExpiredJournal } from '../../src/app/journal/retention.ts';
import { insertCompany } from '../../src/db/repositories/companies.ts';
import { manualClock } from '../../src/platform/clock.ts';
import { QUEUES } from '../../src/workers/jobs.ts';
import { provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { seedOutbound } from './read-fixtures.ts';

const DAY = 24 * 60 * 60 * 1000;
const clock = manualClock(new Date('2026-01-15T09:00:00.000Z'));
let t: TestApp;
let sandbox: Awaited<ReturnType<typeof provisionAndLogin>>;

before(async () => {
  // Workers run here, as in a worker process: the retention queue has its handler and schedule.
  t = await startTestApp({ clock, workers: true });
  sandbox = await provisionAndLogin(t);
});
after(() => t.close());

async function freshCompany(name: string) {
  const company = await insertCompany(t.ctx.db, {
    id: t.ctx.ids.next('comp'),
    platformId: sandbox.platformId,
    name,
    createdAt: clock.now(),
  });
  return { platformId: sandbox.platformId, companyId: company.id };
}

async function record(scope: { platformId: string; companyId: string }, type: string, environment: string | null) {
  await t.ctx.db.transaction((tx) => recordEvent(t.ctx, tx, { ...scope, type, message: type, environment }));
}

async function count(table: 'journal_documents' | 'activity_events' | 'payment_lines', companyId: string) {
  const res = await t.ctx.db.execute<{ n: number }>(
    sql`SELECT count(*)::int AS n FROM ${sql.identifier(table)} WHERE company_id = ${companyId}`,
  );
  return Number(res.rows[0]!.n);
}

test('expired documents (with their lines) and the expired prefix of each chain are removed; the chain still verifies', async () => {
  clock.set(new Date('2026-01-15T09:00:00.000Z'));
  const scope = await freshCompany('Retention Oy');
  const testDoc = await seedOutbound(t, scope, {
    environment: 'test',
    lines: [{ amount: '1.00' }, { amount: '2.00' }],
  });
  const prodDoc = await seedOutbound(t, scope, { environment: 'production' });
  // Chain: 1 test doc event, 2 production doc event (seeded above), then 3 test, 4 test, 5 none, 6 test.
  await record(scope, 'test.a', 'test');
  await record(scope, 'test.b', 'test');
  await record(scope, 'always', null);
  await record(scope, 'test.c', 'test');
  assert.deepEqual(await removeExpiredJournal(t.ctx), { documents: 0, events: 0 });

  // A year and a day later the test-environment records have expired (src/app/audit/retention-policy.ts).
  clock.advance(366 * DAY);
  const removed = await removeExpiredJournal(t.ctx);
  assert.ok(removed.documents >= 1);
  const docs = await t.ctx.db.execute<{ id: string }>(
    sql`SELECT id FROM journal_documents WHERE company_id = ${scope.companyId}`,
  );
  assert.deepEqual(
    docs.rows.map((r) => r.id),
    [prodDoc.id],
  );
  const lines = await t.ctx.db.execute<{ document_id: string }>(
    sql`SELECT document_id FROM payment_lines WHERE company_id = ${scope.companyId}`,
  );
  assert.ok(!lines.rows.some((l) => l.document_id === testDoc.id), 'payment lines go with their document');
  // Event 1 (test) is an expired prefix and goes; event 2 (production) stays, so the expired test
  // events after it stay too: the kept chain is a suffix and verifies.
  const seqs = await t.ctx.db.execute<{ seq: string; type: string }>(
    sql`SELECT seq::text AS seq, type FROM activity_events WHERE chain_id = ${scope.companyId} ORDER BY activity_events.seq`,
  );
  assert.deepEqual(
    seqs.rows.map((r) => Number(r.seq)),
    [2, 3, 4, 5, 6],
  );
  assert.deepEqual(await verifyCompanyChain(t.ctx.db, scope), { ok: true, checked: 5, firstSeq: 2, lastSeq: 6 });

  // New events continue the chain after retention.
  await record(scope, 'after.retention', null);
  const verdict = await verifyCompanyChain(t.ctx.db, scope);
  assert.equal(verdict.ok, true);
  assert.equal(verdict.ok && verdict.lastSeq, 7);
});

test('a chain of test-environment events only is removed whole once expired, and restarts verifiably', async () => {
  clock.set(new Date('2028-01-01T00:00:00.000Z'));
  const scope = await freshCompany('Only Test Oy');
  await record(scope, 'one', 'test');
  await record(scope, 'two', 'test');
  clock.advance(400 * DAY);
  await removeExpiredJournal(t.ctx);
  assert.equal(await count('activity_events', scope.companyId), 0);
  await record(scope, 'three', 'test');
  assert.deepEqual(await verifyCompanyChain(t.ctx.db, scope), { ok: true, checked: 1, firstSeq: 3, lastSeq: 3 });
});

test('the journal-retention queue is scheduled daily and its handler removes expired documents', async () => {
  const schedules = await t.ctx.db.execute<{ name: string; cron: string }>(
    sql`SELECT name, cron FROM pgboss.schedule WHERE name = ${QUEUES.journalRetention}`,
  );
  assert.equal(schedules.rows.length, 1);
  assert.match(schedules.rows[0]!.cron, /^\d+ \d+ \* \* \*$/);

  clock.set(new Date('2030-01-01T00:00:00.000Z'));
  const scope = await freshCompany('Queue Oy');
  await seedOutbound(t, scope, { environment: 'test' });
  clock.advance(366 * DAY);
  await t.ctx.jobs.send('journalRetention', {});
  for (let i = 0; i < 100 && (await count('journal_documents', scope.companyId)) > 0; i++)
    await new Promise((r) => setTimeout(r, 200));
  assert.equal(await count('journal_documents', scope.companyId), 0);
});
