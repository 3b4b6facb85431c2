import { isTrimSpace } from '../trim-space.ts';
/**
 * The :86: information-to-account-owner field in the dialects banks actually send:
 * - german: 3-digit GVC then `?NN` subfields (?00 booking text, ?20-?29 and ?60-?63 purpose with SEPA
 *   keywords EREF+/MREF+/CRED+/SVWZ+..., ?30 bank code/BIC, ?31 account/IBAN, ?32-?33 name);
 *   Polish banks use the same numbering with `~` (ING), `<` or `>` as the subfield mark;
 * - swift-tags: `/EREF/.../NAME/.../IBAN/...` (ING NL, Rabobank, ABN, the SWIFT-structured MT940);
 * - free-text: anything else (mBank semi-free text is mined for TYT./OD:/Z RACH.: where present).
 * Wrapped lines are joined without a separator for structured dialects (banks wrap mid-word at a fixed
 * width) and with a space for free text.
 */
export type Details = {
  dialect: 'german' | 'polish' | 'swift-tags' | 'free-text';
  /** Why a structured :86: cannot be trusted (a German "?" that opens no subfield), else null. */
  malformed: string | null;
  txCode: string | null;
  bookingText: string | null;
  endToEndId: string | null;
  mandateId: string | null;
  creditorId: string | null;
  paymentInfoId: string | null;
  remittance: string | null;
  counterpartyName: string | null;
  counterpartyIban: string | null;
  counterpartyAccount: string | null;
  counterpartyBic: string | null;
  counterpartyAddress: string | null;
  returnReason: string | null;
  purposeCode: string | null;
  creditorReference: string | null;
  creditorReferenceType: string | null;
};

/** Clears `d` for a field of `dialect` (a fresh Details, or the one reused by parseDetails86Reused). */
function empty(dialect: Details['dialect'], d: Details | null): Details {
  if (d !== null) {
    d.dialect = dialect;
    d.malformed = null;
    d.txCode = null;
    d.bookingText = null;
    d.endToEndId = null;
    d.mandateId = null;
    d.creditorId = null;
    d.paymentInfoId = null;
    d.remittance = null;
    d.counterpartyName = null;
    d.counterpartyIban = null;
    d.counterpartyAccount = null;
    d.counterpartyBic = null;
    d.counterpartyAddress = null;
    d.returnReason = null;
    d.purposeCode = null;
    d.creditorReference = null;
    d.creditorReferenceType = null;
    return d;
  }
  return {
    dialect,
    malformed: null,
    txCode: null,
    bookingText: null,
    endToEndId: null,
    mandateId: null,
    creditorId: null,
    paymentInfoId: null,
    remittance: null,
    counterpartyName: null,
    counterpartyIban: null,
    counterpartyAccount: null,
    counterpartyBic: null,
    counterpartyAddress: null,
    returnReason: null,
    purposeCode: null,
    creditorReference: null,
    creditorReferenceType: null,
  };
}

const IBAN_SHAPE = /^[A-Z]{2}\d{2}[A-Z0-9]{8,30}$/;

function nonEmpty(s: string | undefined | null): string | null {
  const t = s?.trim();
  return t ? t : null;
}

// --- German / Polish subfield dialect -------------------------------------------------------

const SUBFIELD_START = /^(\d{3})?\s*([?~<>])\d\d/;

const SEPA_KEYWORDS = /(EREF|KREF|MREF|CRED|DEBT|SVWZ|ABWA|ABWE|IBAN|BIC|COAM|OAMT)\+/g;

