/**
 * Issue 38: remittance text is never lost, over every MT940/MT942 file of the shared corpus. Every
 * character of every :86: lands in a field: the transaction's (remittance, references, counterparty,
 * additionalInfo for what no field of its own holds) when the :86: follows a :61:, else the statement's
 * additionalInfo. And none is made up or doubled: a transaction's fields hold no character that its :86:
 * and :61: do not. Characters are compared as multisets with white space left out, so joining wrapped
 * lines, trimming and the "; " between parts do not count; the layout's own marks are no text: German
 * and Polish subfield marks (?20, ~31, >22) and SEPA keywords (EREF+ ...), the /KEY/ keys and slashes of
 * the SWIFT-tag dialect, mBank's labels (TYT.:, OD:, Z RACH.:), the dots of an ABN AMRO dotted account
 * and Triodos's zero account. Triodos's >31 is the holder's own account, found in the statement's :25:.
 * The raw fields are read here with a reader of our own (line-based, independent of the parser's).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { decodeBytes, parseBankFile } from '../../src/domain/inbound/index.ts';
import type { StatementTransaction } from '../../src/domain/inbound/types.ts';
import { SHARED_CORPUS, sharedCorpusMissing } from '../support/shared-corpus.ts';

type RawTx = { f61: string; f86: string[] };
type RawBlock = { info: string[]; txs: RawTx[] };

const TAG = /^:(\d\d[A-Z]?|NS):/;
const TAGS = new Set([
  '20',
  '21',
  '25',
  '25P',
  '28',
  '28C',
  '13',
  '13D',
  '34F',
  '60F',
  '60M',
  '61',
  '86',
  '62F',
  '62M',
  '64',
  '65',
  '65F',
  '90D',
  '90C',
  'NS',
]);
const CLOSING = new Set(['60F', '60M', '62F', '62M', '64', '65', '65F', '90D', '90C']);

/** The :20: messages of an MT940 text, each with its :61:s and the :86:s that follow them. */
function rawBlocks(text: string): RawBlock[] {
  const lines = text
    .replace(/[\x01\x03\x1a]/g, '\n')
    .replace(/@@(?=:\d\d[A-Z]?:)/g, '\n')
    .split(/\r?\n/)
    .map((l) => l.replace(/^(?:\{[1-3]:[^}]*\})*\{4:/, ''));
  const fields: { tag: string; value: string }[] = [];
  for (const [n, l] of lines.entries()) {
    const m = TAG.exec(l);
    const last = fields[fields.length - 1];
    const inText = last !== undefined && (last.tag === '86' || last.tag === '61');
    // A lone "-" ends the message, unless text follows it inside a :86: (a wrapped "MND-EV01").
    const wrappedDash = l === '-' && last?.tag === '86' && /^[^:{}\s-]/.test(lines[n + 1] ?? '');
    if (m && TAGS.has(m[1] as string)) fields.push({ tag: m[1] as string, value: l.slice(m[0].length) });
    else if (!wrappedDash && (/^-(?:\}|$)|^\}|^\{5:/.test(l.trim()) || l.trim() === '')) continue;
    else if (last !== undefined && (inText || !m)) last.value += `\n${l}`;
  }
  const out: RawBlock[] = [];
  let block: RawBlock | null = null;
  let tx: RawTx | null = null;
  for (const f of fields) {
    if (f.tag === '20') {
      block = { info: [], txs: [] };
      out.push(block);
      tx = null;
    } else if (block === null) continue;
    else if (f.tag === '61') {
      tx = { f61: f.value, f86: [] };
      block.txs.push(tx);
    } else if (f.tag === '86') (tx ? tx.f86 : block.info).push(f.value);
    else if (CLOSING.has(f.tag)) tx = null;
  }
  return out;
}

function count(s: string): Map<string, number> {
  const m = new Map<string, number>();
  for (const c of s.replace(/[\s;]+/g, '')) m.set(c, (m.get(c) ?? 0) + 1);
  return m;
}

/** What `a` has more of than `b`, as "c×n" (empty when nothing). */
function excess(a: Map<string, number>, b: Map<string, number>): string {
  const out: string[] = [];
  for (const [c, n] of a) if (n > (b.get(c) ?? 0)) out.push(`${c}×${n - (b.get(c) ?? 0)}`);
  return out.join(' ');
}

const MARKS = /[?~<>]\d\d/g;
const KEYWORDS = /(?:EREF|KREF|MREF|CRED|DEBT|SVWZ|ABWA|ABWE|IBAN|BIC|COAM|OAMT)\+/g;
const SWIFT_KEY = /\/[A-Z]{2,9}(?=\/)|\//g;
const MBANK_LABEL = /(?:^|;)\s*(?:TYT\.:|OD:|DO:|Z RACH\.:|NA RACH\.:)/g;

