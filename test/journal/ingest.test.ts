import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
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

type Ingest = {
  id: string;
  journalNo: string;
  direction: string;
  type: string;
  sourceFormat: string;
  status: string;
  companyId: string;
  accountIban: string | null;
  accountCurrency: string | null;
  transactionCount: number;
  deduped: boolean;
  ingest: {
    statementCount: number;
    ingested: number;
    deduped: number;
    quarantined: number;
    partial: boolean;
    statements: Array<{
      index: number;
      kind: string;
      documentId: string | null;
      journalNo: string | null;
      account: string | null;
      message: string | null;
    }>;
    alerts: Array<{
      kind: string;
      message: string;
      reason: string;
      account: string | null;
      unclosedBlockCount: number;
      survivingStatementCount: number;
    }>;
  };
};

const ingest = (payload: Record<string, unknown>, apiKey = sandbox.apiKey) =>
  t.request({ method: 'POST', url: '/journal/ingest', headers: { 'x-api-key': apiKey }, payload });

async function rows<T>(query: ReturnType<typeof sql>): Promise<T[]> {
  return (await t.ctx.db.execute(query)).rows as T[];
}

async function inboundCount(companyId: string): Promise<number> {
  const [r] = await rows<{ n: number }>(
    sql`SELECT count(*)::int AS n FROM journal_documents WHERE company_id = ${companyId} AND direction = 'inbound'`,
  );
  return r!.n;
}

test('a camt.053 with two statements: 201, one IN-<n> document per statement, sealed payloads, an audit event each', {
  skip: sharedCorpusMissing,
}, async () => {
  const content = corpusFile('camt053/genkgo-camt__camt053.v2.multi.statement.xml');
  const res = await ingest({ companyId: sandbox.companyId, content, bankKey: 'demo', environment: 'test' });
  assert.equal(res.statusCode, 201, res.body);
  const doc = body<Ingest>(res);
  assert.equal(doc.journalNo, 'IN-1');
  assert.equal(doc.direction, 'inbound');
  assert.equal(doc.type, 'camt.053');
  assert.equal(doc.sourceFormat, 'camt.053.001.02');
  assert.equal(doc.status, 'ingested');
  assert.equal(doc.accountIban, 'NL26VAYB8060476890');
  assert.equal(doc.accountCurrency, 'EUR');
  assert.equal(doc.transactionCount, 1);
  assert.equal(doc.deduped, false);
  assert.deepEqual(
    { ...doc.ingest, statements: undefined },
    { statementCount: 2, ingested: 2, deduped: 0, quarantined: 0, partial: false, statements: undefined, alerts: [] },
  );
  assert.deepEqual(
    doc.ingest.statements.map((s) => [s.index, s.kind, s.journalNo, s.account]),
    [
      [0, 'ingested', 'IN-1', 'NL26VAYB8060476890'],
      [1, 'ingested', 'IN-2', 'NL26VAYB8060476890'],
    ],
  );
  assert.equal(doc.ingest.statements[0]!.documentId, doc.id);

  const stored = await rows<{
    id: string;
    block_index: number;
    content_digest: string;
    payload_sealed: string | null;
    file_sealed: string | null;
    environment: string;
  }>(
    sql`SELECT id, block_index, content_digest, payload_sealed, file_sealed, environment FROM journal_documents
        WHERE company_id = ${sandbox.companyId} AND direction = 'inbound' ORDER BY block_index`,
  );
  assert.equal(stored.length, 2);
  assert.equal(stored[0]!.content_digest, stored[1]!.content_digest);
  assert.match(stored[0]!.content_digest, /^[0-9a-f]{64}$/);
  // The normalised statement is sealed per document; the raw file once, on the first block's document.
  const statement = JSON.parse(t.ctx.encryptor.decrypt(stored[1]!.payload_sealed!)) as { statementId: string };
  assert.equal(statement.statementId, '254EURNL26VAYB8060476890');
  assert.equal(t.ctx.encryptor.decrypt(stored[0]!.file_sealed!), content);
  assert.equal(stored[1]!.file_sealed, null);
  assert.ok(!stored[0]!.payload_sealed!.includes('NL26VAYB'), 'payload encrypted at rest');
  assert.equal(stored[0]!.environment, 'test');

  const events = await rows<{ type: string; metadata: { documentId: string } }>(
    sql`SELECT type, metadata FROM activity_events WHERE company_id = ${sandbox.companyId}
        AND type = 'journal.document.ingested' ORDER BY seq`,
  );
  assert.deepEqual(
    events.map((e) => e.metadata.documentId),
    stored.map((s) => s.id),
  );
});

