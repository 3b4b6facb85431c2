/**
 * Character sets banks accept in pain.001 text fields, and the transliteration to the SEPA/EPC basic
 * Latin set. The EPC set is `a-z A-Z 0-9 / - ? : ( ) . , ' +` and space; national domestic sets add
 * letters (domain.md §2.1). Transliteration is only done where the meaning survives (é -> e, æ -> ae,
 * & -> +); anything else (€, @, #, CJK, control characters) is an error for the caller to fix.
 */

export type CharsetName = 'sepa' | 'nordic' | 'danish' | 'polish' | 'german';

const SEPA_CLASS = "a-zA-Z0-9/\\-?:().,'+ ";
const EXTRA: Record<CharsetName, string> = {
  sepa: '',
  // Nordic domestic extras (Swedbank, Nordea, DNB domestic): letters only, the symbols are not safe cross-border.
  nordic: 'áäçđéíóöúüýæøåÁÄÇĐÉÍÓÖÚÜÝÆØÅ',
  danish: 'æøåÆØÅ&',
  polish: 'ąćęłńóśżźĄĆĘŁŃÓŚŻŹ',
  // German DK character set (DFÜ-Abkommen annex 3): umlauts, sharp s and a few symbols.
  german: 'äöüÄÖÜß&*$%',
};

const ALLOWED: Record<CharsetName, RegExp> = {
  sepa: new RegExp(`^[${SEPA_CLASS}]*$`),
  nordic: new RegExp(`^[${SEPA_CLASS}${EXTRA.nordic}]*$`),
  danish: new RegExp(`^[${SEPA_CLASS}${EXTRA.danish}]*$`),
  polish: new RegExp(`^[${SEPA_CLASS}${EXTRA.polish}]*$`),
  german: new RegExp(`^[${SEPA_CLASS}${EXTRA.german}]*$`),
};

const SEPA_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/-?:().,'+ ";
const ALLOWED_CHAR: Record<CharsetName, ReadonlySet<string>> = {
  sepa: new Set(SEPA_CHARS),
  nordic: new Set(SEPA_CHARS + EXTRA.nordic),
  danish: new Set(SEPA_CHARS + EXTRA.danish),
  polish: new Set(SEPA_CHARS + EXTRA.polish),
  german: new Set(SEPA_CHARS + EXTRA.german),
};

/** Replacements that a decomposition does not give (ligatures, letters without a base, punctuation). */
const SPECIAL: Record<string, string> = {
  ß: 'ss',
  æ: 'ae',
  Æ: 'AE',
  ø: 'o',
  Ø: 'O',
  œ: 'oe',
  Œ: 'OE',
  đ: 'd',
  Đ: 'D',
  ð: 'd',
  Ð: 'D',
  þ: 'th',
  Þ: 'TH',
  ł: 'l',
  Ł: 'L',
  ı: 'i',
  '&': '+',
  _: '-',
  '\u2018': "'",
  '\u2019': "'",
  '`': "'",
  '\u00b4': "'",
  '"': "'",
  '\u201c': "'",
  '\u201d': "'",
  '\u201e': "'",
  '\u00ab': "'",
  '\u00bb': "'",
  '\u2013': '-',
  '\u2014': '-',
  '\u00a0': ' ',
  ';': ',',
  '!': '.',
  '[': '(',
  ']': ')',
  '{': '(',
  '}': ')',
};

const COMBINING = /[\u0300-\u036f]/g;

/** Safe replacement of one character in a charset, or undefined; memoised per charset (few distinct letters). */
const REPLACEMENTS: Record<CharsetName, Map<string, string | undefined>> = {
  sepa: new Map(),
  nordic: new Map(),
  danish: new Map(),
  polish: new Map(),
  german: new Map(),
};
function replacementFor(ch: string, charset: CharsetName): string | undefined {
  const memo = REPLACEMENTS[charset];
  if (memo.has(ch)) return memo.get(ch);
  const repl = SPECIAL[ch] ?? ch.normalize('NFD').replace(COMBINING, '');
  const ok = repl !== ch && repl !== '' && ALLOWED[charset].test(repl) ? repl : undefined;
  if (memo.size < 4096) memo.set(ch, ok);
  return ok;
}

export type CharsetResult =
  | { kind: 'ok' }
  | { kind: 'transliterated'; value: string; replacements: string; message: string }
  | { kind: 'invalid'; characters: string };

const OK: CharsetResult = { kind: 'ok' };

/**
 * Results of the slow path, per charset: batches repeat names, streets and towns, so a value that needed
 * transliteration once is looked up afterwards. Bounded so a hostile batch cannot grow it without limit.
 */
const SLOW_MEMO: Record<CharsetName, Map<string, CharsetResult>> = {
  sepa: new Map(),
  nordic: new Map(),
  danish: new Map(),
  polish: new Map(),
  german: new Map(),
};
const SLOW_MEMO_MAX = 20_000;