/** The text of a transaction's :86: fields without the layout's marks. */
function textOf(f86: string[], t: StatementTransaction, account: string): string {
  const raw = f86.join('\n');
  if (t.detailsDialect === 'free-text') {
    let s = raw.replace(MBANK_LABEL, '');
    // ABN AMRO's "GIRO" before a giro number names the kind of account.
    if (t.counterpartyAccount !== null) s = s.replace(new RegExp(`^\\s*GIRO\\s+(?=${t.counterpartyAccount}\\b)`), '');
    // ABN AMRO's dotted account is the account without its dots.
    const dotted = /^\s*(\d\d\.\d\d\.\d\d\.\d{3})\b/.exec(s)?.[1];
    if (dotted !== undefined && t.counterpartyAccount === dotted.replace(/\./g, ''))
      s = s.replace(dotted, t.counterpartyAccount);
    return s;
  }
  // Structured dialects join wrapped lines without a separator: marks may straddle a line break.
  let s = raw.replace(/\r?\n/g, '');
  if (t.detailsDialect === 'swift-tags') return s.replace(SWIFT_KEY, '');
  // Marks first: a keyword may straddle one ("S?25VWZ+").
  s = s.replace(MARKS, '').replace(KEYWORDS, '');
  if (t.detailsDialect === 'triodos') {
    const own = />31\s*(\d+)/.exec(raw.replace(/\r?\n/g, ''))?.[1];
    if (own !== undefined && account.includes(own)) s = s.replace(own, '');
    s = s.replace(/^000/, '').replace(/^0+(?=\D|$)/, '');
  }
  return s;
}

const TEXT_FIELDS = [
  'remittance',
  'additionalInfo',
  'counterpartyName',
  'counterpartyIban',
  'counterpartyAccount',
  'counterpartyBic',
  'counterpartyAddress',
  'endToEndId',
  'mandateId',
  'paymentInfoId',
  'customerRef',
  'bankRef',
  'creditorReference',
  'creditorReferenceType',
  'returnReason',
  'txCodeProprietary',
  'swiftTypeCode',
] as const;

