import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { sharedCorpusMissing } from '../../../test/support/shared-corpus.ts';
import { parseCommand } from './cli.ts';

const corpus = path.resolve(import.meta.dirname, '..', '..', '..', '..', 'shared', 'corpus');

describe('cli parse', () => {
  test('a statement file prints normalised JSON and exits 0', { skip: sharedCorpusMissing }, () => {
    const r = parseCommand([path.join(corpus, 'camt053', 'genkgo-camt__camt053.v2.multi.statement.xml')]);
    assert.equal(r.exitCode, 0);
    const out = JSON.parse(r.stdout ?? '');
    assert.equal(out.kind, 'statement');
    assert.equal(out.blocks.length, 2);
  });

  test('--summary prints counts and balances per block', { skip: sharedCorpusMissing }, () => {
    const r = parseCommand(['--summary', path.join(corpus, 'mt940', 'zilverline-mt940__knab__knab_invalid.txt')]);
    assert.equal(r.exitCode, 0);
    const out = JSON.parse(r.stdout ?? '');
    assert.equal(out.alerts[0].unclosedBlockCount, 1);
    assert.equal(out.blocks[1].entryCount, 1);
  });

  test('a refused file exits 1 with the typed error on stderr', { skip: sharedCorpusMissing }, () => {
    const r = parseCommand([path.join(corpus, 'pain002', 'moov-io-iso20022__invalid_file2')]);
    assert.equal(r.exitCode, 1);
    assert.equal(JSON.parse(r.stderr ?? '').error.code, 'unparseable_file');
  });

  test('usage errors exit 2', () => {
    assert.equal(parseCommand([]).exitCode, 2);
    assert.equal(parseCommand(['a', 'b']).exitCode, 2);
    assert.equal(parseCommand(['/nonexistent/file']).exitCode, 2);
  });
});