/** Fast path first: almost every field passes the single regex test and allocates nothing. */
export function checkCharset(value: string, charset: CharsetName): CharsetResult {
  if (ALLOWED[charset].test(value)) return OK;
  return checkOutside(value, charset);
}

/**
 * checkCharset for a value already known to hold a character outside the charset (the fused writer's
 * class table, derived from the same regex, refused one): the memoised transliteration without running
 * the regex over the value again. A third of the benchmark's transactions has such a field.
 */
export function checkOutside(value: string, charset: CharsetName): CharsetResult {
  const memo = SLOW_MEMO[charset];
  const hit = memo.get(value);
  if (hit) return hit;
  const r = transliterate(value, charset);
  if (memo.size >= SLOW_MEMO_MAX) memo.clear();
  memo.set(value, r);
  return r;
}

function transliterate(value: string, charset: CharsetName): CharsetResult {
  const allowedChar = ALLOWED_CHAR[charset];
  let out = '';
  const replaced: string[] = [];
  let bad = '';
  for (const ch of value) {
    if (allowedChar.has(ch)) {
      out += ch;
      continue;
    }
    const repl = replacementFor(ch, charset);
    if (repl !== undefined) {
      out += repl;
      if (replaced.length < 10) replaced.push(`${ch}->${repl}`);
    } else if (!bad.includes(ch)) {
      bad += ch;
    }
  }
  if (bad !== '') return { kind: 'invalid', characters: bad };
  const replacements = [...new Set(replaced)].join(', ');
  // The issue message is built once per distinct value and shared by every warning about it (memoised).
  const message = `characters outside the bank's character set were replaced: ${replacements}`;
  return { kind: 'transliterated', value: out, replacements, message };
}

/**
 * Whether a transaction leaves the country's own clearing: every SWIFT payment, and a SEPA or TARGET2
 * (RTGS) payment to an account in another country. Such a payment passes through other banks in the
 * SEPA/SWIFT Latin set, so the bank's national letters (Nordic, Danish, Polish, German sets) and `&` are
 * transliterated for it like for a bank whose set is SEPA's (domain.md §2.1); a domestic one keeps them.
 */
export function isCrossBorder(channel: string, bankCountry: string, creditorCountry: string | undefined): boolean {
  if (channel === 'SWIFT') return true;
  if (channel !== 'SEPA' && channel !== 'RTGS') return false;
  return creditorCountry !== undefined && creditorCountry !== bankCountry;
}

/**
 * A transliteration that made a text longer than its field allows (ß -> ss, æ -> ae), cut back to the
 * field's limit. The limit applies to what the caller wrote: a 140-character remittance with a ß is valid,
 * and the bank gets its first 140 characters, the warning saying so. A text already over the limit is left
 * for the length check to refuse.
 */
export function fitToLimit(original: string, r: CharsetResult, max: number | undefined): CharsetResult {
  if (r.kind !== 'transliterated' || max === undefined || r.value.length <= max || original.length > max) return r;
  return {
    kind: 'transliterated',
    value: r.value.slice(0, max),
    replacements: r.replacements,
    message: `${r.message}; the replaced text was cut to the field's ${max} characters`,
  };
}

/**
 * Per-character classes of a charset for scanning loops (the fused converter reads a field once to check
 * it and to learn whether it needs escaping), indexed by UTF-16 unit so a scan needs no range test:
 * 0 allowed ASCII, CHAR_WIDE allowed beyond ASCII, CHAR_ESCAPE allowed but escaped in XML (`&`),
 * CHAR_REFUSED outside the charset (checkCharset then says whether it can be transliterated). Derived from the same regexes as checkCharset.
 */
export const CHAR_REFUSED = 1;
export const CHAR_ESCAPE = 2;
/** Allowed, outside ASCII (two UTF-8 bytes): lets a copying loop take pure-ASCII text without branches. */
export const CHAR_WIDE = 4;
const CLASSES = new Map<CharsetName, Uint8Array>();
export function charsetClasses(charset: CharsetName): Uint8Array {
  let t = CLASSES.get(charset);
  if (!t) {
    t = new Uint8Array(0x10000).fill(CHAR_REFUSED);
    // Every extra letter of every charset lies below U+0180.
    for (let c = 0; c < 0x180; c++) {
      if (!ALLOWED[charset].test(String.fromCharCode(c))) continue;
      t[c] = c === 38 || c === 60 || c === 62 || c === 34 ? CHAR_ESCAPE : c >= 0x80 ? CHAR_WIDE : 0;
    }
    CLASSES.set(charset, t);
  }
  return t;
}

/** Identifiers (MsgId, PmtInfId, EndToEndId, InstrId) stay in the SEPA set, with no leading, trailing or double slash. */
const ID_PATTERN = /^[a-zA-Z0-9/\-?:().,'+ ]*$/;
export function isValidIdentifierText(value: string): boolean {
  return ID_PATTERN.test(value) && value[0] !== '/' && value[value.length - 1] !== '/' && !value.includes('//');
}

export function isSepaText(value: string): boolean {
  return ID_PATTERN.test(value);
}
