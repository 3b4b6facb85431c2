import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { manualClock } from '../../src/platform/clock.ts';
import { assertError, body, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { seedInbound, seedOutbound } from './read-fixtures.ts';

const clock = manualClock(new Date('2026-03-10T12:00:00.000Z'));
let t: TestApp;
let a: Awaited<ReturnType<typeof provisionAndLogin>>;
let b: Awaited<ReturnType<typeof provisionAndLogin>>;
const scopeA = () => ({ platformId: a.platformId, companyId: a.companyId });
const scopeB = () => ({ platformId: b.platformId, companyId: b.companyId });

before(async () => {
  t = await startTestApp({ clock });
  a = await provisionAndLogin(t);
  b = await provisionAndLogin(t);
});
after(() => t.close());

type Summary = Record<string, unknown> & { id: string; journalNo: string; createdAt: string };
type Page = { items: Summary[]; nextCursor: string | null; total: number; totalExact: boolean };

function get(url: string, apiKey = a.apiKey) {
  return t.request({ method: 'GET', url, headers: { 'x-api-key': apiKey } });
}

async function documents(query: string, apiKey = a.apiKey): Promise<Page> {
  const res = await get(`/journal/documents?companyId=${a.companyId}&${query}`, apiKey);
  assert.equal(res.statusCode, 200, res.body);
  return body<Page>(res);
}

test('GET /journal/documents: credentials and company scope', async () => {
  const none = await t.request({ method: 'GET', url: `/journal/documents?companyId=${a.companyId}` });
  assertError(none, 401, 'unauthorized');
  // B's company named with A's key: a scope outside the key's platform.
  assertError(await get(`/journal/documents?companyId=${b.companyId}`), 403, 'forbidden');
  assertError(await get('/journal/documents?companyId=comp_doesnotexist'), 404, 'not_found');
  assertError(await get('/journal/documents'), 400, 'validation_failed');
  const session = await t.request({
    method: 'GET',
    url: `/journal/documents?companyId=${a.companyId}`,
    headers: { 'x-session-token': a.sessionToken },
  });
  assertError(session, 403, 'forbidden');
});

test('keyset paging newest first: no duplicates and no gaps while documents are inserted between pages', async () => {
  clock.set(new Date('2026-04-01T08:00:00.000Z'));
  const seeded: string[] = [];
  for (let i = 0; i < 23; i++) {
    // Every third document shares its timestamp with the one before: the id breaks the tie.
    if (i % 3 !== 0) clock.advance(1000);
    seeded.push((await seedOutbound(t, scopeA(), { summary: `paging ${i}` })).id);
  }
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page: Page = await documents(`q=paging&limit=5${cursor ? `&cursor=${cursor}` : ''}`);
    for (let i = 1; i < page.items.length; i++) {
      const [x, y] = [page.items[i - 1]!, page.items[i]!];
      assert.ok(x.createdAt > y.createdAt || (x.createdAt === y.createdAt && x.id > y.id), 'newest first');
    }
    seen.push(...page.items.map((d) => d.id));
    cursor = page.nextCursor;
    pages++;
    // New documents arrive while the client pages (newer than everything seen).
    clock.advance(1000);
    await seedOutbound(t, scopeA(), { summary: `paging late ${pages}` });
  } while (cursor !== null);
  assert.equal(pages, 5);
  assert.equal(new Set(seen).size, seen.length, 'no duplicates');
  assert.deepEqual([...seen].sort(), [...seeded].sort(), 'exactly the documents present when paging started');
  // The first page now starts with the late arrivals, and total counts them.
  const fresh = await documents('q=paging&limit=5');
  assert.equal(fresh.total, 23 + 5);
  assert.equal(fresh.totalExact, true);
  assert.match(String(fresh.items[0]!.summary), /late 5/);
});

test('a malformed cursor is 400', async () => {
  assertError(await get(`/journal/documents?companyId=${a.companyId}&cursor=bm9wZQ`), 400, 'bad_request');
  assertError(await get(`/journal/documents?companyId=${a.companyId}&cursor=***`), 400, 'bad_request');
});