test('an MT940 with several statements: 201, documents in block order, environment defaults to production', {
  skip: sharedCorpusMissing,
}, async () => {
  const content = corpusFile('mt940/zilverline-mt940__sns__sns.txt');
  const res = await ingest({ companyId: sandbox.companyId, content });
  assert.equal(res.statusCode, 201, res.body);
  const doc = body<Ingest>(res);
  assert.equal(doc.type, 'mt940');
  assert.equal(doc.sourceFormat, 'MT940');
  assert.equal(doc.ingest.statementCount, 16);
  assert.equal(doc.ingest.ingested, 16);
  const numbers = doc.ingest.statements.map((s) => Number(s.journalNo!.slice(3)));
  assert.deepEqual(
    numbers,
    numbers.map((_, i) => numbers[0]! + i),
  );
  const [env] = await rows<{ environment: string }>(
    sql`SELECT environment FROM journal_documents WHERE id = ${doc.id}`,
  );
  assert.equal(env!.environment, 'production');
});

test('an incomplete MT940: 207 with the quarantined block and the incomplete_file alert', {
  skip: sharedCorpusMissing,
}, async () => {
  const before = await inboundCount(sandbox.companyId);
  const res = await ingest({
    companyId: sandbox.companyId,
    content: corpusFile('mt940/fruitl00p-php-mt940__Rabo__sample2'),
  });
  assert.equal(res.statusCode, 207, res.body);
  const doc = body<Ingest>(res);
  assert.equal(doc.ingest.statementCount, 2);
  assert.equal(doc.ingest.ingested, 1);
  assert.equal(doc.ingest.quarantined, 1);
  assert.equal(doc.ingest.partial, true);
  assert.equal(doc.ingest.statements[0]!.kind, 'ingested');
  const quarantined = doc.ingest.statements[1]!;
  assert.equal(quarantined.kind, 'quarantined');
  assert.match(quarantined.message!, /no opening balance/);
  assert.ok(quarantined.documentId?.startsWith('doc_'), 'a quarantined block is journaled too');
  assert.equal(doc.ingest.alerts.length, 1);
  const alert = doc.ingest.alerts[0]!;
  assert.equal(alert.kind, 'incomplete_file');
  assert.equal(alert.reason, 'unclosed_block');
  assert.equal(alert.unclosedBlockCount, 1);
  assert.equal(alert.survivingStatementCount, 1);
  assert.equal(await inboundCount(sandbox.companyId), before + 2);
  const [q] = await rows<{ status: string; payload_sealed: string | null }>(
    sql`SELECT status, payload_sealed FROM journal_documents WHERE id = ${quarantined.documentId}`,
  );
  assert.deepEqual(q, { status: 'quarantined', payload_sealed: null });
});

test('every block ingested but the file says it is incomplete: 207', { skip: sharedCorpusMissing }, async () => {
  const res = await ingest({
    companyId: sandbox.companyId,
    content: corpusFile('mt940/WoLpH-mt940__self-provided__gv_codes.sta'),
  });
  assert.equal(res.statusCode, 207, res.body);
  const doc = body<Ingest>(res);
  assert.equal(doc.ingest.ingested, 1);
  assert.equal(doc.ingest.quarantined, 0);
  assert.equal(doc.ingest.partial, true);
  assert.equal(doc.ingest.alerts[0]!.kind, 'incomplete_file');
});

test('malformed, unrecognised and empty files: 422 and 400, nothing journaled', {
  skip: sharedCorpusMissing,
}, async () => {
  const before = await inboundCount(sandbox.companyId);
  assertError(
    await ingest({ companyId: sandbox.companyId, content: corpusFile('camt053/genkgo-camt__camt053.v2.wrong.xml') }),
    422,
    'unparseable_file',
  );
  assertError(
    await ingest({
      companyId: sandbox.companyId,
      content: corpusFile('mt940/OCA-bank-statement-import__mt940_base__test-wrong-file.940'),
    }),
    422,
    'unparseable_file',
  );
  assertError(
    await ingest({
      companyId: sandbox.companyId,
      content: corpusFile('camt053/kedder-ofxstatement-iso20022__unsupported.xml'),
    }),
    422,
    'unrecognised_format',
  );
  assertError(
    await ingest({ companyId: sandbox.companyId, content: 'hello, this is not a bank file' }),
    422,
    'unrecognised_format',
  );
  assertError(await ingest({ companyId: sandbox.companyId, content: '' }), 400, 'empty_body');
  assertError(await ingest({ companyId: sandbox.companyId, content: '  \n ' }), 400, 'empty_body');
  assert.equal(await inboundCount(sandbox.companyId), before);
});

