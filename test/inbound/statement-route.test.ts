import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { sharedCorpusMissing } from '../support/shared-corpus.ts';

/** POST /inbound/statement: raw bank file in, normalised statements out; stateless. Corpus read in place. */
const CORPUS = path.resolve(import.meta.dirname, '..', '..', '..', 'shared', 'corpus');
const corpus = (file: string) => readFileSync(path.join(CORPUS, file));

let t: TestApp;
let apiKey: string;
before(async () => {
  t = await startTestApp();
  apiKey = (await provisionAndLogin(t)).apiKey;
});
after(() => t.close());

const post = (payload: string | Buffer, contentType = 'application/xml', key = apiKey) =>
  t.request({
    method: 'POST',
    url: '/inbound/statement',
    headers: { 'x-api-key': key, 'content-type': contentType },
    payload,
  });

test('a camt.053 answers one normalised statement per account block, amounts as exact strings', {
  skip: sharedCorpusMissing,
}, async () => {
  const res = await post(corpus('camt053/OCA-bank-statement-import__test-camt053'));
  assert.equal(res.statusCode, 200, res.body);
  const items = (res.json() as { items: Array<{ sourceFormat: string; transactions: Array<{ amount: unknown }> }> })
    .items;
  assert.ok(items.length >= 1);
  assert.match(items[0]!.sourceFormat, /^camt\.053\.001\.\d\d$/);
  for (const tx of items.flatMap((s) => s.transactions)) assert.equal(typeof tx.amount, 'string');
});

test('an MT940 as plain text, and a file wrapped as {content} JSON, both parse', {
  skip: sharedCorpusMissing,
}, async () => {
  const mt = corpus('mt940/OCA-bank-statement-import__mt940_base__test-ing.940');
  const raw = await post(mt, 'text/plain');
  assert.equal(raw.statusCode, 200, raw.body);
  assert.equal((raw.json() as { items: Array<{ sourceFormat: string }> }).items[0]!.sourceFormat, 'MT940');
  const wrapped = await post(JSON.stringify({ content: mt.toString('latin1') }), 'application/json');
  assert.equal(wrapped.statusCode, 200, wrapped.body);
});

test('a statement with no entries parses; nothing is stored', { skip: sharedCorpusMissing }, async () => {
  const res = await post(corpus('camt053/OCA-bank-statement-import__test-camt053-no-ntry'));
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual((res.json() as { items: Array<{ transactions: unknown[] }> }).items[0]!.transactions, []);
  const docs = await t.ctx.db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM journal_documents`);
  assert.equal(docs.rows[0]!.n, 0);
});

test('empty 400, unrecognised 400, unparseable 422, a pain.002 422, no key 401 — all in the envelope', {
  skip: sharedCorpusMissing,
}, async () => {
  const code = async (res: Awaited<ReturnType<typeof post>>) => [
    res.statusCode,
    (res.json() as { error: { code: string } }).error.code,
  ];
  assert.deepEqual(await code(await post('   ', 'text/plain')), [400, 'empty_body']);
  assert.deepEqual(await code(await post('hello, this is not a bank file', 'text/plain')), [
    400,
    'unrecognised_statement',
  ]);
  assert.deepEqual(await code(await post(corpus('camt053/genkgo-camt__camt053.v2.wrong.xml'))), [
    422,
    'unparseable_file',
  ]);
  assert.deepEqual(
    await code(
      await post(
        '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.03"><CstmrPmtStsRpt><GrpHdr><MsgId>X</MsgId></GrpHdr><OrgnlGrpInfAndSts><OrgnlMsgId>Y</OrgnlMsgId><GrpSts>ACSC</GrpSts></OrgnlGrpInfAndSts></CstmrPmtStsRpt></Document>',
      ),
    ),
    [422, 'unparseable_file'],
  );
  const noKey = await t.request({
    method: 'POST',
    url: '/inbound/statement',
    headers: { 'content-type': 'text/plain' },
    payload: 'x',
  });
  assert.equal(noKey.statusCode, 401);
});
