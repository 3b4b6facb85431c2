import { isTrimSpace } from '../trim-space.ts';
import { slashes } from './find-char.ts';
import { type TextWindow, windowFor } from './text-window.ts';
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
  dialect: 'german' | 'polish' | 'triodos' | 'swift-tags' | 'free-text';
  /** Why a structured :86: cannot be trusted (a German "?" that opens no subfield), else null. */
  malformed: string | null;
  txCode: string | null;
  bookingText: string | null;
  endToEndId: string | null;
  /** The customer's own reference of a German KREF+ (a batch's reference), else null. */
  customerRef: string | null;
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
  /**
   * What the field says that no field of the transaction holds (a German ?10 primanota or ?34, a CRED+
   * creditor id, a /ISDT/ date, mBank's TNR), in the bank's own notation, joined with "; ": every
   * character of a :86: lands in exactly one field (issue 38). Null when everything was read.
   */
  unread: string | null;
};

/** Clears `d` for a field of `dialect` (a fresh Details, or the one reused by parseDetails86At). */
function empty(dialect: Details['dialect'], d: Details | null): Details {
  if (d !== null) {
    d.dialect = dialect;
    d.malformed = null;
    d.txCode = null;
    d.bookingText = null;
    d.endToEndId = null;
    d.customerRef = null;
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
    d.unread = null;
    return d;
  }
  return {
    dialect,
    malformed: null,
    txCode: null,
    bookingText: null,
    endToEndId: null,
    customerRef: null,
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
    unread: null,
  };
}

/** Keeps `text` (in the bank's notation) as what no field of the transaction holds. */
function keepUnread(d: Details, text: string): void {
  d.unread = d.unread === null ? text : `${d.unread}; ${text}`;
}

const IBAN_SHAPE = /^[A-Z]{2}\d{2}[A-Z0-9]{8,30}$/;

function nonEmpty(s: string | undefined | null): string | null {
  const t = s?.trim();
  return t ? t : null;
}

// --- German / Polish subfield dialect -------------------------------------------------------

const SUBFIELD_START = /^(\d{3})?\s*([?~<>])\d\d/;

const SEPA_KEYWORDS = /(EREF|KREF|MREF|CRED|DEBT|SVWZ|ABWA|ABWE|IBAN|BIC|COAM|OAMT)\+/g;

/**
 * The SEPA keywords of a German purpose text, whose subfields (?20, ?21, ...) begin at the offsets
 * `subfieldStarts` (joined without a separator: banks wrap mid-word at the subfield width).
 */
function sepaKeywords(purpose: string, subfieldStarts: readonly number[]): Record<string, string> | null {
  SEPA_KEYWORDS.lastIndex = 0;
  const hits: { key: string; start: number; end: number }[] = [];
  for (let m = SEPA_KEYWORDS.exec(purpose); m; m = SEPA_KEYWORDS.exec(purpose)) {
    // A keyword only counts at the start of a subfield or after a space/separator (so "ABCREF+" is
    // text, while "?20EREF+NOTPROVIDED?21SVWZ+..." has two keywords though a letter precedes SVWZ+).
    const before = m.index === 0 ? ' ' : purpose[m.index - 1];
    if (
      before === ' ' ||
      before === '\n' ||
      m.index === 0 ||
      /[^A-Za-z]/.test(before ?? '') ||
      subfieldStarts.includes(m.index)
    ) {
      hits.push({ key: m[1] as string, start: m.index, end: m.index + m[0].length });
    }
  }
  if (hits.length === 0) return null;
  const out: Record<string, string> = {};
  const add = (key: string, value: string) => {
    if (value !== '') out[key] = out[key] ? `${out[key]} ${value}` : value;
  };
  for (let i = 0; i < hits.length; i++) {
    const h = hits[i] as (typeof hits)[number];
    const to = hits[i + 1]?.start ?? purpose.length;
    // A reference keyword holds at most 35 characters (DK "SEPA-Datenformate im MT940", Feld 86): whole
    // subfields after it that would overflow that are the bank's own purpose text ("?20KREF+TFNr 01005
    // PayId CTSc-?2101 EBB?22MTLG:SEPA-Ueberweisungsauftrag ..."), not the reference.
    let from = h.end;
    while (from < to && isTrimSpace(purpose.charCodeAt(from))) from++;
    const cut =
      !REFERENCE_KEYS.has(h.key) || fitsReference(purpose, from, to) ? to : referenceEnd(from, to, subfieldStarts);
    add(h.key, purpose.slice(h.end, cut).trim());
    if (cut < to) add('TEXT', purpose.slice(cut, to).trim());
  }
  if (hits[0] && hits[0].start > 0) out.PREFIX = purpose.slice(0, hits[0].start).trim();
  return out;
}

/** The longest SEPA reference: 35 characters, for the keywords that hold one. */
const REFERENCE_MAX = 35;
const REFERENCE_KEYS: ReadonlySet<string> = new Set(['EREF', 'KREF', 'MREF', 'CRED']);

