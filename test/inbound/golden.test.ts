/**
 * The inbound parsers' reviewed contract: for every bank file of the shared corpus, the normalised fields
 * that matter (golden-projection.ts) as kept in test/golden/inbound/<folder>/<file>.json, compared field by
 * field. A change to any file's output (an optimisation, a dialect fix meant for another bank) fails here
 * until its golden diff is reviewed and committed: `UPDATE_GOLDEN=1 npm test -- test/inbound/golden.test.ts`
 * rewrites them. The corpus is read in place (../shared); without it the test is skipped, saying why.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { parseBankFile } from '../../src/domain/inbound/index.ts';
import { SHARED_CORPUS, sharedCorpusMissing } from '../support/shared-corpus.ts';
import { goldenOf, goldenText } from './golden-projection.ts';

const goldenRoot = path.resolve(import.meta.dirname, '..', 'golden', 'inbound');
const update = process.env.UPDATE_GOLDEN === '1';
/** Every folder of bank files; `xsd` holds schemas, not bank files. */
const FOLDERS = ['camt052', 'camt053', 'camt054', 'mt940', 'pain001', 'pain002'];

function corpusFiles(): { folder: string; file: string }[] {
  if (sharedCorpusMissing) return [];
  return FOLDERS.flatMap((folder) => readdirSync(path.join(SHARED_CORPUS, folder)).map((file) => ({ folder, file })));
}

const files = corpusFiles();

describe('inbound golden oracle', { skip: sharedCorpusMissing }, () => {
  test('every golden belongs to a corpus file (none left behind by a renamed or removed file)', () => {
    const expected = new Set(files.map((f) => `${f.folder}/${f.file}.json`));
    const kept = FOLDERS.flatMap((folder) =>
      existsSync(path.join(goldenRoot, folder))
        ? readdirSync(path.join(goldenRoot, folder)).map((file) => `${folder}/${file}`)
        : [],
    );
    assert.deepEqual(
      kept.filter((k) => !expected.has(k)),
      [],
    );
  });

  for (const { folder, file } of files) {
    test(`${folder}/${file}`, () => {
      const actual = goldenOf(parseBankFile(readFileSync(path.join(SHARED_CORPUS, folder, file))));
      const goldenFile = path.join(goldenRoot, folder, `${file}.json`);
      if (update || !existsSync(goldenFile)) {
        mkdirSync(path.dirname(goldenFile), { recursive: true });
        writeFileSync(goldenFile, goldenText(actual));
        if (!update) assert.fail(`golden ${goldenFile} was missing and has been written: review and commit it`);
        return;
      }
      // Field by field (deepEqual names the first differing path), then the exact text (key order, layout).
      const golden = JSON.parse(readFileSync(goldenFile, 'utf8')) as unknown;
      assert.deepEqual(JSON.parse(JSON.stringify(actual)), golden);
      assert.equal(goldenText(actual), readFileSync(goldenFile, 'utf8'));
    });
  }
});
