import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { parseBankFile, type StatementTransaction } from '../../src/domain/inbound/index.ts';
import type { StatementBlock } from '../../src/domain/inbound/types.ts';
import { sharedCorpusMissing } from '../support/shared-corpus.ts';
import { loadCorpus } from './corpus-expectations.ts';

/**
 * Streaming (`onTransaction`) hands over exactly the transactions the collecting parse returns, in the
 * same order and block by block, and the result is otherwise the same (with empty transaction lists).
 */
const files = loadCorpus(['camt052', 'camt053', 'camt054', 'mt940']);

test('every corpus statement streams the same transactions it collects', { skip: sharedCorpusMissing }, () => {
  let compared = 0;
  for (const f of files) {
    const bytes = new Uint8Array(readFileSync(f.full));
    const collected = parseBankFile(bytes);
    const streamed: StatementTransaction[][] = [];
    const result = parseBankFile(bytes, {
      onTransaction: (t, block) => {
        streamed[block] ??= [];
        streamed[block].push(t);
      },
    });
    if (!collected.ok || collected.kind !== 'statement') {
      assert.deepEqual(result, collected, f.file);
      continue;
    }
    assert.ok(result.ok && result.kind === 'statement', f.file);
    assert.equal(result.blocks.length, collected.blocks.length, f.file);
    for (const [i, b] of collected.blocks.entries()) {
      const s: StatementBlock | undefined = result.blocks[i];
      assert.equal(s?.ok, b.ok, f.file);
      if (!b.ok || !s?.ok) continue;
      assert.deepEqual(streamed[i] ?? [], b.statement.transactions, `${f.file} block ${i}`);
      assert.deepEqual({ ...s, statement: { ...s.statement, transactions: b.statement.transactions } }, b, f.file);
      assert.deepEqual(s.statement.transactions, []);
      compared++;
    }
  }
  assert.ok(compared > 300, `only ${compared} statements compared`);
});
