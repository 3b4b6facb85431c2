import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { sharedCorpusMissing } from '../support/shared-corpus.ts';

/** The official ISO 20022 XSDs of the shared corpus, read in place (third-party files, never copied). */
const CORPUS_XSD = path.resolve(import.meta.dirname, '..', '..', '..', 'shared', 'corpus', 'xsd');

let withXsd: TestApp;
let withoutXsd: TestApp;
let payment: unknown;
let keyWith: string;
let keyWithout: string;

before(async () => {
  withXsd = await startTestApp({ env: { XSD_DIR: CORPUS_XSD } });
  withoutXsd = await startTestApp();
  const a = await provisionAndLogin(withXsd);
  keyWith = a.apiKey;
  keyWithout = (await provisionAndLogin(withoutXsd)).apiKey;
  payment = a.firstPayment.body.payment;
});
after(async () => {
  await withXsd.close();
  await withoutXsd.close();
});

for (const painVersion of ['pain.001.001.03', 'pain.001.001.09', 'pain.001.001.11']) {
  test(`validate=true checks ${painVersion} against our schema model and the official XSD`, {
    skip: sharedCorpusMissing,
  }, async () => {
    const res = await withXsd.request({
      method: 'POST',
      url: `/convert/demo?validate=true&painVersion=${painVersion}`,
      headers: { 'x-api-key': keyWith },
      payload: payment as object,
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['x-schema-validation'], 'schema-model,official-xsd');
    assert.match(res.body, new RegExp(`urn:iso:std:iso:20022:tech:xsd:${painVersion.replaceAll('.', '\\.')}`));
  });
}

test('on a fresh install without XSD_DIR, validate=true still runs the schema model and says so', async () => {
  const res = await withoutXsd.request({
    method: 'POST',
    url: '/convert/demo?validate=true',
    headers: { 'x-api-key': keyWithout },
    payload: payment as object,
  });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.headers['x-schema-validation'], 'schema-model');
});
