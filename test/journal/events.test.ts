import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { sql } from 'drizzle-orm';
import { recordEvent } from '../../src/app/audit/record.ts';
import { verifyCompanyChain } from '../../src/app/audit/verify.ts';
import { assertError, body, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';

let t: TestApp;
let a: Awaited<ReturnType<typeof provisionAndLogin>>;
let b: Awaited<ReturnType<typeof provisionAndLogin>>;
let connectionA: string;
let connectionB: string;

type Event = {
  id: string;
  seq: number;
  type: string;
  message: string;
  prevHash: string;
  hash: string;
  metadata: Record<string, unknown>;
};
type Page = { items: Event[]; nextCursor: string | null };

async function connectionOf(s: typeof a): Promise<string> {
  const res = await t.request({
    method: 'GET',
    url: `/connections?platformId=${s.platformId}&companyId=${s.companyId}`,
    headers: { 'x-session-token': s.sessionToken },
  });
  return body<{ items: Array<{ id: string }> }>(res).items[0]!.id;
}

async function record(
  s: typeof a,
  type: string,
  stamp: { bankKey?: string; environment?: string; connectionId?: string } = {},
) {
  await t.ctx.db.transaction((tx) =>
    recordEvent(t.ctx, tx, {
      platformId: s.platformId,
      companyId: s.companyId,
      type,
      message: `${type} happened`,
      metadata: { stamp },
      ...stamp,
    }),
  );
}

before(async () => {
  t = await startTestApp();
  a = await provisionAndLogin(t);
  b = await provisionAndLogin(t);
  connectionA = await connectionOf(a);
  connectionB = await connectionOf(b);
  // The sandbox's demo connection is in the test environment.
  await record(a, 'own.connection', { connectionId: connectionA, bankKey: 'demo', environment: 'test' });
  await record(a, 'bank.test', { bankKey: 'demo', environment: 'test' });
  await record(a, 'bank.production', { bankKey: 'demo', environment: 'production' });
  await record(a, 'bank.none', { bankKey: 'demo' });
  await record(a, 'other.bank', { bankKey: 'nordea-fi', environment: 'test' });
  await record(a, 'company.level');
  for (let i = 0; i < 7; i++) await record(a, `filler.${i}`);
  await record(b, 'b.only', { bankKey: 'demo', environment: 'test' });
});
after(() => t.close());

function events(query: string, apiKey = a.apiKey) {
  return t.request({
    method: 'GET',
    url: `/journal/events?companyId=${a.companyId}&${query}`,
    headers: { 'x-api-key': apiKey },
  });
}

async function allSeqs(): Promise<number[]> {
  const res = await t.ctx.db.execute<{ seq: string }>(
    sql`SELECT seq::text AS seq FROM activity_events WHERE chain_id = ${a.companyId} ORDER BY activity_events.seq`,
  );
  return res.rows.map((r) => Number(r.seq));
}

test('default mode: newest first by cursor; a non-null nextCursor means truncated', async () => {
  const seqs = await allSeqs();
  assert.deepEqual(
    seqs,
    seqs.map((_, i) => i + 1),
    'seq counts from 1 without gaps',
  );
  const seen: number[] = [];
  let cursor: string | null = null;
  do {
    const res = await events(`limit=4${cursor ? `&cursor=${cursor}` : ''}`);
    assert.equal(res.statusCode, 200, res.body);
    const page = body<Page>(res);
    seen.push(...page.items.map((e) => e.seq));
    cursor = page.nextCursor;
    if (cursor !== null) assert.equal(page.items.length, 4);
  } while (cursor !== null);
  assert.deepEqual(seen, [...seqs].reverse());
  const whole = body<Page>(await events(''));
  assert.equal(whole.items.length, seqs.length);
  assert.equal(whole.nextCursor, null);
  const first = whole.items[0]!;
  assert.deepEqual(Object.keys(first).sort(), [
    'actorUserId',
    'companyId',
    'createdAt',
    'expiresAt',
    'hash',
    'id',
    'message',
    'metadata',
    'platformId',
    'prevHash',
    'seq',
    'type',
  ]);
  assert.equal(whole.items[1]!.hash, first.prevHash, 'each event links to the one before');
  assert.ok(!whole.items.some((e) => e.type === 'b.only'), 'another company’s events never appear');
});

test('since mode: oldest first after the seq; nextCursor is the next since value, null when caught up', async () => {
  const seqs = await allSeqs();
  const seen: number[] = [];
  let since = '0';
  let pages = 0;
  for (;;) {
    const page = body<Page>(await events(`since=${since}&limit=5`));
    seen.push(...page.items.map((e) => e.seq));
    pages++;
    if (page.nextCursor === null) break;
    assert.equal(page.nextCursor, String(page.items[page.items.length - 1]!.seq));
    since = page.nextCursor;
  }
  assert.deepEqual(seen, seqs);
  assert.equal(pages, Math.ceil(seqs.length / 5) + (seqs.length % 5 === 0 ? 1 : 0));
  const caughtUp = body<Page>(await events(`since=${seqs[seqs.length - 1]}`));
  assert.deepEqual(caughtUp, { items: [], nextCursor: null });
  // New events are picked up from where the client stopped.
  await record(a, 'late.event');
  const late = body<Page>(await events(`since=${seqs[seqs.length - 1]}`));
  assert.deepEqual(
    late.items.map((e) => e.type),
    ['late.event'],
  );
});

test('since and cursor together are 400; bad since, limit or cursor are 400; scope errors', async () => {
  const page = body<Page>(await events('limit=1'));
  assertError(await events(`since=0&cursor=${page.nextCursor}`), 400, 'bad_request');
  assertError(await events('since=-1'), 400, 'validation_failed');
  assertError(await events('since=abc'), 400, 'validation_failed');
  assertError(await events('limit=5001'), 400, 'validation_failed');
  assertError(await events('cursor=zzzz'), 400, 'bad_request');
  assertError(await events('', b.apiKey), 403, 'forbidden');
  assertError(await t.request({ method: 'GET', url: `/journal/events?companyId=${a.companyId}` }), 401, 'unauthorized');
});

test('connectionId narrows to the channel: its own events and its bank’s in its environment, none-environment kept', async () => {
  const page = body<Page>(await events(`connectionId=${connectionA}`));
  const types = page.items.map((e) => e.type);
  for (const kept of ['own.connection', 'bank.test', 'bank.none']) assert.ok(types.includes(kept), kept);
  for (const dropped of ['bank.production', 'other.bank', 'company.level', 'filler.0'])
    assert.ok(!types.includes(dropped), dropped);
  // Both modes narrow alike.
  const since = body<Page>(await events(`connectionId=${connectionA}&since=0`));
  assert.deepEqual(
    since.items.map((e) => e.seq),
    page.items.map((e) => e.seq).reverse(),
  );
  assertError(await events('connectionId=conn_unknown'), 404, 'connection_not_found');
  // Another company's connection is not one of this company's connections.
  assertError(await events(`connectionId=${connectionB}`), 404, 'connection_not_found');
});

test('documentId narrows to the events naming that document (the dashboard timeline), in both modes', async () => {
  const about = async (s: typeof a, type: string, documentId: string) =>
    t.ctx.db.transaction((tx) =>
      recordEvent(t.ctx, tx, {
        platformId: s.platformId,
        companyId: s.companyId,
        type,
        message: `${type} of ${documentId}`,
        metadata: { documentId },
      }),
    );
  await about(a, 'doc.one.submitted', 'doc_timeline_1');
  await about(a, 'doc.two.submitted', 'doc_timeline_2');
  await about(a, 'doc.one.executed', 'doc_timeline_1');
  await about(b, 'doc.one.elsewhere', 'doc_timeline_1');
  const page = body<Page>(await events('documentId=doc_timeline_1'));
  assert.deepEqual(
    page.items.map((e) => e.type),
    ['doc.one.executed', 'doc.one.submitted'],
  );
  const since = body<Page>(await events('documentId=doc_timeline_1&since=0'));
  assert.deepEqual(
    since.items.map((e) => e.type),
    ['doc.one.submitted', 'doc.one.executed'],
  );
  assert.deepEqual(body<Page>(await events('documentId=doc_unknown')).items, []);
  assertError(await events(`documentId=doc_timeline_1&connectionId=${connectionA}`), 400, 'bad_request');
});

test('the chain verifies; tampering with one stored event makes the verifier and the CLI fail at that seq', async () => {
  const scope = { platformId: a.platformId, companyId: a.companyId };
  const seqs = await allSeqs();
  const ok = await verifyCompanyChain(t.ctx.db, scope, 3);
  assert.deepEqual(ok, { ok: true, checked: seqs.length, firstSeq: 1, lastSeq: seqs.length });

  const cli = (companyId: string) =>
    promisify(execFile)(process.execPath, ['src/main/cli.ts', 'verify-audit', companyId], {
      env: { ...process.env, DATABASE_URL: t.databaseUrl },
    }).then(
      (r) => ({ code: 0, stdout: r.stdout }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout + e.stderr }),
    );
  const clean = await cli(a.companyId);
  assert.equal(clean.code, 0, clean.stdout);
  assert.match(clean.stdout, new RegExp(`^OK ${seqs.length} events verified`));

  // Tamper with the 5th event's message, as someone with database access might.
  const target = await t.ctx.db.execute<{ id: string }>(
    sql`UPDATE activity_events SET message = 'nothing to see here' WHERE chain_id = ${a.companyId} AND seq = 5 RETURNING id`,
  );
  const tamperedId = target.rows[0]!.id;
  for (const pageSize of [2, 3, 1000]) {
    const verdict = await verifyCompanyChain(t.ctx.db, scope, pageSize);
    assert.deepEqual(verdict, {
      ok: false,
      checked: 4,
      brokenAtSeq: 5,
      eventId: tamperedId,
      reason: 'the hash does not match the event content',
    });
  }
  const broken = await cli(a.companyId);
  assert.equal(broken.code, 1);
  assert.match(broken.stdout, new RegExp(`BROKEN at seq 5, event ${tamperedId}: the hash does not match`));
  // B's chain is untouched.
  assert.equal((await cli(b.companyId)).code, 0);
  assert.equal((await cli('comp_unknown')).code, 2);
});

test('a removed event in the middle of the chain is a broken link', async () => {
  const scope = { platformId: b.platformId, companyId: b.companyId };
  for (let i = 0; i < 4; i++) await record(b, `b.filler.${i}`);
  await t.ctx.db.execute(sql`DELETE FROM activity_events WHERE chain_id = ${b.companyId} AND seq = 3`);
  const verdict = await verifyCompanyChain(t.ctx.db, scope, 2);
  assert.equal(verdict.ok, false);
  assert.equal(verdict.ok === false && verdict.brokenAtSeq, 4);
});
