import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertError, body, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { sharedCorpusMissing } from '../support/shared-corpus.ts';
import { corpusFile } from './payment-status-helpers.ts';

let t: TestApp;
let sandbox: Awaited<ReturnType<typeof provisionAndLogin>>;
let other: Awaited<ReturnType<typeof provisionAndLogin>>;
before(async () => {
  t = await startTestApp();
  sandbox = await provisionAndLogin(t);
  other = await provisionAndLogin(t);
});
after(() => t.close());

type Account = {
  id: string;
  platformId: string;
  companyId: string;
  iban: string | null;
  accountOther: string | null;
  country: string | null;
  currency: string | null;
  bankKey: string | null;
  bankName: string | null;
  connected: boolean;
  lastReceivedData: string | null;
  latestBalance: string | null;
  latestBalanceCurrency: string | null;
  latestBalanceDate: string | null;
};
type Balance = { amount: string; currency: string; direction: string; date: string | null };
type Statements = {
  account: Account;
  statements: Array<{
    documentId: string;
    fromDate: string | null;
    toDate: string | null;
    sequenceNumber: string | null;
    opening: Balance | null;
    closing: Balance | null;
    txCount: number;
  }>;
  gaps: Array<{ kind: string; reason: string; afterDocumentId: string; beforeDocumentId: string }>;
};

const ingest = async (content: string, extra: Record<string, unknown> = {}) => {
  const res = await t.request({
    method: 'POST',
    url: '/journal/ingest',
    headers: { 'x-api-key': sandbox.apiKey },
    payload: { companyId: sandbox.companyId, content, ...extra },
  });
  assert.ok(res.statusCode === 201 || res.statusCode === 207, res.body);
  return body<{ ingest: { statements: Array<{ documentId: string }> } }>(res);
};
const get = (url: string, token = sandbox.sessionToken) =>
  t.request({ method: 'GET', url, headers: { 'x-session-token': token } });

test('a statement creates the bank account; the list masks balances, the statements view shows them', {
  skip: sharedCorpusMissing,
}, async () => {
  const file = await ingest(corpusFile('camt053/genkgo-camt__camt053.v2.multi.statement.xml'), {
    bankKey: 'demo',
    environment: 'test',
  });
  const list = await get(`/accounts?companyId=${sandbox.companyId}`);
  assert.equal(list.statusCode, 200, list.body);
  const page = body<{ items: Account[]; nextCursor: string | null; total: number }>(list);
  assert.equal(page.total, 1);
  assert.equal(page.nextCursor, null);
  const account = page.items[0]!;
  assert.match(account.id, /^acct_/);
  assert.equal(account.iban, 'NL26VAYB8060476890');
  assert.equal(account.country, 'NL');
  assert.equal(account.currency, 'EUR');
  assert.equal(account.bankKey, 'demo');
  assert.equal(typeof account.bankName, 'string');
  assert.equal(account.connected, true, 'the sandbox company has a demo-bank connection');
  assert.equal(account.latestBalance, '***');
  assert.equal(account.latestBalanceCurrency, 'EUR');
  assert.equal(account.latestBalanceDate, '2014-12-31');
  assert.ok(account.lastReceivedData);

  for (const ref of [account.id, account.iban!]) {
    const res = await get(`/accounts/statements?companyId=${sandbox.companyId}&account=${ref}`);
    assert.equal(res.statusCode, 200, res.body);
    const view = body<Statements>(res);
    assert.equal(view.account.id, account.id);
    assert.equal(view.account.latestBalance, '20.00', 'the closing balance of the newest statement');
    assert.deepEqual(
      view.statements.map((s) => [s.documentId, s.opening?.amount, s.closing?.amount, s.txCount]),
      [
        [file.ingest.statements[0]!.documentId, '18.15', '27.00', 1],
        [file.ingest.statements[1]!.documentId, '27.00', '20.00', 1],
      ],
    );
    assert.deepEqual(view.statements[0]!.closing, {
      amount: '27.00',
      currency: 'EUR',
      direction: 'credit',
      date: '2014-12-31',
    });
    assert.equal(view.statements[0]!.sequenceNumber, '12312');
    assert.deepEqual(view.gaps, []);
  }
});

test('an account without a connection to its bank is not connected; a proprietary account id finds it too', {
  skip: sharedCorpusMissing,
}, async () => {
  await ingest(corpusFile('mt940/zilverline-mt940__sns__sns.txt'));
  const res = await get(`/accounts/statements?companyId=${sandbox.companyId}&account=NL16SNSB1234567809`);
  assert.equal(res.statusCode, 200, res.body);
  const view = body<Statements>(res);
  assert.equal(view.account.accountOther, 'NL16SNSB1234567809');
  assert.equal(view.account.connected, false);
  assert.equal(view.account.bankKey, null);
  assert.equal(view.account.latestBalance, '45546.48');
  assert.equal(view.account.latestBalanceDate, '2014-09-22');
  assert.equal(view.statements.length, 16);
});