function sepaKeywords(purpose: string): Record<string, string> | null {
  SEPA_KEYWORDS.lastIndex = 0;
  const hits: { key: string; start: number; end: number }[] = [];
  for (let m = SEPA_KEYWORDS.exec(purpose); m; m = SEPA_KEYWORDS.exec(purpose)) {
    // A keyword only counts at the start or after a space/separator (so "ABCREF+" is text).
    const before = m.index === 0 ? ' ' : purpose[m.index - 1];
    if (before === ' ' || before === '\n' || m.index === 0 || /[^A-Za-z]/.test(before ?? '')) {
      hits.push({ key: m[1] as string, start: m.index, end: m.index + m[0].length });
    }
  }
  if (hits.length === 0) return null;
  const out: Record<string, string> = {};
  for (let i = 0; i < hits.length; i++) {
    const h = hits[i] as (typeof hits)[number];
    const value = purpose.slice(h.end, hits[i + 1]?.start ?? purpose.length).trim();
    out[h.key] = out[h.key] ? `${out[h.key]} ${value}` : value;
  }
  if (hits[0] && hits[0].start > 0) out.PREFIX = purpose.slice(0, hits[0].start).trim();
  return out;
}

function parseSubfields(text: string, mark: string, code: string | null, into: Details | null): Details {
  const d = empty(mark === '?' ? 'german' : 'polish', into);
  d.txCode = code;
  const body = text.replace(/\r?\n/g, '');
  // In the German format "?" only ever opens a subfield; a bare one means the field is corrupt.
  // (Deutsche Bank wraps "?2A" mid-number, so only a "?" followed by no digit at all counts.)
  if (mark === '?' && /\?(?!\d)/.test(body)) d.malformed = 'a "?" in :86: opens no ?NN subfield';
  const fields = new Map<number, string>();
  const re = mark === '?' ? /\?(\d\d)/g : mark === '~' ? /~(\d\d)/g : mark === '<' ? /<(\d\d)/g : />(\d\d)/g;
  const marks: { n: number; start: number; end: number }[] = [];
  for (let m = re.exec(body); m; m = re.exec(body))
    marks.push({ n: Number(m[1]), start: m.index, end: m.index + m[0].length });
  for (let i = 0; i < marks.length; i++) {
    const k = marks[i] as (typeof marks)[number];
    const v = body.slice(k.end, marks[i + 1]?.start ?? body.length);
    fields.set(k.n, fields.has(k.n) ? `${fields.get(k.n)}${v}` : v);
  }
  const purposeParts: string[] = [];
  // German purpose runs ?20-?29 (+?60-?63); ING PL keeps ~29 for the counterparty account.
  const lastPurpose = mark === '?' ? 29 : 28;
  for (let n = 20; n <= lastPurpose; n++) if (fields.has(n)) purposeParts.push(fields.get(n) as string);
  for (let n = 60; n <= 63; n++) if (fields.has(n)) purposeParts.push(fields.get(n) as string);
  const purpose = purposeParts.join('');
  d.bookingText = nonEmpty(fields.get(0));
  const kw = sepaKeywords(purpose);
  if (kw) {
    d.endToEndId = nonEmpty(kw.EREF);
    d.mandateId = nonEmpty(kw.MREF);
    d.creditorId = nonEmpty(kw.CRED);
    d.remittance = nonEmpty(kw.SVWZ) ?? nonEmpty(kw.PREFIX) ?? null;
    if (kw.IBAN) d.counterpartyIban = nonEmpty(kw.IBAN);
    if (kw.BIC) d.counterpartyBic = nonEmpty(kw.BIC);
  } else d.remittance = nonEmpty(purpose);
  const bank = nonEmpty(fields.get(30));
  const account =
    nonEmpty(fields.get(31)) ?? nonEmpty(fields.get(38)) ?? (mark === '?' ? null : nonEmpty(fields.get(29)));
  const name = `${fields.get(32) ?? ''}${fields.get(33) ?? ''}`.trim();
  d.counterpartyName = name === '' ? null : name;
  if (account) {
    const compact = account.replace(/\s+/g, '');
    d.counterpartyAccount = compact;
    if (IBAN_SHAPE.test(compact)) d.counterpartyIban = compact;
  }
  const iban38 = nonEmpty(fields.get(38))?.replace(/\s+/g, '');
  if (iban38 && IBAN_SHAPE.test(iban38)) d.counterpartyIban = iban38;
  if (bank) {
    if (/^[A-Z]{6}[A-Z0-9]{2}(?:[A-Z0-9]{3})?$/.test(bank)) d.counterpartyBic = bank;
    else if (!d.counterpartyAccount) d.counterpartyAccount = bank;
  }
  return d;
}

