import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { parseBankFile, statementsOf } from '../../src/domain/inbound/index.ts';
import { provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { sharedCorpusMissing } from '../support/shared-corpus.ts';

/**
 * POST /inbound/statement answers, byte for byte, the JSON of the statements the parser gives for
 * every statement file of the corpus, although it is made in the file worker from the streamed
 * transactions (issue 41 item 5; an MT940 :86: after a :NS: field once went missing there).
 */
const CORPUS = path.resolve(import.meta.dirname, '..', '..', '..', 'shared', 'corpus');

let t: TestApp;
let apiKey: string;
before(async () => {
  t = await startTestApp();
  apiKey = (await provisionAndLogin(t)).apiKey;
});
after(() => t.close());

test('every corpus statement: the answer is the parsed statements as JSON, unchanged', {
  skip: sharedCorpusMissing,
}, async () => {
  let compared = 0;
  for (const folder of ['camt052', 'camt053', 'camt054', 'mt940', 'mt942']) {
    let files: string[];
    try {
      files = readdirSync(path.join(CORPUS, folder));
    } catch {
      continue;
    }
    for (const file of files) {
      const bytes = readFileSync(path.join(CORPUS, folder, file));
      const parsed = parseBankFile(new Uint8Array(bytes));
      if (!parsed.ok || parsed.kind !== 'statement') continue;
      const res = await t.request({
        method: 'POST',
        url: '/inbound/statement',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/octet-stream' },
        payload: bytes,
      });
      assert.equal(res.statusCode, 200, `${folder}/${file}: ${res.body.slice(0, 300)}`);
      assert.equal(res.body, JSON.stringify({ items: statementsOf(parsed) }), `${folder}/${file}`);
      compared++;
    }
  }
  assert.ok(compared > 100, `only ${compared} files compared`);
});