test('the same file twice: 200 deduped, the existing document unchanged, no side effect re-run', {
  skip: sharedCorpusMissing,
}, async () => {
  const content = corpusFile('mt940/WoLpH-mt940__jejik__sns.sta');
  const first = await ingest({ companyId: sandbox.companyId, content, environment: 'test' });
  assert.equal(first.statusCode, 201, first.body);
  const original = body<Ingest>(first);
  const account = await rows<{ last_received_data: Date; updated_at: Date }>(
    sql`SELECT last_received_data, updated_at FROM bank_accounts WHERE company_id = ${sandbox.companyId} AND account_other = '0123456789'`,
  );
  assert.equal(account.length, 1);
  const docsBefore = await inboundCount(sandbox.companyId);
  const [eventsBefore] = await rows<{ n: number }>(
    sql`SELECT count(*)::int AS n FROM activity_events WHERE company_id = ${sandbox.companyId}`,
  );
  const [statementsBefore] = await rows<{ n: number }>(
    sql`SELECT count(*)::int AS n FROM account_statements WHERE company_id = ${sandbox.companyId}`,
  );

  const again = await ingest({ companyId: sandbox.companyId, content, environment: 'test' });
  assert.equal(again.statusCode, 200, again.body);
  const replay = body<Ingest>(again);
  assert.equal(replay.deduped, true);
  assert.equal(replay.id, original.id);
  assert.equal(replay.journalNo, original.journalNo);
  assert.deepEqual(
    { ...replay, deduped: undefined, ingest: undefined },
    { ...original, deduped: undefined, ingest: undefined },
  );
  assert.equal(replay.ingest.deduped, 2);
  assert.equal(replay.ingest.ingested, 0);
  assert.deepEqual(
    replay.ingest.statements.map((s) => [s.kind, s.documentId]),
    original.ingest.statements.map((s) => ['deduped', s.documentId]),
  );

  assert.equal(await inboundCount(sandbox.companyId), docsBefore);
  const [eventsAfter] = await rows<{ n: number }>(
    sql`SELECT count(*)::int AS n FROM activity_events WHERE company_id = ${sandbox.companyId}`,
  );
  assert.equal(eventsAfter!.n, eventsBefore!.n, 'no audit event on a replay');
  const [statementsAfter] = await rows<{ n: number }>(
    sql`SELECT count(*)::int AS n FROM account_statements WHERE company_id = ${sandbox.companyId}`,
  );
  assert.equal(statementsAfter!.n, statementsBefore!.n);
  const accountAfter = await rows<{ last_received_data: Date; updated_at: Date }>(
    sql`SELECT last_received_data, updated_at FROM bank_accounts WHERE company_id = ${sandbox.companyId} AND account_other = '0123456789'`,
  );
  assert.deepEqual(accountAfter, account, 'no second account update');
});

test('identical ingests at once journal the file once', { skip: sharedCorpusMissing }, async () => {
  const content = corpusFile('mt940/svenstaro-mt940-rs__danskebank__MT940_DK_Example.sta');
  const before = await inboundCount(sandbox.companyId);
  const results = await Promise.all(Array.from({ length: 8 }, () => ingest({ companyId: sandbox.companyId, content })));
  const statuses = results.map((r) => r.statusCode).sort();
  assert.deepEqual(
    statuses,
    [200, 200, 200, 200, 200, 200, 200, 201],
    results.map((r) => r.body.slice(0, 200)).join('\n'),
  );
  const ids = new Set(results.map((r) => body<Ingest>(r).id));
  assert.equal(ids.size, 1);
  assert.equal(await inboundCount(sandbox.companyId), before + 15);
  const [stmts] = await rows<{ n: number }>(
    sql`SELECT count(*)::int AS n FROM account_statements s JOIN journal_documents d ON d.id = s.document_id
        WHERE d.company_id = ${sandbox.companyId} AND d.content_digest = (SELECT content_digest FROM journal_documents WHERE id = ${[...ids][0]!})`,
  );
  assert.equal(stmts!.n, 15);
});

test('statements already journaled from another file are deduped per block', {
  skip: sharedCorpusMissing,
}, async () => {
  // The two statements of the file above again, with line endings changed: a new file digest.
  const known = corpusFile('mt940/WoLpH-mt940__jejik__sns.sta').replace(/\r?\n/g, '\r\n');
  const allKnown = await ingest({ companyId: sandbox.companyId, content: `${known}\r\n` });
  assert.equal(allKnown.statusCode, 200, allKnown.body);
  assert.equal(body<Ingest>(allKnown).deduped, true);
  assert.equal(body<Ingest>(allKnown).ingest.deduped, 2);

  // Followed by two new statements: blocks end differently, 207.
  const mixed = `${known}\r\n${corpusFile('mt940/WoLpH-mt940__jejik__knab.sta')}`;
  const res = await ingest({ companyId: sandbox.companyId, content: mixed });
  assert.equal(res.statusCode, 207, res.body);
  const doc = body<Ingest>(res);
  assert.deepEqual(
    doc.ingest.statements.map((s) => s.kind),
    ['deduped', 'deduped', 'ingested', 'ingested'],
  );
  assert.equal(doc.ingest.partial, false);
  assert.equal(doc.id, doc.ingest.statements[2]!.documentId, 'the answer shows the first new document');
  assert.match(doc.ingest.statements[0]!.message!, /already journaled as IN-\d+/);
});