// --- SWIFT /TAG/ dialect --------------------------------------------------------------------

const SWIFT_KEYS = new Set([
  'EREF',
  'REMI',
  'NAME',
  'IBAN',
  'BIC',
  'ORDP',
  'BENM',
  'TRTP',
  'CSID',
  'MARF',
  'PREF',
  'NBTX',
  'RTRN',
  'PURP',
  'ADDR',
  'CNTP',
  'ISDT',
  'CODE',
  'ULTD',
  'ULTC',
  'ULTB',
  'SVCL',
  'IREF',
  'KREF',
  'ACCW',
  'OCMT',
  'CREF',
  'RTYP',
  'EXCH',
  'CHGS',
  'ID',
  'CDTRREF',
  'CDTRREFTP',
  'CD',
  'ISSR',
  'BUSP',
  'FX',
  'MNDT',
  'PAYID',
  'OAMT',
  'TXT',
  'PRTRY',
  'ABWA',
  'ABWE',
  'RETR',
  'RREF',
  'STRD',
  'USTD',
]);

function assignSwiftTag(d: Details, key: string, value: string | null): void {
  if (value === null) return;
  switch (key) {
    case 'EREF':
      d.endToEndId ??= value;
      break;
    case 'MARF':
    case 'MNDT':
      d.mandateId ??= value;
      break;
    case 'CSID':
      d.creditorId ??= value;
      break;
    case 'PREF':
      d.paymentInfoId ??= value;
      break;
    case 'TRTP':
    case 'CODE':
      d.txCode ??= value;
      break;
    case 'REMI':
      d.remittance = d.remittance === null ? value : `${d.remittance} ${value}`;
      break;
    case 'RTRN':
      d.returnReason ??= value;
      break;
    case 'PURP':
      d.purposeCode ??= value;
      break;
    case 'NAME':
      d.counterpartyName ??= value;
      break;
    case 'ADDR':
      d.counterpartyAddress ??= value;
      break;
    case 'IBAN':
      d.counterpartyIban ??= value;
      break;
    case 'BIC':
      d.counterpartyBic ??= value;
      break;
    case 'ACCW':
      d.counterpartyAccount ??= value;
      break;
    case 'CNTP': {
      // Rabobank/ING: /CNTP/account/BIC/name/city/
      const [acct, bic, name, city] = value.split('/');
      const account = nonEmpty(acct);
      d.counterpartyAccount ??= account;
      if (account && IBAN_SHAPE.test(account)) d.counterpartyIban ??= account;
      d.counterpartyBic ??= nonEmpty(bic);
      d.counterpartyName ??= nonEmpty(name);
      d.counterpartyAddress ??= nonEmpty(city);
      break;
    }
    default:
      break;
  }
}

/**
 * The known key at `slash` ("/" + 2-9 capital letters + "/") as the shared constant, or null; its length
 * is left in `keyLen`. The same keys as the regex /\/([A-Z]{2,9})\// followed by a lookup in SWIFT_KEYS,
 * recognised by a number computed from the letters while they are read (no string is cut or compared).
 */
let keyLen = 0;

/** Letters A-Z as base-27 digits: exact for up to 9 letters (27^9 < 2^53). */
const KEY_BUCKETS = 64;
const keyCodes: number[][] = Array.from({ length: KEY_BUCKETS }, () => []);
const keyNames: string[][] = Array.from({ length: KEY_BUCKETS }, () => []);
for (const k of SWIFT_KEYS) {
  let code = 0;
  let hash = 0;
  for (let i = 0; i < k.length; i++) {
    code = code * 27 + (k.charCodeAt(i) - 64);
    hash = (hash * 31 + k.charCodeAt(i)) | 0;
  }
  keyCodes[hash & (KEY_BUCKETS - 1)]?.push(code);
  keyNames[hash & (KEY_BUCKETS - 1)]?.push(k);
}