test('gaps: a sequence number skip and an opening balance that differs from the previous closing', {
  skip: sharedCorpusMissing,
}, async () => {
  const sns = body<Statements>(
    await get(`/accounts/statements?companyId=${sandbox.companyId}&account=NL16SNSB1234567809`),
  );
  // 19/1, 20/1, then 252/1: the statements in between never arrived. Balances chain throughout.
  assert.deepEqual(
    sns.gaps.map((g) => [g.kind, g.afterDocumentId, g.beforeDocumentId]),
    [['sequence', sns.statements[1]!.documentId, sns.statements[2]!.documentId]],
  );
  assert.match(sns.gaps[0]!.reason, /252\/1 follows 20\/1/);

  const file = await ingest(corpusFile('mt940/WoLpH-mt940__jejik__abnamro.sta'));
  const res = await get(`/accounts/statements?companyId=${sandbox.companyId}&account=517852257`);
  const abn = body<Statements>(res);
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(abn.gaps, [
    {
      kind: 'balance',
      reason: 'opening balance 2876.84 EUR differs from the previous closing balance 876.84 EUR',
      afterDocumentId: file.ingest.statements[0]!.documentId,
      beforeDocumentId: file.ingest.statements[1]!.documentId,
    },
  ]);
});

test('a newer statement moves the latest balance; an older one only lastReceivedData', {
  skip: sharedCorpusMissing,
}, async () => {
  // Danske Bank DK example: 15 statements of one account, continuous balances and sequence numbers.
  const content = corpusFile('mt940/svenstaro-mt940-rs__danskebank__MT940_DK_Example.sta');
  await ingest(content);
  const account = encodeURIComponent('DABADKKK/1234567890');
  const view = body<Statements>(await get(`/accounts/statements?companyId=${sandbox.companyId}&account=${account}`));
  assert.equal(view.account.currency, 'DKK');
  assert.equal(view.statements.length, 15);
  assert.deepEqual(view.gaps, []);
  const newest = view.statements[view.statements.length - 1]!;
  assert.equal(
    view.account.latestBalance,
    newest.closing!.direction === 'debit' ? `-${newest.closing!.amount}` : newest.closing!.amount,
  );
  assert.equal(view.account.latestBalanceDate, newest.closing!.date);

  // The first statement again, in a file of its own: already journaled, so deduped.
  const start = content.indexOf(':20:');
  const firstOnly = content.slice(start, content.indexOf(':20:', start + 1));
  const res = await t.request({
    method: 'POST',
    url: '/journal/ingest',
    headers: { 'x-api-key': sandbox.apiKey },
    payload: { companyId: sandbox.companyId, content: firstOnly },
  });
  assert.equal(res.statusCode, 200, `the first statement is already journaled: ${res.body}`);

  // Re-issued under a new reference: a new statement, older than the balance held. It is journaled
  // and counts as data received, but the latest balance stays the newest one.
  const reissued = firstOnly.replace(/:20:[^\r\n]*/, ':20:REISSUED-1');
  const older = await t.request({
    method: 'POST',
    url: '/journal/ingest',
    headers: { 'x-api-key': sandbox.apiKey },
    payload: { companyId: sandbox.companyId, content: reissued },
  });
  assert.equal(older.statusCode, 201, older.body);
  const after = body<Statements>(
    await get(`/accounts/statements?companyId=${sandbox.companyId}&account=${view.account.id}`),
  );
  assert.equal(after.statements.length, 16);
  assert.equal(after.account.latestBalance, view.account.latestBalance);
  assert.equal(after.account.latestBalanceDate, view.account.latestBalanceDate);
  assert.ok(after.account.lastReceivedData! >= view.account.lastReceivedData!);
});

test('paging the account list', { skip: sharedCorpusMissing }, async () => {
  const first = body<{ items: Account[]; nextCursor: string | null; total: number }>(
    await get(`/accounts?companyId=${sandbox.companyId}&limit=2`),
  );
  assert.equal(first.items.length, 2);
  assert.ok(first.nextCursor);
  const rest = body<{ items: Account[]; nextCursor: string | null; total: number }>(
    await get(`/accounts?companyId=${sandbox.companyId}&limit=100&cursor=${first.nextCursor}`),
  );
  assert.equal(first.total, rest.total);
  const ids = [...first.items, ...rest.items].map((a) => a.id);
  assert.equal(new Set(ids).size, first.total);
  assert.ok(rest.items.every((a) => a.latestBalance === null || a.latestBalance === '***'));
});

test('credentials and tenancy: key 403, other company 403, unknown company 404, unknown or foreign account 404', {
  skip: sharedCorpusMissing,
}, async () => {
  const keyed = await t.request({
    method: 'GET',
    url: `/accounts?companyId=${sandbox.companyId}`,
    headers: { 'x-api-key': sandbox.apiKey },
  });
  assertError(keyed, 403, 'forbidden');
  assertError(
    await t.request({
      method: 'GET',
      url: `/accounts/statements?companyId=${sandbox.companyId}&account=x`,
      headers: { 'x-api-key': sandbox.apiKey },
    }),
    403,
    'forbidden',
  );
  assertError(await t.request({ method: 'GET', url: `/accounts?companyId=${sandbox.companyId}` }), 401, 'unauthorized');
  assertError(await get(`/accounts?companyId=${other.companyId}`), 403, 'forbidden');
  assertError(await get('/accounts?companyId=comp_unknown'), 404, 'not_found');
  assertError(await get(`/accounts/statements?companyId=${sandbox.companyId}&account=acct_nope`), 404, 'not_found');

  // Another tenant's account, asked for through the caller's own company: not found.
  const mine = body<{ items: Account[] }>(await get(`/accounts?companyId=${sandbox.companyId}`)).items[0]!;
  assertError(
    await get(`/accounts/statements?companyId=${other.companyId}&account=${mine.id}`, other.sessionToken),
    404,
    'not_found',
  );
  const theirs = body<{ items: Account[]; total: number }>(
    await get(`/accounts?companyId=${other.companyId}`, other.sessionToken),
  );
  assert.equal(theirs.total, 0);
});