/** Whether purpose.slice(from, to), trimmed, fits a reference (the caller has trimmed its start). */
function fitsReference(purpose: string, from: number, to: number): boolean {
  while (to > from && isTrimSpace(purpose.charCodeAt(to - 1))) to--;
  return to - from <= REFERENCE_MAX;
}

/**
 * Where a reference keyword's value that runs from `from` to `to` (more than REFERENCE_MAX characters)
 * ends: at the last subfield start within REFERENCE_MAX characters of `from`, else at `to` (a reference
 * wrapped inside one subfield is not cut).
 */
function referenceEnd(from: number, to: number, subfieldStarts: readonly number[]): number {
  let cut = to;
  for (const s of subfieldStarts) {
    if (s <= from) continue;
    if (s - from > REFERENCE_MAX || s >= to) break;
    cut = s;
  }
  return cut;
}

/** A repeated subfield number continues the same subfield (banks wrap long ?20 texts that way). */
function appendSubfield(fields: Map<number, string>, n: number, v: string): void {
  const before = fields.get(n);
  fields.set(n, before === undefined ? v : before + v);
}

function parseSubfields(text: string, mark: string, code: string | null, into: Details | null): Details {
  const d = empty(mark === '?' ? 'german' : 'polish', into);
  d.txCode = code;
  const body = text.replace(/\r?\n/g, '');
  // In the German format "?" only ever opens a subfield; a bare one means the field is corrupt.
  // (Deutsche Bank wraps "?2A" mid-number, so only a "?" followed by no digit at all counts.)
  if (mark === '?' && /\?(?!\d)/.test(body)) d.malformed = 'a "?" in :86: opens no ?NN subfield';
  const fields = subfieldsOf(body, mark);
  if (mark === '>' && fields.has(10)) return triodos(fields, d);
  d.bookingText = nonEmpty(fields.get(0));
  readPurpose(fields, mark, d);
  const own31 = nonEmpty(fields.get(31));
  const own38 = nonEmpty(fields.get(38));
  const from29 = own31 === null && own38 === null && mark !== '?';
  const bankRead = readCounterpartySubfields(fields, own31, own38, from29, d);
  // Subfields no field holds (?10 primanota, ?34 text key extension, a bank code beside an account,
  // a ?38 that is no IBAN beside a ?31 ...) are kept as "?NN value", so no character of the :86: is lost.
  const iban38 = own38?.replace(/\s+/g, '');
  for (const [n, v] of fields) {
    if (readSubfield(n, mark, from29)) {
      if (n === 30 && !bankRead) keepUnread(d, `${mark}30 ${v.trim()}`);
      else if (n === 38 && own31 !== null && !(iban38 !== undefined && IBAN_SHAPE.test(iban38)))
        keepUnread(d, `${mark}38 ${v.trim()}`);
      continue;
    }
    const value = v.trim();
    if (value !== '') keepUnread(d, `${mark}${n < 10 ? '0' : ''}${n} ${value}`);
  }
  return d;
}

/**
 * The subfields by number. A subfield runs from its mark to the next one: each is kept as the next mark
 * is found, with no list of marks (a hostile field of 400,000 marks made that list the parser's cost, its
 * objects surviving scavenge after scavenge as it grew: time grew 4.5x per doubling).
 */
function subfieldsOf(body: string, mark: string): Map<number, string> {
  const fields = new Map<number, string>();
  const re = mark === '?' ? /\?(\d\d)/g : mark === '~' ? /~(\d\d)/g : mark === '<' ? /<(\d\d)/g : />(\d\d)/g;
  let open = -1;
  let from = 0;
  for (let m = re.exec(body); m; m = re.exec(body)) {
    if (open >= 0) appendSubfield(fields, open, body.slice(from, m.index));
    open = Number(m[1]);
    from = m.index + m[0].length;
  }
  if (open >= 0) appendSubfield(fields, open, body.slice(from));
  return fields;
}