test('summaries are metadata only and another company never appears', async () => {
  clock.set(new Date('2026-04-02T08:00:00.000Z'));
  const other = await seedOutbound(t, scopeB(), { summary: 'tenant-b secret' });
  const mine = await seedOutbound(t, scopeA(), { summary: 'tenant-a visible' });
  const page = await documents('limit=1000');
  assert.ok(page.items.some((d) => d.id === mine.id));
  assert.ok(!page.items.some((d) => d.id === other.id));
  assert.equal((await documents('q=tenant-b')).total, 0);
  const item = page.items.find((d) => d.id === mine.id)!;
  for (const field of ['payload', 'xml', 'payloadSealed', 'fileSealed']) assert.equal(field in item, false, field);
  assert.equal(item.journalNo.startsWith('OUT-'), true);
  assert.equal(item.bankName !== undefined, true);
  assert.equal(item.collected, false);
  // B sees its own document with its own key.
  const bPage = await t.request({
    method: 'GET',
    url: `/journal/documents?companyId=${b.companyId}`,
    headers: { 'x-api-key': b.apiKey },
  });
  assert.deepEqual(
    body<Page>(bPage).items.map((d) => d.id),
    [other.id],
  );
});

test('filters: direction, type, status OR-list, collected, q literal, dates, amounts on the page only', async () => {
  clock.set(new Date('2026-05-01T23:59:59.000Z'));
  const d1 = await seedOutbound(t, scopeA(), {
    summary: 'filter 100% discount',
    status: 'sent',
    lines: [{ amount: '5.00' }],
  });
  clock.set(new Date('2026-05-02T00:00:00.000Z'));
  const d2 = await seedOutbound(t, scopeA(), {
    summary: 'filter a_b',
    status: 'executed',
    lines: [{ amount: '100.00' }, { amount: '50.50' }],
  });
  clock.set(new Date('2026-05-03T10:00:00.000Z'));
  const d3 = await seedOutbound(t, scopeA(), {
    summary: 'filter axb',
    status: 'rejected',
    lines: [{ amount: '1000', currency: 'JPY' }],
  });
  clock.advance(1000);
  const d4 = await seedInbound(t, scopeA(), { summary: 'filter statement' });
  const ids = (p: Page) => p.items.map((d) => d.id);

  assert.deepEqual(ids(await documents('q=filter&direction=inbound')), [d4.id]);
  assert.deepEqual(ids(await documents('q=filter&type=camt.053')), [d4.id]);
  assert.deepEqual(ids(await documents('q=filter&direction=outbound')), [d3.id, d2.id, d1.id]);
  // Status: one or more exact statuses, comma-separated for OR.
  assert.deepEqual(ids(await documents('q=filter&status=sent,rejected')), [d3.id, d1.id]);
  assert.deepEqual(ids(await documents('q=filter&status=execut')), []);
  // q is literal: % and _ are not wildcards, and the search is case-insensitive.
  assert.deepEqual(ids(await documents(`q=${encodeURIComponent('100%')}`)), [d1.id]);
  assert.deepEqual(ids(await documents('q=A_B')), [d2.id]);
  // q covers the totals text, journal number, message id and status.
  assert.deepEqual(ids(await documents(`q=${encodeURIComponent('EUR 150.50')}`)), [d2.id]);
  assert.deepEqual(ids(await documents(`q=${encodeURIComponent(d3.messageId!)}`)), [d3.id]);
  assert.deepEqual(ids(await documents(`q=${d2.journalNo}&direction=outbound`)).includes(d2.id), true);
  // Dates are inclusive whole UTC days.
  assert.deepEqual(ids(await documents('q=filter&dateFrom=2026-05-02&dateTo=2026-05-02')), [d2.id]);
  assert.deepEqual(ids(await documents('q=filter&dateTo=2026-05-01')), [d1.id]);
  assert.deepEqual(ids(await documents('q=filter&dateFrom=2026-05-03')), [d4.id, d3.id]);
  assertError(await get(`/journal/documents?companyId=${a.companyId}&dateFrom=2026-02-30`), 400, 'bad_request');
  // Amounts: inclusive, exact, the page only; total still counts every match of the other filters.
  const ranged = await documents('q=filter&direction=outbound&amountMin=150.5&amountMax=1000');
  assert.deepEqual(ids(ranged), [d3.id, d2.id]);
  assert.equal(ranged.total, 3);
  assert.deepEqual(ids(await documents('q=filter&direction=outbound&amountMax=150.49')), [d1.id]);
  assert.deepEqual(ids(await documents('q=filter&direction=outbound&amountMin=150.501')), [d3.id]);
  // A non-numeric bound is ignored without error.
  assert.deepEqual(ids(await documents('q=filter&direction=outbound&amountMin=lots')), [d3.id, d2.id, d1.id]);
  // collected filters on the flag.
  assert.equal((await documents('q=filter&collected=true')).total, 0);
  assert.equal((await documents('q=filter&collected=false')).total, 4);
});

