import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { manualClock } from '../../src/platform/clock.ts';
import { assertError, body, nextIp, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { seedInbound, seedOutbound } from './read-fixtures.ts';

const clock = manualClock(new Date('2026-03-10T12:00:00.000Z'));
let t: TestApp;
let a: Awaited<ReturnType<typeof provisionAndLogin>>;
let b: Awaited<ReturnType<typeof provisionAndLogin>>;
const scopeA = () => ({ platformId: a.platformId, companyId: a.companyId });

before(async () => {
  t = await startTestApp({ clock });
  a = await provisionAndLogin(t);
  b = await provisionAndLogin(t);
});
after(() => t.close());

type Exported = {
  exported: Array<{
    journalNo: string;
    documentId: string;
    direction: string;
    type: string;
    sourceFormat: string;
    bankKey: string;
    createdAt: string;
    wasAlreadyCollected: boolean;
    transactionCount: number;
  }>;
  notFound: string[];
};

function exportAs(headers: Record<string, string>, payload: Record<string, unknown>) {
  return t.request({ method: 'POST', url: '/journal/export', headers, payload });
}

async function collectedOf(id: string) {
  const res = await t.request({
    method: 'GET',
    url: `/journal/documents/${id}?companyId=${a.companyId}`,
    headers: { 'x-api-key': a.apiKey },
  });
  const doc = body<{ collected: boolean; collectedAt: string | null }>(res);
  return [doc.collected, doc.collectedAt];
}

test('export marks the documents collected; a second export says wasAlreadyCollected and keeps collectedAt', async () => {
  const out = await seedOutbound(t, scopeA(), { lines: [{ amount: '1.00' }, { amount: '2.00' }] });
  const inbound = await seedInbound(t, scopeA());
  const key = { 'x-api-key': a.apiKey };
  const first = await exportAs(key, { companyId: a.companyId, journalNos: [out.journalNo, inbound.journalNo] });
  assert.equal(first.statusCode, 200, first.body);
  assert.deepEqual(body<Exported>(first), {
    exported: [
      {
        journalNo: out.journalNo,
        documentId: out.id,
        direction: 'outbound',
        type: 'pain.001',
        sourceFormat: 'pain.001.001.03',
        bankKey: 'demo',
        createdAt: out.createdAt.toISOString(),
        wasAlreadyCollected: false,
        transactionCount: 2,
      },
      {
        journalNo: inbound.journalNo,
        documentId: inbound.id,
        direction: 'inbound',
        type: 'camt.053',
        sourceFormat: 'camt.053.001.02',
        bankKey: 'demo',
        createdAt: inbound.createdAt.toISOString(),
        wasAlreadyCollected: false,
        transactionCount: 0,
      },
    ],
    notFound: [],
  });
  const collectedAt = clock.now().toISOString();
  assert.deepEqual(await collectedOf(out.id), [true, collectedAt]);

  clock.advance(60_000);
  const again = await exportAs(key, { companyId: a.companyId, journalNos: [out.journalNo] });
  assert.equal(again.statusCode, 200);
  assert.equal(body<Exported>(again).exported[0]!.wasAlreadyCollected, true);
  assert.deepEqual(await collectedOf(out.id), [true, collectedAt]);

  // The export is in the audit trail, in the same transaction.
  const events = await t.ctx.db.execute<{ type: string; metadata: { collected: Array<{ journalNo: string }> } }>(
    sql`SELECT type, metadata FROM activity_events WHERE chain_id = ${a.companyId} AND type = 'journal.exported' ORDER BY seq`,
  );
  assert.equal(events.rows.length, 2);
  assert.deepEqual(
    events.rows[0]!.metadata.collected.map((c) => c.journalNo),
    [out.journalNo, inbound.journalNo],
  );
  assert.deepEqual(events.rows[1]!.metadata.collected, []);
});

test('207 with notFound when some journal numbers are not found; another company’s numbers are not found', async () => {
  const mine = await seedOutbound(t, scopeA());
  const theirs = await seedOutbound(t, { platformId: b.platformId, companyId: b.companyId });
  // B's journal number names a document only within B: here it is not found (A may have no such number yet).
  const res = await exportAs(
    { 'x-api-key': a.apiKey },
    { companyId: a.companyId, journalNos: [mine.journalNo, 'OUT-999999'] },
  );
  assert.equal(res.statusCode, 207, res.body);
  const parsed = body<Exported>(res);
  assert.deepEqual(
    parsed.exported.map((e) => e.documentId),
    [mine.id],
  );
  assert.deepEqual(parsed.notFound, ['OUT-999999']);
  // B's document stays uncollected whatever A exports.
  await exportAs({ 'x-api-key': a.apiKey }, { companyId: a.companyId, journalNos: [theirs.journalNo] });
  const bDoc = await t.request({
    method: 'GET',
    url: `/journal/documents/${theirs.id}?companyId=${b.companyId}`,
    headers: { 'x-api-key': b.apiKey },
  });
  assert.equal(body<{ collected: boolean }>(bDoc).collected, false);

  const none = await exportAs({ 'x-api-key': a.apiKey }, { companyId: a.companyId, journalNos: ['OUT-888888'] });
  assert.equal(none.statusCode, 200);
  assert.deepEqual(body(none), { exported: [], notFound: ['OUT-888888'] });
});

test('the filter narrows the export; the rest is reported not found', async () => {
  const out = await seedOutbound(t, scopeA());
  const inbound = await seedInbound(t, scopeA());
  const res = await exportAs(
    { 'x-api-key': a.apiKey },
    { companyId: a.companyId, journalNos: [out.journalNo, inbound.journalNo], filter: { direction: 'inbound' } },
  );
  assert.equal(res.statusCode, 207);
  assert.deepEqual(body<Exported>(res).notFound, [out.journalNo]);
  assert.deepEqual(await collectedOf(out.id), [false, null]);
});

test('scope and credentials: a company admin session may export, another human session gets 403 admin_required', async () => {
  const out = await seedOutbound(t, scopeA());
  const admin = await exportAs(
    { 'x-session-token': a.sessionToken },
    { companyId: a.companyId, journalNos: [out.journalNo] },
  );
  assert.equal(admin.statusCode, 200, admin.body);
  const event = await t.ctx.db.execute<{ actor_user_id: string | null }>(
    sql`SELECT actor_user_id FROM activity_events WHERE chain_id = ${a.companyId} AND type = 'journal.exported' ORDER BY seq DESC LIMIT 1`,
  );
  assert.ok(event.rows[0]!.actor_user_id?.startsWith('usr_'));

  // A viewer of the same company is a human session but not an admin.
  const created = await t.request({
    method: 'POST',
    url: '/users',
    headers: { 'x-session-token': a.sessionToken },
    payload: {
      platformId: a.platformId,
      companyId: a.companyId,
      email: 'viewer@example.com',
      name: 'Vera Viewer',
      roles: ['viewer'],
      password: 'correct horse battery',
    },
  });
  assert.equal(created.statusCode, 201, created.body);
  const login = await t.request({
    method: 'POST',
    url: '/auth/login',
    payload: { email: 'viewer@example.com', password: 'correct horse battery' },
    remoteAddress: nextIp(),
  });
  const viewer = body<{ sessionToken: string }>(login).sessionToken;
  assertError(
    await exportAs({ 'x-session-token': viewer }, { companyId: a.companyId, journalNos: [out.journalNo] }),
    403,
    'admin_required',
  );
  // B's admin session on A's company: outside its platform.
  assertError(
    await exportAs({ 'x-session-token': b.sessionToken }, { companyId: a.companyId, journalNos: [out.journalNo] }),
    403,
    'forbidden',
  );
  assertError(await exportAs({}, { companyId: a.companyId, journalNos: [out.journalNo] }), 401, 'unauthorized');
  assertError(
    await exportAs({ 'x-api-key': a.apiKey }, { companyId: b.companyId, journalNos: [out.journalNo] }),
    403,
    'forbidden',
  );
  assertError(
    await exportAs(
      { 'x-api-key': a.apiKey },
      { companyId: a.companyId, platformId: b.platformId, journalNos: [out.journalNo] },
    ),
    403,
    'forbidden',
  );
  assertError(await exportAs({ 'x-api-key': a.apiKey }, { companyId: a.companyId }), 400, 'validation_failed');
});