function keyAt(body: string, slash: number): string | null {
  let j = slash + 1;
  let c = body.charCodeAt(j);
  let code = 0;
  let hash = 0;
  while (c >= 65 && c <= 90 && j - slash <= 9) {
    code = code * 27 + (c - 64);
    hash = (hash * 31 + c) | 0;
    c = body.charCodeAt(++j);
  }
  const len = j - slash - 1;
  if (len < 2 || len > 9 || c !== 47) return null;
  const codes = keyCodes[hash & (KEY_BUCKETS - 1)] as number[];
  for (let i = 0; i < codes.length; i++) {
    if (codes[i] === code) {
      keyLen = len;
      return (keyNames[hash & (KEY_BUCKETS - 1)] as string[])[i] as string;
    }
  }
  return null;
}

/** Whether `text` opens with "/" + 2-9 capital letters + "/" (any key, known or not). */
function opensWithKey(text: string): boolean {
  if (text.charCodeAt(0) !== 47) return false;
  let j = 1;
  let c = text.charCodeAt(1);
  while (c >= 65 && c <= 90 && j <= 9) c = text.charCodeAt(++j);
  const len = j - 1;
  return len >= 2 && len <= 9 && c === 47;
}

// The field being read, unwrapped: module state reused from field to field (parseSwiftTags is not
// re-entrant), so a :86: costs no bookkeeping objects.
let uRaw = '';
let uBody = '';
/** Body positions where a line break was removed, and the raw position just after each break. */
const uCuts: number[] = [];
const uAfter: number[] = [];
let uCount = 0;
/** First character of the last value valueAt returned. */
let valueFirst = -1;

/** Sets the field being read and returns its text with the line breaks (/\r?\n/g) removed. */
function unwrap(raw: string): string {
  uRaw = raw;
  uCount = 0;
  let nl = raw.indexOf('\n');
  if (nl < 0) {
    uBody = raw;
    return raw;
  }
  let body = '';
  let from = 0;
  while (nl >= 0) {
    // The same breaks as /\r?\n/g: a CR only counts right before the LF.
    const cut = nl > from && raw.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
    body += raw.slice(from, cut);
    from = nl + 1;
    uCuts[uCount] = body.length;
    uAfter[uCount] = from;
    uCount++;
    nl = raw.indexOf('\n', from);
  }
  uBody = body + raw.slice(from);
  return uBody;
}

/** Raw position of body position `p` (a position at a cut maps to just after the break). */
function toRaw(p: number): number {
  let shift = 0;
  for (let k = 0; k < uCount && (uCuts[k] as number) <= p; k++) shift = (uAfter[k] as number) - (uCuts[k] as number);
  return p + shift;
}

/**
 * body.slice(a, b).trim(), or null when empty, built from the original text: the values are kept on the
 * transaction, and slices of the unwrapped copy would keep all of it alive with each of them.
 */
function valueAt(a: number, b: number): string | null {
  const body = uBody;
  while (a < b && isTrimSpace(body.charCodeAt(a))) a++;
  while (b > a && isTrimSpace(body.charCodeAt(b - 1))) b--;
  if (a >= b) return null; // also a key closed right where the next one opens
  valueFirst = body.charCodeAt(a);
  if (uCount === 0) return uRaw.slice(a, b);
  let out = '';
  let from = a;
  for (let k = 0; k < uCount; k++) {
    const cut = uCuts[k] as number;
    if (cut <= from) continue;
    if (cut >= b) break;
    const start = toRaw(from);
    out += uRaw.slice(start, start + (cut - from));
    from = cut;
  }
  const start = toRaw(from);
  return out + uRaw.slice(start, start + (b - from));
}