/** The purpose subfields joined, read for SEPA keywords (EREF+, SVWZ+ ...) or else kept as the remittance. */
function readPurpose(fields: Map<number, string>, mark: string, d: Details): void {
  let purpose = '';
  const subfieldStarts: number[] = [];
  // German purpose runs ?20-?29 (+?60-?63); ING PL keeps ~29 for the counterparty account.
  const lastPurpose = mark === '?' ? 29 : 28;
  for (let n = 20; n <= 63; n = n === lastPurpose ? 60 : n + 1) {
    const part = fields.get(n);
    if (part === undefined) continue;
    subfieldStarts.push(purpose.length);
    purpose += part;
  }
  const kw = sepaKeywords(purpose, subfieldStarts);
  if (!kw) {
    d.remittance = nonEmpty(purpose);
    return;
  }
  d.endToEndId = nonEmpty(kw.EREF);
  d.mandateId = nonEmpty(kw.MREF);
  d.creditorId = nonEmpty(kw.CRED);
  d.customerRef = nonEmpty(kw.KREF);
  d.remittance = nonEmpty(kw.SVWZ) ?? nonEmpty(kw.PREFIX) ?? null;
  const text = nonEmpty(kw.TEXT);
  if (text !== null) d.remittance = d.remittance === null ? text : `${d.remittance} ${text}`;
  if (kw.IBAN) d.counterpartyIban = nonEmpty(kw.IBAN);
  if (kw.BIC) d.counterpartyBic = nonEmpty(kw.BIC);
  // Keywords no field of the transaction holds (the creditor id, the ultimate parties, the original
  // amounts), and purpose text before SVWZ+'s, are kept as written.
  if (kw.SVWZ !== undefined && kw.PREFIX) keepUnread(d, kw.PREFIX);
  for (const key of UNREAD_KEYWORDS) {
    const v = kw[key];
    if (v !== undefined) keepUnread(d, `${key}+${v}`);
  }
}

/**
 * The counterparty from ?30 (bank code or BIC), ?31/?38 (account, IBAN; ~29 in the Polish layout) and
 * ?32/?33 (name). Returns false when ?30 had no field to go to (it is then kept as unread).
 */
function readCounterpartySubfields(
  fields: Map<number, string>,
  own31: string | null,
  own38: string | null,
  from29: boolean,
  d: Details,
): boolean {
  const bank = nonEmpty(fields.get(30));
  const account = own31 ?? own38 ?? (from29 ? nonEmpty(fields.get(29)) : null);
  const name = `${fields.get(32) ?? ''}${fields.get(33) ?? ''}`.trim();
  d.counterpartyName = name === '' ? null : name;
  if (account) {
    const compact = account.replace(/\s+/g, '');
    d.counterpartyAccount = compact;
    if (IBAN_SHAPE.test(compact)) d.counterpartyIban = compact;
  }
  const iban38 = own38?.replace(/\s+/g, '');
  if (iban38 && IBAN_SHAPE.test(iban38)) d.counterpartyIban = iban38;
  if (!bank) return true;
  if (/^[A-Z]{6}[A-Z0-9]{2}(?:[A-Z0-9]{3})?$/.test(bank)) d.counterpartyBic = bank;
  else if (!d.counterpartyAccount) d.counterpartyAccount = bank;
  else return false;
  return true;
}

/** The SEPA keywords of a German purpose no field of the transaction holds. */
const UNREAD_KEYWORDS = ['CRED', 'DEBT', 'ABWA', 'ABWE', 'COAM', 'OAMT'] as const;

/** Whether subfield `n` is read into a field: ?00, the purpose, ?30-?33, ?38 (and ~29, Polish, when it is the account). */
function readSubfield(n: number, mark: string, from29: boolean): boolean {
  if (n === 0 || (n >= 30 && n <= 33) || n === 38 || (n >= 60 && n <= 63)) return true;
  if (n >= 20 && n <= 28) return true;
  return n === 29 && (mark === '?' || from29);
}

/**
 * Triodos Bank NL (":25:TRIODOSBANK/<account>", :86: "000>10...>20...>31..."): `>10` is the counterparty's
 * account (zeros when it is given as an IBAN), `>20`-`>2x` the description, which in the SEPA layout
 * opens with the counterparty's BIC (`>20`) and IBAN (`>21`), and `>31` is the holder's own account (the
 * statement's :25:), not the counterparty's.
 */
function triodos(fields: Map<number, string>, d: Details): Details {
  d.dialect = 'triodos';
  const account = nonEmpty(fields.get(10))?.replace(/\s+/g, '') ?? null;
  if (account !== null && !/^0+$/.test(account)) d.counterpartyAccount = account;
  let first = 20;
  const bic = nonEmpty(fields.get(20));
  const iban = nonEmpty(fields.get(21))?.replace(/\s+/g, '');
  if (bic !== null && BIC_SHAPE.test(bic) && iban !== undefined && IBAN_SHAPE.test(iban)) {
    d.counterpartyBic = bic;
    d.counterpartyIban = iban;
    d.counterpartyAccount = iban;
    first = 22;
  }
  let text = '';
  for (let n = first; n <= 29; n++) text += fields.get(n) ?? '';
  d.remittance = nonEmpty(text);
  // >31 is the holder's own account (the statement's :25:); any other subfield is kept as written.
  for (const [n, v] of fields) {
    if (n === 10 || n === 31 || (n >= 20 && n <= 29)) continue;
    const value = v.trim();
    if (value !== '') keepUnread(d, `>${n < 10 ? '0' : ''}${n} ${value}`);
  }
  return d;
}

// --- SWIFT /TAG/ dialect --------------------------------------------------------------------

