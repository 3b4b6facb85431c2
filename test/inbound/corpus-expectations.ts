import { readFileSync } from 'node:fs';
import path from 'node:path';
import { sharedCorpusMissing } from '../support/shared-corpus.ts';

/**
 * What the shared corpus says about each file, read from ../shared/corpus/PROVENANCE.md (never copied):
 * the "what it is" column decides whether a file must parse or must be refused.
 */
const repoRoot = path.resolve(import.meta.dirname, '..', '..');
const corpusRoot = path.resolve(repoRoot, '..', 'shared', 'corpus');

export type CorpusFile = { folder: string; file: string; description: string; full: string };

// Marked broken on purpose, or not a whole statement (field snippets), or not a payment status report.
const REFUSE = /BAD INPUT|MALFORMED|EMPTY FILE|partial message|snippet|Not a payment status report/i;

/**
 * Files whose provenance line and our outcome differ, each with the reason. They are asserted exactly
 * as described here, so a change in behaviour still fails the test.
 */
export const EXCEPTIONS: Record<string, { outcome: 'parsed' | 'partial'; why: string }> = {
  'mt940/svenstaro-mt940-rs__special-cases__unknown_tag.sta': {
    outcome: 'parsed',
    why: 'byte-identical to the EDGE file WoLpH transaction_details_wrapped.sta except one date; ":12:11" is read as the wrapped time of the :86: line (13:12:11), as that file requires',
  },
  'mt940/zilverline-mt940__knab__knab_invalid.txt': {
    outcome: 'partial',
    why: 'the first message is cut off (quarantined with a message, incomplete_file alert); the second is whole and parses',
  },
  'mt940/fruitl00p-php-mt940__Rabo__sample2': {
    outcome: 'partial',
    why: 'the file ends with a bare ":20:" after a complete statement: that cut-off message is quarantined with an incomplete_file alert',
  },
  'mt940/WoLpH-mt940__betterplace__sepa_snippet.sta': {
    outcome: 'parsed',
    why: 'called a snippet, but it is two complete statements',
  },
};

export function loadCorpus(folders: string[]): CorpusFile[] {
  if (sharedCorpusMissing) return [];
  const provenance = readFileSync(path.join(corpusRoot, 'PROVENANCE.md'), 'utf8');
  const described = new Map<string, string>();
  let section = '';
  for (const line of provenance.split('\n')) {
    const h = /^## (\w+) \(\d+ files\)/.exec(line);
    if (h) section = h[1] ?? '';
    if (!section || !line.startsWith('| ')) continue;
    const cells = line.split('|').map((c) => c.trim());
    // | file | source repo | path | commit | licence | what it is |
    if (cells.length >= 8 && cells[1] && cells[1] !== 'file') described.set(`${section}/${cells[1]}`, cells[6] ?? '');
  }
  const manifest = readFileSync(path.join(corpusRoot, 'manifest.tsv'), 'utf8').trim().split('\n').slice(1);
  const out: CorpusFile[] = [];
  for (const row of manifest) {
    const [folder, file] = row.split('\t');
    if (!folder || !file || !folders.includes(folder)) continue;
    out.push({
      folder,
      file,
      description: described.get(`${folder}/${file}`) ?? '',
      full: path.join(corpusRoot, folder, file),
    });
  }
  return out;
}

export function expectedOutcome(f: CorpusFile): 'parsed' | 'partial' | 'refused' {
  const exception = EXCEPTIONS[`${f.folder}/${f.file}`];
  if (exception) return exception.outcome;
  return REFUSE.test(f.description) ? 'refused' : 'parsed';
}