function parseSwiftTags(text: string, into: Details | null): Details {
  const d = empty('swift-tags', into);
  const body = unwrap(text);
  let key: string | null = null;
  let valueStart = 0;
  let remiFirst = -1;
  // Scans from slash to slash (no regex): an unknown /XX/ is text, and a key's closing "/" may open the next key.
  for (let slash = body.indexOf('/'); slash >= 0; ) {
    const k = keyAt(body, slash);
    if (k === null) {
      slash = body.indexOf('/', slash + 1);
      continue;
    }
    if (key !== null) assignSwiftTag(d, key, valueAt(valueStart, slash));
    if (key === 'REMI' && remiFirst < 0 && d.remittance !== null) remiFirst = valueFirst;
    key = k;
    valueStart = slash + keyLen + 2;
    slash = valueStart - 1;
  }
  if (key !== null) {
    let end = body.length;
    while (end > valueStart && body.charCodeAt(end - 1) === 47) end--;
    assignSwiftTag(d, key, valueAt(valueStart, end));
    if (key === 'REMI' && remiFirst < 0 && d.remittance !== null) remiFirst = valueFirst;
  }
  d.counterpartyAccount ??= d.counterpartyIban;
  // The remittance's first character, taken from the field (reading it from a value joined across a line
  // break would flatten that value): only "S"/"C" can start STRD/ or CUR/.
  if (d.remittance && (remiFirst === 83 || remiFirst === 67)) {
    // ING/Rabo structured remittance: /REMI/STRD/CUR/1234567890123456.
    const strd = /^(?:STRD\/)?CUR\/(.+)$/.exec(d.remittance);
    if (strd) {
      d.creditorReference = strd[1]?.trim() ?? null;
      d.creditorReferenceType = 'CUR';
    }
  }
  return d;
}

// --- free text ------------------------------------------------------------------------------

function parseFreeText(text: string, into: Details | null): Details {
  const d = empty('free-text', into);
  const flat = text.replace(/\s*\r?\n\s*/g, ' ').trim();
  const code = /^(\d{3})\s/.exec(flat);
  if (code) d.txCode = code[1] ?? null;
  // mBank (PL): "911 TRANSAKCJA COLLECT; ID IPH: ..; Z RACH.: <NRB>; OD: <name>; TYT.: <title>; TNR: <ref>"
  if (/;\s*(?:TYT\.|OD:|DO:|TNR:)/.test(flat)) {
    const part = (label: string) => {
      const m = new RegExp(`${label}\\s*([^;]*)`).exec(flat);
      return nonEmpty(m?.[1]);
    };
    d.remittance = part('TYT\\.:') ?? flat;
    d.counterpartyName = part('(?:^|;)\\s*OD:') ?? part('(?:^|;)\\s*DO:');
    const acct = part('Z RACH\\.:') ?? part('NA RACH\\.:');
    if (acct) d.counterpartyAccount = acct.replace(/\s+/g, '');
    d.bookingText = nonEmpty(flat.split(';')[0]);
    return d;
  }
  d.remittance = flat === '' ? null : flat;
  return d;
}

export function parseDetails86(raw: string): Details {
  return parseInto(raw, null);
}

let reused: Details | null = null;

/** parseDetails86 into one object reused from call to call: for a caller that copies the fields out at once. */
/**
 * Drops what the module keeps from the last field (the reused Details and the field text): they are
 * slices of the input and would keep the whole file alive after the parse.
 */
export function forgetDetails86(): void {
  if (reused) empty('free-text', reused);
  uRaw = '';
  uBody = '';
}

export function parseDetails86Reused(raw: string): Details {
  reused ??= empty('free-text', null);
  return parseInto(raw, reused);
}

function parseInto(raw: string, into: Details | null): Details {
  // Printable ASCII other than a space is never \s: the common case needs no regex.
  const c0 = raw.charCodeAt(0);
  const text = c0 > 32 && c0 < 127 ? raw : raw.replace(/^\s+/, '');
  // A "/" cannot start a German or Polish subfield field: the common /TAG/ field skips that regex.
  const sub = text.charCodeAt(0) === 47 ? null : SUBFIELD_START.exec(text);
  if (sub) return parseSubfields(text, sub[2] as string, sub[1] ?? null, into);
  if (opensWithKey(text) || /^[A-Z]{2,9}\/\//.test(text)) return parseSwiftTags(text, into);
  return parseFreeText(text, into);
}