/**
 * The keys of the /TAG/ dialect. A key is named by its index here: those read into Details come first,
 * and the constants below are their indexes.
 */
const SWIFT_KEYS: readonly string[] = [
  'EREF',
  'MARF',
  'MNDT',
  'CSID',
  'PREF',
  'TRTP',
  'CODE',
  'REMI',
  'RTRN',
  'PURP',
  'NAME',
  'ADDR',
  'IBAN',
  'BIC',
  'ACCW',
  'CNTP',
  // Known keys whose values are not read (each still ends the value before it).
  'ORDP',
  'BENM',
  'NBTX',
  'ISDT',
  'ULTD',
  'ULTC',
  'ULTB',
  'SVCL',
  'IREF',
  'KREF',
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
  // ASB (NZ) writes the counterparty's account after its name: "/BENM/name\n/ACNO/12-3011-0334130-37".
  'ACNO',
];
const EREF = 0;
const MARF = 1;
const MNDT = 2;
const CSID = 3;
const PREF = 4;
const TRTP = 5;
const CODE = 6;
const REMI = 7;
const RTRN = 8;
const PURP = 9;
const NAME = 10;
const ADDR = 11;
const IBAN = 12;
const BIC = 13;
const ACCW = 14;
const CNTP = 15;
// REMI's ING subfields: /REMI/USTD//text/ (unstructured), /REMI/STRD/CUR/reference/ (structured).
const USTD = SWIFT_KEYS.indexOf('USTD');
const STRD = SWIFT_KEYS.indexOf('STRD');
// The ordering party (payer) and the beneficiary: the counterparty on a credit and on a debit.
const ORDP = SWIFT_KEYS.indexOf('ORDP');
const BENM = SWIFT_KEYS.indexOf('BENM');
const ACNO = SWIFT_KEYS.indexOf('ACNO');
// Rabobank's structured creditor reference: /CDTRREFTP//CD/<type>/ISSR/<issuer>/CDTRREF/<reference>/.
const CDTRREF = SWIFT_KEYS.indexOf('CDTRREF');
const CD = SWIFT_KEYS.indexOf('CD');

const BIC_SHAPE = /^[A-Z]{6}[A-Z0-9]{2}(?:[A-Z0-9]{3})?$/;
/** An account number as banks write it: digits, letters and separators, no space, some digits. */
const ACCOUNT_SHAPE = /^(?=(?:.*\d){6})[A-Z0-9.-]{6,34}$/;

/**
 * The party of /ORDP/ or /BENM/, as `raw` (the value with its line breaks) writes it. Three layouts:
 * - empty, the party in the keys that follow: Rabobank, ABN ("/ORDP//NAME/J. Doe/ADDR/...");
 * - one line like ING's CNTP, "account/BIC/name/city" (ING IBP), or just a name ("/ORDP/J. Doe");
 * - the SWIFT party on lines, each after the first opened by "/" (Komercijalna Banka): the account, the
 *   name, then the payment's own details, kept as the remittance (a REMI after them adds to it).
 * Keys read later (NAME, IBAN, CNTP, REMI) do not replace what is set here, nor this what they set.
 */
function readParty(d: Details, raw: string): void {
  const lines = raw.split('\n').map((l) => l.trim());
  if (lines.length > 2 && lines.slice(1).every((l) => l.startsWith('/'))) {
    const account = nonEmpty(lines[0]?.replace(/\s+/g, ''));
    if (account !== null) {
      d.counterpartyAccount ??= account;
      if (IBAN_SHAPE.test(account)) d.counterpartyIban ??= account;
    }
    d.counterpartyName ??= nonEmpty(lines[1]?.replace(/^\/+|\/+$/g, ''));
    const details = lines
      .slice(2)
      .map((l) => l.replace(/^\/+|\/+$/g, '').trim())
      .filter((l) => l !== '')
      .join(' ');
    if (details !== '') d.remittance ??= details;
    return;
  }
  const value = lines.join('');
  const parts = value.split('/').map((p) => p.trim());
  let i = 0;
  const first = (parts[0] as string).replace(/\s+/g, '');
  if (parts.length > 1 && ACCOUNT_SHAPE.test(first)) {
    d.counterpartyAccount ??= first;
    if (IBAN_SHAPE.test(first)) d.counterpartyIban ??= first;
    i = 1;
    if (BIC_SHAPE.test(parts[1] ?? '')) {
      d.counterpartyBic ??= parts[1] as string;
      i = 2;
    }
    d.counterpartyName ??= nonEmpty(parts[i]);
    d.counterpartyAddress ??= nonEmpty(parts.slice(i + 1).join(' '));
    return;
  }
  d.counterpartyName ??= nonEmpty(value);
}