test('a camt statement already journaled, sent again in a new message beside a new one: 207, journaled once', async () => {
  const bal = (type: string, amount: string, date: string) =>
    `<Bal><Tp><CdOrPrtry><Cd>${type}</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">${amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>${date}</Dt></Dt></Bal>`;
  const stmt = (id: string, seq: number, date: string, open: string, close: string, copy = '') =>
    `<Stmt><Id>${id}</Id><ElctrncSeqNb>${seq}</ElctrncSeqNb><CreDtTm>${date}T20:00:00</CreDtTm>${copy}<FrToDt><FrDtTm>${date}T00:00:00</FrDtTm><ToDtTm>${date}T23:59:59</ToDtTm></FrToDt><Acct><Id><IBAN>DE02100100109307118603</IBAN></Id><Ccy>EUR</Ccy></Acct>${bal('OPBD', open, date)}${bal('CLBD', close, date)}<Ntry><Amt Ccy="EUR">${(Number(close) - Number(open)).toFixed(2)}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>${date}</Dt></BookgDt><AcctSvcrRef>R-${id}</AcctSvcrRef></Ntry></Stmt>`;
  const file = (msgId: string, stmts: string) =>
    `<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><GrpHdr><MsgId>${msgId}</MsgId><CreDtTm>2026-03-03T06:00:00</CreDtTm></GrpHdr>${stmts}</BkToCstmrStmt></Document>`;
  const fresh = await provisionAndLogin(t);
  const monday = stmt('S-0302', 41, '2026-03-02', '100.00', '150.00');
  const first = await ingest({ companyId: fresh.companyId, content: file('MSG-A', monday) }, fresh.apiKey);
  assert.equal(first.statusCode, 201, first.body);
  const before = await inboundCount(fresh.companyId);

  // The bank sends Monday again (another message id, marked a duplicate) with Tuesday.
  const again = stmt('S-0302', 41, '2026-03-02', '100.00', '150.00', '<CpyDplctInd>DUPL</CpyDplctInd>');
  const tuesday = stmt('S-0303', 42, '2026-03-03', '150.00', '175.00');
  const res = await ingest({ companyId: fresh.companyId, content: file('MSG-B', again + tuesday) }, fresh.apiKey);
  assert.equal(res.statusCode, 207, res.body);
  const doc = body<Ingest>(res);
  assert.deepEqual(
    doc.ingest.statements.map((s) => [s.kind, s.journalNo]),
    [
      ['deduped', body<Ingest>(first).journalNo],
      ['ingested', doc.journalNo],
    ],
  );
  assert.equal(await inboundCount(fresh.companyId), before + 1, 'Monday is not journaled twice');

  // A corrected Monday (another closing balance) is a statement of its own.
  const corrected = stmt('S-0302', 41, '2026-03-02', '100.00', '151.00');
  const fix = await ingest({ companyId: fresh.companyId, content: file('MSG-C', corrected) }, fresh.apiKey);
  assert.equal(fix.statusCode, 201, fix.body);
});

test('scope: a platformId other than the key, a company of another platform, an unknown company', {
  skip: sharedCorpusMissing,
}, async () => {
  const content = corpusFile('mt940/WoLpH-mt940__jejik__generic.sta');
  assertError(await ingest({ companyId: sandbox.companyId, platformId: other.platformId, content }), 403, 'forbidden');
  assertError(await ingest({ companyId: other.companyId, content }), 403, 'forbidden');
  assertError(await ingest({ companyId: 'comp_unknown', content }), 404, 'not_found');
  assertError(await ingest({ companyId: sandbox.companyId, content, bankKey: 'no-such-bank' }), 404, 'not_found');
  const ok = await ingest({ companyId: sandbox.companyId, platformId: sandbox.platformId, content });
  assert.equal(ok.statusCode, 201, ok.body);
  const res = await t.request({
    method: 'POST',
    url: '/journal/ingest',
    payload: { companyId: sandbox.companyId, content },
  });
  assertError(res, 401, 'unauthorized');
  // The same content in another company is that company's own document.
  const theirs = await ingest({ companyId: other.companyId, content }, other.apiKey);
  assert.equal(theirs.statusCode, 201, theirs.body);
  assert.equal(body<Ingest>(theirs).journalNo, 'IN-1');
  assert.notEqual(body<Ingest>(theirs).id, body<Ingest>(ok).id);
});