test('GET /journal/documents/{id}: decrypted payload; another tenant or unknown id is 404', async () => {
  const out = await seedOutbound(t, scopeA(), { messageId: 'MSG-PAYLOAD-1' });
  const res = await get(`/journal/documents/${out.id}?companyId=${a.companyId}`);
  assert.equal(res.statusCode, 200, res.body);
  const doc = body<Summary & { payload: { messageId: string } }>(res);
  assert.equal(doc.id, out.id);
  assert.equal(doc.journalNo, out.journalNo);
  assert.equal(doc.payload.messageId, 'MSG-PAYLOAD-1');
  const inbound = await seedInbound(t, scopeA());
  const inRes = await get(`/journal/documents/${inbound.id}?companyId=${a.companyId}`);
  assert.equal(body<{ payload: { accountIban: string } }>(inRes).payload.accountIban, 'FI2112345600000785');

  const foreign = await seedOutbound(t, scopeB());
  // A's key, A's company, B's document id: absent from A's scope.
  assertError(await get(`/journal/documents/${foreign.id}?companyId=${a.companyId}`), 404, 'not_found');
  assertError(await get(`/journal/documents/${foreign.id}?companyId=${b.companyId}`), 403, 'forbidden');
  assertError(await get(`/journal/documents/doc_unknown?companyId=${a.companyId}`), 404, 'not_found');
  for (const sub of ['payments', 'file']) {
    assertError(await get(`/journal/documents/${foreign.id}/${sub}?companyId=${a.companyId}`), 404, 'not_found');
  }
});

test('GET /journal/documents/{id}/file: the XML as an attachment, without setting collected', async () => {
  const out = await seedOutbound(t, scopeA(), { xml: '<Document>pain</Document>' });
  const res = await get(`/journal/documents/${out.id}/file?companyId=${a.companyId}`);
  assert.equal(res.statusCode, 200);
  assert.equal(res.body, '<Document>pain</Document>');
  assert.match(String(res.headers['content-type']), /^application\/xml/);
  assert.equal(res.headers['content-disposition'], `attachment; filename="${out.journalNo}.xml"`);
  const after = body<Summary>(await get(`/journal/documents/${out.id}?companyId=${a.companyId}`));
  assert.equal(after.collected, false);
  assert.equal(after.collectedAt, null);

  const inbound = await seedInbound(t, scopeA());
  assertError(await get(`/journal/documents/${inbound.id}/file?companyId=${a.companyId}`), 404, 'not_found');
  const noXml = await seedOutbound(t, scopeA(), { xml: null });
  assertError(await get(`/journal/documents/${noXml.id}/file?companyId=${a.companyId}`), 404, 'not_found');
});

type Lines = {
  documentId: string;
  journalNo: string;
  bankName: string;
  payments: Array<{
    index: number;
    payee: string;
    amount: string;
    currency: string;
    endToEndId: string;
    recon: { state: string; evidence: unknown };
  }>;
  approval: Record<string, unknown> | null;
  recon: { state: string; evidence: unknown };
};