/** Sets what the value of `key` gives; `value` is the one valueAt just returned (its first unit is valueFirst). */
function assignSwiftTag(d: Details, key: number, value: string | null): void {
  if (value === null) return;
  if (assignReference(d, key, value) || assignRemittance(d, key, value) || assignParty(d, key, value)) return;
  // A known key whose value no field of the transaction holds (/ISDT/, /ULTD/, /BUSP/ ...).
  keepUnread(d, `/${SWIFT_KEYS[key]}/${value}`);
}

/** The payment's references and codes (EREF, MARF/MNDT, CSID, PREF, TRTP/CODE, RTRN, PURP); false for another key. */
function assignReference(d: Details, key: number, value: string): boolean {
  switch (key) {
    case EREF:
      if (d.endToEndId === null) d.endToEndId = value;
      else if (d.endToEndId !== value) keepAgain(d, key, value);
      return true;
    case MARF:
    case MNDT:
      if (d.mandateId === null) d.mandateId = value;
      else if (d.mandateId !== value) keepAgain(d, key, value);
      return true;
    case CSID:
      // The creditor id has no field of the transaction: it is kept as written too.
      d.creditorId ??= value;
      keepUnread(d, `/CSID/${value}`);
      return true;
    case PREF:
      if (d.paymentInfoId === null) d.paymentInfoId = value;
      else if (d.paymentInfoId !== value) keepAgain(d, key, value);
      return true;
    case TRTP:
    case CODE:
      if (d.txCode === null) d.txCode = value;
      else if (d.txCode !== value) keepAgain(d, key, value);
      return true;
    case RTRN:
      if (d.returnReason === null) d.returnReason = value;
      else if (d.returnReason !== value) keepAgain(d, key, value);
      return true;
    case PURP:
      d.purposeCode ??= value;
      keepUnread(d, `/PURP/${value}`);
      return true;
    default:
      return false;
  }
}

/** The remittance text and the creditor reference (REMI/USTD, STRD, CDTRREF, CD); false for another key. */
function assignRemittance(d: Details, key: number, value: string): boolean {
  switch (key) {
    case REMI:
    case USTD: {
      // ING writes the unstructured text after an empty subfield: "/REMI/USTD//text/" (USTD's value is
      // "/text"), "/REMI///text/" (REMI's is "//text"). A single leading "/" of REMI is text ("/INV/123").
      // The first character comes from the field (valueAt left it in valueFirst): reading a value joined
      // across a line break flattens it, a copy per wrapped remittance that made MT940 parsing slower.
      // Only a value that opens with "/" is read itself, for its second character.
      const slashFirst = valueFirst === 47;
      const skip = !slashFirst ? 0 : key === USTD ? 1 : value.startsWith('//') ? 2 : 0;
      if (skip === value.length) return true;
      const text = skip === 0 ? value : value.slice(skip);
      d.remittance = d.remittance === null ? text : `${d.remittance} ${text}`;
      return true;
    }
    case STRD: {
      // "/REMI/STRD/CUR/1234567890123456/": the reference's issuer or type, then the reference (camt's
      // Strd/CdtrRefInf, kept as the creditor reference as camt's is).
      const slash = value.indexOf('/');
      const type = slash < 0 ? null : nonEmpty(value.slice(0, slash));
      const reference = nonEmpty(slash < 0 ? value : value.slice(slash + 1).replace(/^\/+/, ''));
      if (reference === null || d.creditorReference !== null) return true;
      d.creditorReference = reference;
      d.creditorReferenceType = type;
      return true;
    }
    case CDTRREF:
      // Rabobank: "/REMI//CDTRREFTP//CD/SCOR/ISSR/CUR/CDTRREF/1234567899874563/".
      if (d.creditorReference === null) d.creditorReference = value;
      else if (d.creditorReference !== value) keepAgain(d, key, value);
      return true;
    case CD:
      if (d.creditorReferenceType === null) d.creditorReferenceType = value;
      else if (d.creditorReferenceType !== value) keepAgain(d, key, value);
      return true;
    default:
      return false;
  }
}

/** The counterparty (NAME, ADDR, IBAN, BIC, ACCW/ACNO, CNTP); false for another key. */
function assignParty(d: Details, key: number, value: string): boolean {
  switch (key) {
    case NAME:
      if (d.counterpartyName === null) d.counterpartyName = value;
      else if (d.counterpartyName !== value) keepAgain(d, key, value);
      return true;
    case ADDR:
      if (d.counterpartyAddress === null) d.counterpartyAddress = value;
      else if (d.counterpartyAddress !== value) keepAgain(d, key, value);
      return true;
    case IBAN:
      if (d.counterpartyIban === null) d.counterpartyIban = value;
      else if (d.counterpartyIban !== value) keepAgain(d, key, value);
      return true;
    case BIC:
      if (d.counterpartyBic === null) d.counterpartyBic = value;
      else if (d.counterpartyBic !== value) keepAgain(d, key, value);
      return true;
    case ACCW:
    case ACNO:
      if (d.counterpartyAccount === null) d.counterpartyAccount = value;
      else if (d.counterpartyAccount !== value) keepAgain(d, key, value);
      return true;
    case CNTP: {
      // Rabobank/ING: /CNTP/account/BIC/name/city/
      const [acct, bic, name, city] = value.split('/');
      const account = nonEmpty(acct);
      d.counterpartyAccount ??= account;
      if (account && IBAN_SHAPE.test(account)) d.counterpartyIban ??= account;
      d.counterpartyBic ??= nonEmpty(bic);
      d.counterpartyName ??= nonEmpty(name);
      d.counterpartyAddress ??= nonEmpty(city);
      return true;
    }
    default:
      return false;
  }
}

