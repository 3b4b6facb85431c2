import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * The shared bank-file corpus (../shared/corpus next to the repository), read in place and never copied:
 * real files under their own licences. A clone from a public repository has no ../shared; CI has it.
 * Tests that read it pass `{ skip: sharedCorpusMissing }`, so they are reported skipped with this reason
 * instead of failing.
 */
export const SHARED_CORPUS = path.resolve(import.meta.dirname, '..', '..', '..', 'shared', 'corpus');

export const sharedCorpusMissing: string | false = existsSync(path.join(SHARED_CORPUS, 'manifest.tsv'))
  ? false
  : `the shared corpus is not at ${SHARED_CORPUS} (a clone without ../shared): tests that read real bank files are skipped; CI runs them`;