test('GET /journal/documents/{id}/payments: lines with recon, document recon derived, approval summary', async () => {
  const out = await seedOutbound(t, scopeA(), {
    lines: [
      { amount: '12.50', payee: 'Acme Oy', endToEndId: 'E2E-A', state: 'cleared' },
      { amount: '99.99', payee: 'Beta AB', endToEndId: 'E2E-B' },
    ],
    evidence: { source: 'camt.053', summary: 'booked', amount: '12.50', currency: 'EUR' },
  });
  const res = await get(`/journal/documents/${out.id}/payments?companyId=${a.companyId}`);
  assert.equal(res.statusCode, 200, res.body);
  const view = body<Lines>(res);
  assert.equal(view.documentId, out.id);
  assert.equal(view.journalNo, out.journalNo);
  assert.deepEqual(
    view.payments.map((p) => [p.index, p.payee, p.amount, p.currency, p.endToEndId, p.recon.state]),
    [
      [0, 'Acme Oy', '12.50', 'EUR', 'E2E-A', 'cleared'],
      [1, 'Beta AB', '99.99', 'EUR', 'E2E-B', 'pending'],
    ],
  );
  assert.deepEqual(view.payments[0]!.recon.evidence, {
    source: 'camt.053',
    summary: 'booked',
    amount: '12.50',
    currency: 'EUR',
  });
  assert.equal(view.recon.state, 'pending');
  assert.equal(view.approval, null);

  // A pending approval written by the submit path (policy + approvals row) is summarised.
  const now = clock.now();
  const iso = now.toISOString();
  await t.ctx.db.execute(
    sql`INSERT INTO approval_policies (id, platform_id, company_id, name, min_amount, required_approvals, groups,
          require_one_from_each_group, ordered_approval, two_factor_required, created_at, updated_at)
        VALUES ('apol_t1', ${a.platformId}, ${a.companyId}, 'big', '50', 2,
          '[{"name":"cfo","userIds":[]},{"name":"ceo","userIds":[]}]', true, false, true, ${iso}, ${iso})`,
  );
  const users = await t.ctx.db.execute<{ id: string; name: string }>(
    sql`SELECT id, name FROM users WHERE company_id = ${a.companyId} LIMIT 1`,
  );
  const user = users.rows[0]!;
  const decisions = JSON.stringify([
    { userId: user.id, userName: 'Name at decision', decision: 'approve', at: '2026-05-01T10:00:00.000Z' },
  ]);
  // The rules the approval froze at submit are what the summary shows (the policy may have changed since).
  const rules = JSON.stringify({
    requiredApprovals: 2,
    groups: [
      { name: 'cfo', userIds: [user.id] },
      { name: 'ceo', userIds: [] },
    ],
    requireOneFromEachGroup: true,
    orderedApproval: false,
    twoFactorRequired: true,
  });
  await t.ctx.db.execute(
    sql`INSERT INTO approvals (id, platform_id, company_id, document_id, policy_id, policy_name, rules, status, decisions,
          created_at, updated_at, expires_at)
        VALUES ('appr_t1', ${a.platformId}, ${a.companyId}, ${out.id}, 'apol_t1', 'big', ${rules}::jsonb, 'pending',
          ${decisions}::jsonb, ${iso}, ${iso}, ${iso})`,
  );
  const withApproval = body<Lines>(await get(`/journal/documents/${out.id}/payments?companyId=${a.companyId}`));
  const summary = withApproval.approval!;
  assert.deepEqual(summary['groups'], [
    { name: 'cfo', satisfied: true },
    { name: 'ceo', satisfied: false },
  ]);
  const contractFields = [
    'id',
    'status',
    'paymentRef',
    'payeeName',
    'currency',
    'maxTransaction',
    'maxTransactionPayee',
    'journalTotal',
    'requiredApprovals',
    'requireOneFromEachGroup',
    'orderedApproval',
    'groupCount',
    'approvals',
    'rejections',
    'canApprove',
    'blockReason',
    'twoFactorRequired',
  ];
  assert.deepEqual(Object.fromEntries(contractFields.map((k) => [k, summary[k]])), {
    id: 'appr_t1',
    status: 'pending',
    paymentRef: out.messageId,
    payeeName: '2 payees',
    currency: 'EUR',
    maxTransaction: '99.99',
    maxTransactionPayee: 'Beta AB',
    journalTotal: '112.49',
    requiredApprovals: 2,
    requireOneFromEachGroup: true,
    orderedApproval: false,
    groupCount: 2,
    // The user's name now (an erased user shows as erased), not the one at decision time.
    approvals: [{ userId: user.id, userName: user.name, at: '2026-05-01T10:00:00.000Z' }],
    rejections: [],
    // An API key never decides.
    canApprove: false,
    blockReason: 'session_required',
    twoFactorRequired: true,
  });

  const inbound = await seedInbound(t, scopeA());
  assertError(await get(`/journal/documents/${inbound.id}/payments?companyId=${a.companyId}`), 404, 'not_found');
});

test('GET /journal/payment-types: outbound payments by type, weighted by transaction count', async () => {
  const c = await provisionAndLogin(t);
  const scope = { platformId: c.platformId, companyId: c.companyId };
  await seedOutbound(t, scope, {
    paymentType: 'SEPA',
    lines: [{ amount: '1.00' }, { amount: '2.00' }, { amount: '3.00' }],
  });
  await seedOutbound(t, scope, { paymentType: 'SEPA', lines: [{ amount: '1.00' }] });
  await seedOutbound(t, scope, { paymentType: 'DOMESTIC', lines: [{ amount: '1.00' }, { amount: '1.00' }] });
  await seedOutbound(t, scope, { paymentType: null });
  await seedInbound(t, scope);
  const res = await get(`/journal/payment-types?companyId=${c.companyId}`, c.apiKey);
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(body(res), { counts: { SEPA: 4, DOMESTIC: 2, unspecified: 1 }, total: 7, sampled: false });
});