/** Every text field of the transaction once (an account that repeats the IBAN, a code that repeats the type, once). */
function fieldsOf(t: StatementTransaction): string {
  return TEXT_FIELDS.filter(
    (f) =>
      !(f === 'counterpartyAccount' && t.counterpartyAccount === t.counterpartyIban) &&
      !(f === 'txCodeProprietary' && t.txCodeProprietary === t.swiftTypeCode),
  )
    .map((f) => t[f] ?? '')
    .join('')
    .replace(/\//g, '');
}

const dir = path.join(SHARED_CORPUS, 'mt940');

test('corpus MT940/MT942: every character of every :86: lands in a field, none is made up', {
  skip: sharedCorpusMissing,
}, () => {
  const lost: string[] = [];
  const made: string[] = [];
  let checked = 0;
  for (const file of readdirSync(dir).sort()) {
    const bytes = readFileSync(path.join(dir, file));
    const r = parseBankFile(bytes);
    if (!r.ok || r.kind !== 'statement') continue;
    const decoded = decodeBytes(bytes);
    if ('error' in decoded) continue;
    const raws = rawBlocks(decoded.text);
    r.blocks.forEach((b, i) => {
      const raw = raws[i];
      if (!b.ok || raw === undefined) return;
      const s = b.statement;
      assert.equal(raw.txs.length, s.transactions.length, `${file} statement ${i + 1}: entries`);
      const info = excess(count(raw.info.join('')), count(s.additionalInfo ?? ''));
      if (info !== '') lost.push(`${file} statement ${i + 1}: ${info}`);
      const account = `${s.accountIban ?? ''}${s.accountOther ?? ''}`;
      raw.txs.forEach((rt, k) => {
        const t = s.transactions[k] as StatementTransaction;
        if (rt.f86.length === 0) return;
        checked++;
        const have = count(fieldsOf(t));
        const missing = excess(count(textOf(rt.f86, t, account).replace(/\//g, '')), have);
        if (missing !== '') lost.push(`${file} statement ${i + 1} entry ${k + 1} (${t.detailsDialect}): ${missing}`);
        // A free-text :86: opening with a 3-digit code (mBank) gives it as the code and keeps it in the text.
        const code = t.txCodeProprietary;
        const codeCopied = code !== null && rt.f86.join('').trimStart().startsWith(`${code} `);
        const source = `${rt.f86.join('')}${rt.f61}${codeCopied ? code : ''}`;
        const extra = excess(have, count(source));
        if (extra !== '') made.push(`${file} statement ${i + 1} entry ${k + 1} (${t.detailsDialect}): ${extra}`);
      });
    });
  }
  assert.ok(checked > 1000, `only ${checked} transactions with a :86: checked`);
  assert.deepEqual(lost, [], 'characters of a :86: found in no field');
  assert.deepEqual(made, [], 'characters in a field found in neither its :86: nor its :61:');
});

/** Transaction `k` of statement `b` of a corpus MT940 file. */
function txOf(file: string, b: number, k: number): StatementTransaction {
  const r = parseBankFile(readFileSync(path.join(dir, file)));
  assert.ok(r.ok && r.kind === 'statement');
  const block = r.blocks[b];
  assert.ok(block?.ok);
  const t = block.statement.transactions[k];
  assert.ok(t);
  return t;
}

function pick(t: StatementTransaction, fields: (keyof StatementTransaction)[]): Record<string, unknown> {
  return Object.fromEntries(fields.map((f) => [f, t[f]]));
}

test('the parts of a :86: no field holds are kept as written, in additionalInfo', { skip: sharedCorpusMissing }, () => {
  // German: ?10 primanota and ?34 text key extension after the ?00 booking text (DK field 86 layout).
  assert.deepEqual(
    pick(txOf('WoLpH-mt940__betterplace__sepa_mt9401.sta', 0, 0), ['endToEndId', 'remittance', 'additionalInfo']),
    {
      endToEndId: 'TFNR 40005 00005',
      remittance: 'MTLG:Grund nicht spezifiziert Reject aus SEPA-Ueberweisungsauftrag',
      additionalInfo: 'RETOURE; ?10 0399; ?34 914',
    },
  );
  // German: CRED+ and OAMT+ have no field. Commerzbank writes a space before the :61: type code
  // ("D12,35 NRTIKREF+"): type NRTI, and the reference KREF+ is the :86:'s KREF+ value.
  assert.deepEqual(
    pick(txOf('sandermarechal-jejik-mt940__commerzbank.txt', 0, 0), ['swiftTypeCode', 'customerRef', 'additionalInfo']),
    {
      swiftTypeCode: 'NRTI',
      customerRef: 'SEPA-DA20200601221740-34972000-P1',
      additionalInfo:
        'SEPA-LASTSCHR. RETOURE CORE; /OCMT/EUR11,85//CHGS/EUR0,50/; CRED+DE41EON00000129793; OAMT+11,85; ?10 9075/629',
    },
  );
  // SWIFT tags: /CSID/ (no creditor id field); ING wraps "/MARF/MND-EV01" leaving "-" alone on a line,
  // which continues the :86: (the next tag is a :61:, no message opens with one) instead of ending it.
  assert.deepEqual(
    pick(txOf('OCA-bank-statement-import__mt940_base__test-ing.940', 0, 3), [
      'mandateId',
      'counterpartyName',
      'counterpartyIban',
      'counterpartyBic',
      'remittance',
      'additionalInfo',
    ]),
    {
      mandateId: 'MND-EV01',
      counterpartyName: 'ING Bank N.V. inzake WeB',
      counterpartyIban: 'NL32INGB0000012345',
      counterpartyBic: 'INGBNL2A',
      remittance: 'EV123REP123412T1234',
      additionalInfo: '/TRCD/010 16 /; /CSID/NL32ZZZ999999991234',
    },
  );
  // Text before the first known key (ASB's "/BAI/" code) is kept.
  assert.equal(
    txOf('centrapay-swift-parser__test2.mt942', 0, 2).additionalInfo,
    'wording/NBKT; /BAI/399/MISCELLANEOUS CREDIT',
  );
  // mBank: ID IPH, DATA STEMPLA and TNR are kept after the booking text; the title is the remittance.
  assert.deepEqual(
    pick(txOf('ksdev-pl-mbank-mt940-parser__MT940_IPH.txt', 0, 0), [
      'remittance',
      'counterpartyAccount',
      'additionalInfo',
    ]),
    {
      remittance: '210F1163',
      counterpartyAccount: '04105014611000002345271577',
      additionalInfo:
        '911 TRANSAKCJA IPH; 911-TRANSAKCJA IPH; ID IPH: XX000000000014; DATA STEMPLA: 02.06.2010; TNR: 154961063737599.110001',
    },
  );
});
