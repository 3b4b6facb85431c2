/**
 * POST /journal/ingest reads its JSON body in the file worker (docs/adr/0029): the answers for bad
 * bodies are the ones the route's schema gave before, and a good body is journaled (and deduped).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertError, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { largeCamt053 } from '../support/large-camt.ts';

let t: TestApp;
let sb: Awaited<ReturnType<typeof provisionAndLogin>>;
before(async () => {
  t = await startTestApp();
  sb = await provisionAndLogin(t);
});
after(async () => t.close());

const ingest = (payload: unknown) =>
  t.request({
    method: 'POST',
    url: '/journal/ingest',
    headers: { 'x-api-key': sb.apiKey, 'content-type': 'application/json' },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });

test('bad bodies: invalid_json, validation_failed with the issues, empty_body', async () => {
  assertError(await ingest('{"companyId": '), 400, 'invalid_json');
  const missing = assertError(await ingest({}), 400, 'validation_failed');
  assert.deepEqual(
    (missing.details as { issues: { message: string }[] }).issues.map((i) => i.message),
    ["must have required property 'companyId'", "must have required property 'content'"],
  );
  const wrong = assertError(
    await ingest({ companyId: 7, content: 'x', environment: 'prod' }),
    400,
    'validation_failed',
  );
  assert.deepEqual(
    (wrong.details as { issues: { path: string }[] }).issues.map((i) => i.path),
    ['body.companyId', 'body.environment'],
  );
  assertError(await ingest([1, 2]), 400, 'validation_failed');
  assertError(await ingest({ companyId: sb.companyId, content: '  \n ' }), 400, 'empty_body');
  assertError(await ingest({ companyId: sb.companyId, content: 'hello', bankKey: 'no-such-bank' }), 404, 'not_found');
});

test('a statement is journaled with every entry, and the same body again is deduped', async () => {
  const { xml, entries } = largeCamt053(200_000, 'BODY');
  const first = await ingest({ companyId: sb.companyId, content: xml, environment: 'test' });
  assert.equal(first.statusCode, 201, first.body);
  const doc = first.json() as { id: string; transactionCount: number; deduped: boolean };
  assert.equal(doc.transactionCount, entries);
  const again = await ingest({ companyId: sb.companyId, content: xml, environment: 'test' });
  assert.equal(again.statusCode, 200, again.body);
  assert.equal((again.json() as { id: string; deduped: boolean }).id, doc.id);
  // The journaled payload is the whole normalised statement (sealed gzipped, read back as JSON).
  const read = await t.request({
    method: 'GET',
    url: `/journal/documents/${doc.id}?companyId=${sb.companyId}`,
    headers: { 'x-api-key': sb.apiKey },
  });
  assert.equal(read.statusCode, 200, read.body);
  assert.ok(read.body.includes('BODY-E2E-0'), 'the transactions are in the stored payload');
});