/** A later different value of a key already read (a second /NAME/) is kept as written. */
function keepAgain(d: Details, key: number, value: string): void {
  keepUnread(d, `/${SWIFT_KEYS[key]}/${value}`);
}

/**
 * A key's letters packed 5 bits each (A = 1 ... Z = 26): the first six into `lo`, the next three into
 * `hi`, so two small integers name up to 9 letters exactly (no letter is 0, so lengths differ too), and
 * the known keys are found by them in a small hash table.
 */
const KEY_SLOTS = 256; // open addressing, at most a fifth full
const slotLo = new Int32Array(KEY_SLOTS);
const slotHi = new Int32Array(KEY_SLOTS);
/** The key's index in SWIFT_KEYS + 1; 0 for an empty slot. */
const slotKey = new Int32Array(KEY_SLOTS);

function slotOf(lo: number, hi: number): number {
  return (lo ^ (lo >>> 7) ^ (lo >>> 17) ^ (hi * 31)) & (KEY_SLOTS - 1);
}

for (const [index, k] of SWIFT_KEYS.entries()) {
  let lo = 0;
  let hi = 0;
  for (let i = 0; i < k.length; i++) {
    if (i < 6) lo = (lo << 5) | (k.charCodeAt(i) & 31);
    else hi = (hi << 5) | (k.charCodeAt(i) & 31);
  }
  let s = slotOf(lo, hi);
  while (slotKey[s] !== 0) s = (s + 1) & (KEY_SLOTS - 1);
  slotLo[s] = lo;
  slotHi[s] = hi;
  slotKey[s] = index + 1;
}

/** The index of the known key whose letters are packed into `lo` and `hi`, or -1. */
function keyOf(lo: number, hi: number): number {
  for (let s = slotOf(lo, hi); ; s = (s + 1) & (KEY_SLOTS - 1)) {
    const key = slotKey[s] as number;
    if (key === 0) return -1;
    if (slotLo[s] === lo && slotHi[s] === hi) return key - 1;
  }
}

/**
 * The field being read is text.slice(start, end), read in place through a TextWindow that holds it
 * (module state reused from field to field; parseSwiftTags is not re-entrant): fUnits[i - fBase] is
 * text.charCodeAt(i). The /TAG/ structure is read as if the line breaks were not there (banks wrap
 * mid-word at a fixed width, keys included: "/BI\nC/"), without building that unwrapped copy: a break
 * is a line feed, with the carriage return right before it (the same breaks as /\r?\n/g), and every
 * read steps over breaks. Nothing is read at or past `end`.
 */
let fText = '';
let fUnits: Uint16Array = new Uint16Array(0);
let fBase = 0;
/** The line feeds of the field: fBreaks[fBreakFrom] up to fBreaks[fBreakTo]. */
let fBreaks: number[] = [];
let fBreakFrom = 0;
let fBreakTo = 0;
/** The line feeds of a field given as a string. */
const ownBreaks: number[] = [];
/** Where the closing "/" of the key keyAt last recognised is. */
let keyClose = 0;
/** First character of the last value valueAt returned. */
let valueFirst = -1;

/** Whether the field has a line break (that the unwrapped text would not have) at `p`. */
function isBreak(p: number, end: number): boolean {
  const c = fUnits[p - fBase] as number;
  return c === 10 || (c === 13 && p + 1 < end && fUnits[p + 1 - fBase] === 10);
}

/**
 * The known key at `slash` ("/" + 2-9 capital letters + "/", breaks stepped over) as its index in
 * SWIFT_KEYS, or -1; where its closing "/" is is left in `keyClose`. The same keys as the regex /\/([A-Z]{2,9})\//
 * on the unwrapped text followed by a lookup in SWIFT_KEYS, recognised by numbers computed from the
 * letters (no string is cut or compared).
 */
function keyAt(slash: number, end: number): number {
  const u = fUnits;
  const o = fBase;
  // Usually the letters and the closing "/" are on one line.
  let j = slash + 1;
  let lo = 0;
  let hi = 0;
  let c = j < end ? (u[j - o] as number) : -1;
  while (c >= 65 && c <= 90 && j - slash <= 9) {
    if (j - slash <= 6) lo = (lo << 5) | (c & 31);
    else hi = (hi << 5) | (c & 31);
    c = ++j < end ? (u[j - o] as number) : -1;
  }
  if (c === 47) {
    if (j - slash - 1 < 2) return -1;
    const k = keyOf(lo, hi);
    if (k >= 0) keyClose = j;
    return k;
  }
  return c === 10 || c === 13 ? keyAcrossBreaks(slash, end) : -1;
}