test('GET /journal/reconciliation: outbound documents with the state their lines add up to', async () => {
  const c = await provisionAndLogin(t);
  const scope = { platformId: c.platformId, companyId: c.companyId };
  clock.set(new Date('2026-06-01T10:00:00.000Z'));
  const cleared = await seedOutbound(t, scope, {
    lines: [
      { amount: '1.00', state: 'cleared' },
      { amount: '2.00', state: 'cleared' },
    ],
    evidence: { source: 'pain.002', summary: 'ACSC' },
  });
  clock.advance(1000);
  const rejected = await seedOutbound(t, scope, {
    lines: [{ amount: '1.00', state: 'rejected' }],
    evidence: { source: 'pain.002', reason: 'AC04' },
  });
  clock.advance(1000);
  const mixed = await seedOutbound(t, scope, { lines: [{ amount: '1.00', state: 'cleared' }, { amount: '2.00' }] });
  clock.advance(1000);
  await seedInbound(t, scope);
  type Recon = {
    items: Array<{
      documentId: string;
      journalNo: string;
      state: string;
      evidence: unknown;
      totals: unknown;
      status: string;
    }>;
    nextCursor: string | null;
  };
  const first = body<Recon>(await get(`/journal/reconciliation?companyId=${c.companyId}&limit=2`, c.apiKey));
  assert.deepEqual(
    first.items.map((i) => [i.documentId, i.state]),
    [
      [mixed.id, 'pending'],
      [rejected.id, 'rejected'],
    ],
  );
  assert.deepEqual(first.items[1]!.evidence, { source: 'pain.002', reason: 'AC04' });
  assert.ok(first.nextCursor);
  const second = body<Recon>(
    await get(`/journal/reconciliation?companyId=${c.companyId}&limit=2&cursor=${first.nextCursor}`, c.apiKey),
  );
  assert.deepEqual(
    second.items.map((i) => [i.documentId, i.state, i.journalNo]),
    [[cleared.id, 'cleared', cleared.journalNo]],
  );
  assert.deepEqual(second.items[0]!.totals, [{ currency: 'EUR', amount: '3.00' }]);
  assert.equal(second.nextCursor, null);
  assertError(
    await get(`/journal/reconciliation?companyId=${c.companyId}&limit=1001`, c.apiKey),
    400,
    'validation_failed',
  );
});

test('GET /journal/list: newest first, counts, uncollectedOnly, limits', async () => {
  const c = await provisionAndLogin(t);
  const scope = { platformId: c.platformId, companyId: c.companyId };
  clock.set(new Date('2026-07-01T10:00:00.000Z'));
  const docs = [];
  for (let i = 0; i < 4; i++) {
    clock.advance(1000);
    docs.push(await seedOutbound(t, scope));
  }
  clock.advance(1000);
  const inbound = await seedInbound(t, scope);
  await t.ctx.db.execute(
    sql`UPDATE journal_documents SET collected = true, collected_at = now() WHERE id = ${docs[0]!.id}`,
  );
  type List = { total: number; uncollected: number; nextCursor: string | null; items: Array<Record<string, unknown>> };
  const list = body<List>(await get(`/journal/list?companyId=${c.companyId}`, c.apiKey));
  assert.equal(list.total, 5);
  assert.equal(list.uncollected, 4);
  assert.equal(list.nextCursor, null);
  assert.deepEqual(
    list.items.map((i) => i.journalNo),
    [inbound.journalNo, docs[3]!.journalNo, docs[2]!.journalNo, docs[1]!.journalNo, docs[0]!.journalNo],
  );
  assert.deepEqual(Object.keys(list.items[0]!).sort(), [
    'bankKey',
    'collected',
    'collectedAt',
    'createdAt',
    'direction',
    'expiresAt',
    'journalNo',
    'sourceFormat',
    'status',
    'summary',
    'type',
  ]);
  const uncollected = body<List>(
    await get(`/journal/list?companyId=${c.companyId}&uncollectedOnly=true&direction=outbound`, c.apiKey),
  );
  assert.deepEqual(
    uncollected.items.map((i) => i.journalNo),
    [docs[3]!.journalNo, docs[2]!.journalNo, docs[1]!.journalNo],
  );
  assert.equal(uncollected.total, 3);
  const paged = body<List>(await get(`/journal/list?companyId=${c.companyId}&limit=2`, c.apiKey));
  assert.equal(paged.items.length, 2);
  const rest = body<List>(
    await get(`/journal/list?companyId=${c.companyId}&limit=10&cursor=${paged.nextCursor}`, c.apiKey),
  );
  assert.equal(rest.items.length, 3);
  assert.equal(rest.nextCursor, null);
  assertError(await get(`/journal/list?companyId=${c.companyId}&limit=1001`, c.apiKey), 400, 'validation_failed');
});