/** keyAt for letters with a break among them or after them: read again, stepping over breaks. */
function keyAcrossBreaks(slash: number, end: number): number {
  const u = fUnits;
  const o = fBase;
  let j = slash + 1;
  let len = 0;
  let lo = 0;
  let hi = 0;
  let c = j < end ? (u[j - o] as number) : -1;
  for (;;) {
    if (c === 10 || (c === 13 && j + 1 < end && u[j + 1 - o] === 10)) {
      j += c === 10 ? 1 : 2;
      c = j < end ? (u[j - o] as number) : -1;
      continue;
    }
    if (c < 65 || c > 90 || len === 9) break;
    if (len < 6) lo = (lo << 5) | (c & 31);
    else hi = (hi << 5) | (c & 31);
    len++;
    c = ++j < end ? (u[j - o] as number) : -1;
  }
  if (len < 2 || c !== 47) return -1;
  const k = keyOf(lo, hi);
  if (k >= 0) keyClose = j;
  return k;
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

/** opensWithKey(text.slice(start, end)), where u[i - o] is text.charCodeAt(i) over that range. */
function opensWithKeyIn(u: Uint16Array, o: number, start: number, end: number): boolean {
  if (start >= end || u[start - o] !== 47) return false;
  let j = start + 1;
  let c = j < end ? (u[j - o] as number) : -1;
  while (c >= 65 && c <= 90 && j - start <= 9) c = ++j < end ? (u[j - o] as number) : -1;
  const len = j - start - 1;
  return len >= 2 && len <= 9 && c === 47;
}

/** Sets the field being read (held by `win`), whose line feeds are breaks[from] up to breaks[to]. */
function setField(text: string, win: TextWindow, breaks: number[], from: number, to: number): void {
  fText = text;
  fUnits = win.units;
  fBase = win.base;
  fBreaks = breaks;
  fBreakFrom = from;
  fBreakTo = to;
}

/** Sets the field `text` (all of it), finding its line feeds. */
function setOwnField(text: string): void {
  let count = 0;
  for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', nl + 1)) ownBreaks[count++] = nl;
  setField(text, windowFor(text), ownBreaks, 0, count);
}

/**
 * The unwrapped text between positions `a` and `b` of the field, trimmed, or null when empty. The
 * characters a break removes are all white space to trim(), so trimming in place trims the unwrapped
 * text. A value on one line is one slice of the original text; the values are kept on the transaction,
 * and slices of an unwrapped copy would keep all of it alive with each of them.
 */
function valueAt(a: number, b: number): string | null {
  const text = fText;
  const u = fUnits;
  const o = fBase;
  while (a < b && isTrimSpace(u[a - o] as number)) a++;
  while (b > a && isTrimSpace(u[b - 1 - o] as number)) b--;
  if (a >= b) return null; // also a key closed right where the next one opens
  valueFirst = u[a - o] as number;
  let out = '';
  let from = a;
  for (let k = fBreakFrom; k < fBreakTo; k++) {
    const nl = fBreaks[k] as number;
    if (nl < from) continue;
    if (nl >= b) break;
    out += text.slice(from, nl > from && u[nl - 1 - o] === 13 ? nl - 1 : nl);
    from = nl + 1;
  }
  return from === a ? text.slice(a, b) : out + text.slice(from, b);
}

/**
 * Where the value that runs from `a` up to `b` (the next key's "/" or the field's end) ends: a value loses
 * its trailing slashes (breaks among them do not count). ING closes every value with one ("/EREF/ABC//CNTP/"),
 * Rabobank does not ("/EREF/ABC/CNTP/"), and the last value of either may end with some.
 */
function valueEnd(a: number, b: number, end: number): number {
  while (b > a && (fUnits[b - 1 - fBase] === 47 || isBreak(b - 1, end))) b--;
  return b;
}

/** The field's text from `a` to `b` with its line breaks as "\n" (a party's layout is in its lines). */
function partyValue(a: number, b: number): string {
  return fText.slice(a, b).replace(/\r\n/g, '\n');
}

/** The /TAG/ field text.slice(start, end), set with setField (or setOwnField). */
function parseSwiftTags(text: string, start: number, end: number, into: Details | null): Details {
  const d = empty('swift-tags', into);
  let key = -1;
  let valueStart = 0;
  let remiFirst = -1;
  // Scans from slash to slash (no regex): an unknown /XX/ is text, and a key's closing "/" may open the next key.
  let slash = fUnits[start - fBase] === 47 ? start : slashes.find(text, start, end);
  while (slash >= 0) {
    const k = keyAt(slash, end);
    if (k < 0) {
      slash = slashes.find(text, slash + 1, end);
      continue;
    }
    if (key === ORDP || key === BENM) readParty(d, partyValue(valueStart, valueEnd(valueStart, slash, end)));
    else if (key >= 0) assignSwiftTag(d, key, valueAt(valueStart, valueEnd(valueStart, slash, end)));
    else if (slash > start) {
      // Text before the first known key (an unknown "/BAI/469/..." key and its value) is kept as written.
      const head = valueAt(start, slash);
      if (head !== null) keepUnread(d, head);
    }
    if (key === REMI && remiFirst < 0 && d.remittance !== null) remiFirst = valueFirst;
    key = k;
    valueStart = keyClose + 1;
    slash = keyClose;
  }
  if (key === ORDP || key === BENM) readParty(d, partyValue(valueStart, valueEnd(valueStart, end, end)));
  else if (key >= 0) {
    assignSwiftTag(d, key, valueAt(valueStart, valueEnd(valueStart, end, end)));
    if (key === REMI && remiFirst < 0 && d.remittance !== null) remiFirst = valueFirst;
  } else {
    const all = valueAt(start, end);
    if (all !== null) keepUnread(d, all);
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

/** The labels of mBank's semi-free text read into fields (the title, the counterparty and its account). */
const MBANK_READ = /^(TYT\.:|OD:|DO:|Z RACH\.:|NA RACH\.:)/;

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
    const title = part('TYT\\.:');
    d.counterpartyName = part('(?:^|;)\\s*OD:') ?? part('(?:^|;)\\s*DO:');
    const acct = part('Z RACH\\.:') ?? part('NA RACH\\.:');
    if (acct) d.counterpartyAccount = acct.replace(/\s+/g, '');
    const parts = flat.split(';');
    d.bookingText = nonEmpty(parts[0]);
    // The parts no label above read (ID IPH:, DATA STEMPLA:, TNR:, a second OD: ...) are kept as written:
    // after the title as what no field holds, or as the remittance when there is no title.
    const seen = new Set<string>();
    for (let i = 1; i < parts.length; i++) {
      const p = (parts[i] as string).trim();
      if (p === '') continue;
      const label = MBANK_READ.exec(p)?.[1];
      if (
        label !== undefined &&
        !seen.has(label) &&
        !(label === 'DO:' && seen.has('OD:')) &&
        !(label === 'NA RACH.:' && seen.has('Z RACH.:'))
      ) {
        seen.add(label);
        continue;
      }
      if (title === null) d.remittance = d.remittance === null ? p : `${d.remittance}; ${p}`;
      else keepUnread(d, p);
    }
    if (title !== null) d.remittance = title;
    return d;
  }
  d.remittance = flat === '' ? null : flat;
  return d;
}

export function parseDetails86(raw: string): Details {
  return parseInto(raw, null);
}

let reused: Details | null = null;

/**
 * Drops what the module keeps from the last field (the reused Details and the field text): they are
 * slices of the input and would keep the whole file alive after the parse.
 */
export function forgetDetails86(): void {
  if (reused) empty('free-text', reused);
  fText = '';
  fUnits = new Uint16Array(0);
  fBreaks = ownBreaks;
}

/**
 * parseDetails86(text.slice(start, end)) into one object reused from call to call, for a caller that
 * copies the fields out at once; breaks[breakFrom] up to breaks[breakTo] are the field's line feeds.
 * The usual /TAG/ field is read in place: one that opens with a key (so needs no trimming, and is
 * neither German, Polish nor free text) is not cut out first.
 */
export function parseDetails86At(
  win: TextWindow,
  text: string,
  start: number,
  end: number,
  breaks: number[],
  breakFrom: number,
  breakTo: number,
): Details {
  reused ??= empty('free-text', null);
  win.cover(text, start, end);
  if (opensWithKeyIn(win.units, win.base, start, end)) {
    setField(text, win, breaks, breakFrom, breakTo);
    return parseSwiftTags(text, start, end, reused);
  }
  return parseInto(text.slice(start, end), reused);
}

function parseInto(raw: string, into: Details | null): Details {
  // Printable ASCII other than a space is never \s: the common case needs no regex.
  const c0 = raw.charCodeAt(0);
  const text = c0 > 32 && c0 < 127 ? raw : raw.replace(/^\s+/, '');
  // A "/" cannot start a German or Polish subfield field: the common /TAG/ field skips that regex.
  const sub = text.charCodeAt(0) === 47 ? null : SUBFIELD_START.exec(text);
  if (sub) return parseSubfields(text, sub[2] as string, sub[1] ?? null, into);
  if (opensWithKey(text) || /^[A-Z]{2,9}\/\//.test(text)) {
    setOwnField(text);
    return parseSwiftTags(text, 0, text.length, into);
  }
  return parseFreeText(text, into);
}
