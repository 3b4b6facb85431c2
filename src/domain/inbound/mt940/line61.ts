import { isTrimSpace } from '../trim-space.ts';
import { carriageReturns, lineSeparators, paragraphSeparators, slashes } from './find-char.ts';
import { type TextWindow, windowFor } from './text-window.ts';

/**
 * The :61: statement line: 6!n[4!n]2a[1!a]15d1!a3!c16x[//16x][34x]
 *   value date YYMMDD, optional entry date MMDD, mark C/D/RC/RD (EC/ED: expected), optional funds
 *   code (third letter of the currency), amount with a decimal comma (or point, as some banks write),
 *   type N/F/S + 3 characters,
 *   customer reference (NONREF when none), "//" bank reference, second line: supplementary details.
 */
export type Line61 = {
  valueDate: string;
  entryDate: string | null;
  mark: 'C' | 'D' | 'RC' | 'RD' | 'EC' | 'ED';
  fundsCode: string | null;
  /** Amount text with "." as the decimal separator, not yet canonical. */
  amount: string;
  typeCode: string | null;
  customerRef: string | null;
  bankRef: string | null;
  supplementary: string | null;
};

/** 20YY for YY < 80: statements are recent; 19YY otherwise (old test files). */
// Consecutive lines of a statement share their dates: remembering the last conversion saves a string each.
let lastYymmdd = '';
let lastIso = '';

function yymmdd(s: string): string {
  if (s === lastYymmdd) return lastIso;
  const yy = Number(s.slice(0, 2));
  const iso = `${yy < 80 ? 2000 + yy : 1900 + yy}-${s.slice(2, 4)}-${s.slice(4, 6)}`;
  lastYymmdd = s;
  lastIso = iso;
  return iso;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isUpper(c: number): boolean {
  return c >= 65 && c <= 90;
}

/** "00" to "99", and ".00" to ".99". */
const TWO_DIGITS: string[] = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));
const DOT_TWO_DIGITS: string[] = TWO_DIGITS.map((d) => `.${d}`);

// A :61: line's dates and type code as numbers read while they are checked, each with the string made
// for it last time: consecutive lines usually repeat them, and then no string is cut or made.
let lastValueNumber = -1;
let lastValueIso = '';
let lastEntryValue = -1;
let lastEntryNumber = -1;
let lastEntryIso = '';
let lastTypeNumber = -1;
let lastTypeCode = '';

/** yymmdd() of the value date, read as the number `ymd`. */
function valueDateOf(ymd: number): string {
  if (ymd === lastValueNumber) return lastValueIso;
  const yy = Math.floor(ymd / 10000);
  lastValueIso = `${yy < 80 ? 2000 + yy : 1900 + yy}-${TWO_DIGITS[Math.floor(ymd / 100) % 100]}-${TWO_DIGITS[ymd % 100]}`;
  lastValueNumber = ymd;
  return lastValueIso;
}

/**
 * The entry date MMDD, read as the number `md`, as a date: it takes the value date's year (`ymd` is the
 * value date YYMMDD), moved across a year end when the months say so.
 */
function entryDateFrom(ymd: number, md: number): string {
  if (ymd === lastEntryValue && md === lastEntryNumber) return lastEntryIso;
  const yy = Math.floor(ymd / 10000);
  let year = yy < 80 ? 2000 + yy : 1900 + yy;
  const valueMonth = Math.floor(ymd / 100) % 100;
  const entryMonth = Math.floor(md / 100);
  if (valueMonth === 12 && entryMonth === 1) year++;
  else if (valueMonth === 1 && entryMonth === 12) year--;
  lastEntryIso = `${year}-${TWO_DIGITS[entryMonth]}-${TWO_DIGITS[md % 100]}`;
  lastEntryValue = ymd;
  lastEntryNumber = md;
  return lastEntryIso;
}

/** The `len` characters at `i`, whose codes (a padding space included) packed 7 bits each are `code`. */
function typeCodeOf(s: string, i: number, code: number, len: number): string {
  if (code !== lastTypeNumber) {
    lastTypeNumber = code;
    lastTypeCode = s.slice(i, i + len);
  }
  return lastTypeCode;
}

const NONREF = 'NONREF';
/** "NONR" packed as typeCodeOf packs a type code. */
const NONR_CODE = (((((78 << 7) | 79) << 7) | 78) << 7) | 82;

/** s[i..] is "NONREF" ending the subfield (the line's end or the "//" of the bank reference). */
function isNonrefAt(u: Uint16Array, o: number, i: number, n: number): boolean {
  if (i + 6 > n || u[i + 4 - o] !== 69 /* E */ || u[i + 5 - o] !== 70 /* F */) return false;
  return (
    i + 6 === n || (u[i + 6 - o] === 47 && i + 7 < n && u[i + 7 - o] === 47) || isTrimSpace(u[i + 6 - o] as number)
  );
}

/** s.slice(a, b).trim(), null when empty; the usual NONREF as one shared string. `u[i - o]` is s[i]. */
function referenceAt(s: string, u: Uint16Array, o: number, a: number, b: number): string | null {
  while (a < b && isTrimSpace(u[a - o] as number)) a++;
  while (b > a && isTrimSpace(u[b - 1 - o] as number)) b--;
  if (a === b) return null;
  const k = a - o;
  if (
    b - a === 6 &&
    u[k] === 78 &&
    u[k + 1] === 79 &&
    u[k + 2] === 78 &&
    u[k + 3] === 82 &&
    u[k + 4] === 69 &&
    u[k + 5] === 70
  )
    return NONREF;
  return s.slice(a, b);
}

/**
 * A :61: as read by scanLine61: the fields of Line61, plus the amount's units at scale 2 when it has the
 * plain shape "123.45" (no leading zero, at most 13 whole digits: exact as a double), else -1. One object,
 * overwritten by every call: read it out before the next.
 */
export type ScannedLine61 = Line61 & { plainUnits: number };

export const scanned: ScannedLine61 = {
  valueDate: '',
  entryDate: null,
  mark: 'C',
  fundsCode: null,
  amount: '',
  typeCode: null,
  customerRef: null,
  bankRef: null,
  supplementary: null,
  plainUnits: -1,
};

/**
 * Reads the :61: field text.slice(start, end), whose first line feed is at `nl` (`end` when it has none),
 * into `scanned`, with the same result as the regular
 * expression /^(\d{6})(\d{4})?(RC|RD|EC|ED|C|D)([A-Z])?(\d{1,15}(?:[,.]\d*)?)(?: (?=[NFS]))?([NFS][A-Z0-9]{2}[A-Z0-9 ])?(.*)$/ on its
 * trimmed first line (no backtracking can change its match: each optional part is taken whenever it can
 * be), by index in the source text: no line, match array or capture strings are cut per statement line.
 * False when the line does not match (line61Error gives the message).
 */
export function scanLine61(win: TextWindow, text: string, start: number, end: number, nl: number): boolean {
  win.cover(text, start, nl);
  const u = win.units;
  const o = win.base;
  // The first line, trimmed as String.prototype.trim would.
  let a = start;
  let n = nl;
  while (a < n && isTrimSpace(u[a - o] as number)) a++;
  while (n > a && isTrimSpace(u[n - 1 - o] as number)) n--;
  // Every read below is bounded by `n`: past the first line, the regular expression sees no character.
  // Each phase writes its fields into `scanned` and returns where the next starts, -1 when the line does not match.
  if (n - a < 8) return false; // six digits, a mark and a digit at least
  let i = scanDates(u, o, a, n);
  if (i >= 0) i = scanMark(text, u, o, i, n);
  if (i >= 0) i = scanAmount(text, u, o, i, n);
  if (i < 0) return false;
  i = scanTypeCode(text, u, o, i, n);
  if (!scanReferences(text, u, o, i, n)) return false;
  scanned.supplementary = nl < end ? supplementaryOf(text, nl, end) : null;
  return true;
}

/** The value date YYMMDD at `a` and the optional entry date MMDD after it. */
function scanDates(u: Uint16Array, o: number, a: number, n: number): number {
  let ymd = 0;
  for (let k = a; k < a + 6; k++) {
    const x = u[k - o] as number;
    if (!isDigit(x)) return -1;
    ymd = ymd * 10 + (x - 48);
  }
  let i = a + 6;
  let md = -1;
  if (i + 4 <= n) {
    const m1 = u[i - o] as number;
    const m2 = u[i + 1 - o] as number;
    const d1 = u[i + 2 - o] as number;
    const d2 = u[i + 3 - o] as number;
    if (isDigit(m1) && isDigit(m2) && isDigit(d1) && isDigit(d2)) {
      md = (m1 - 48) * 1000 + (m2 - 48) * 100 + (d1 - 48) * 10 + (d2 - 48);
      i += 4;
    }
  }
  scanned.valueDate = valueDateOf(ymd);
  scanned.entryDate = md < 0 ? null : entryDateFrom(ymd, md);
  return i;
}

/** The debit/credit mark (RC, RD, EC, ED, C, D) and the optional funds code letter. */
function scanMark(text: string, u: Uint16Array, o: number, i: number, n: number): number {
  const c = i < n ? (u[i - o] as number) : -1;
  const d = i + 1 < n ? (u[i + 1 - o] as number) : -1;
  let mark: Line61['mark'];
  if (c === 82 /* R */ && (d === 67 || d === 68)) mark = d === 67 ? 'RC' : 'RD';
  else if (c === 69 /* E */ && (d === 67 || d === 68)) mark = d === 67 ? 'EC' : 'ED';
  else if (c === 67) mark = 'C';
  else if (c === 68) mark = 'D';
  else return -1;
  i += mark.length;
  let fundsCode: string | null = null;
  if (i < n && isUpper(u[i - o] as number)) {
    fundsCode = text[i] as string;
    i++;
  }
  scanned.mark = mark;
  scanned.fundsCode = fundsCode;
  return i;
}

/** The amount: up to 15 whole digits and a decimal mark; the plain "123.45" shape also as units at scale 2. */
function scanAmount(text: string, u: Uint16Array, o: number, i: number, n: number): number {
  const amountStart = i;
  let whole = 0;
  while (i < n && i - amountStart < 15 && isDigit(u[i - o] as number)) {
    whole = whole * 10 + ((u[i - o] as number) - 48);
    i++;
  }
  const wholeDigits = i - amountStart;
  if (wholeDigits === 0) return -1;
  let amount: string;
  let plainUnits = -1;
  // SWIFT writes a decimal comma; several banks (Rabobank's old format, Standard Bank) write a point. No
  // :61: subfield after the amount starts with either (the type code is a letter), so both are the mark.
  const decimalMark = i < n ? (u[i - o] as number) : -1;
  if (decimalMark === 44 /* , */ || decimalMark === 46 /* . */) {
    const comma = i++;
    while (i < n && isDigit(u[i - o] as number)) i++;
    // The shape decimal.ts reads without BigInt formatting: /^(?:0|[1-9]\d{0,14})\.\d\d$/.
    if (i - comma === 3 && wholeDigits <= 13 && (wholeDigits === 1 || (u[amountStart - o] as number) !== 48) /* 0 */) {
      const cents = ((u[comma + 1 - o] as number) - 48) * 10 + ((u[comma + 2 - o] as number) - 48);
      plainUnits = whole * 100 + cents;
      // The same text as cutting it out: the whole digits have no leading zero.
      amount = String(whole) + (DOT_TWO_DIGITS[cents] as string);
    } else amount = `${text.slice(amountStart, comma)}.${text.slice(comma + 1, i)}`;
  } else amount = text.slice(amountStart, i);
  scanned.amount = amount;
  scanned.plainUnits = plainUnits;
  return i;
}

/** The optional transaction type (N, F or S and three characters); returns where the references start. */
function scanTypeCode(text: string, u: Uint16Array, o: number, i: number, n: number): number {
  scanned.typeCode = null;
  // Commerzbank and Deutsche Bank exports put a space before the type code ("D12,35 NRTIKREF+"): the
  // type is NRTI and the reference KREF+, not one reference "NRTIKREF+".
  if (i + 5 <= n && u[i - o] === 32) {
    const x = u[i + 1 - o] as number;
    if (x === 78 || x === 70 || x === 83) i++;
  }
  const t = i < n ? (u[i - o] as number) : -1;
  if ((t !== 78 && t !== 70 && t !== 83) || i + 4 > n) return i;
  let ok = true;
  let code = t;
  for (let k = i + 1; k < i + 4; k++) {
    const x = u[k - o] as number;
    // ING's pre-SEPA layout and Triodos pad a two-letter code with a space ("NOV NONREF": type
    // NOV, reference NONREF); a space is never part of a four-character code.
    if (!(isUpper(x) || isDigit(x)) && !(k === i + 3 && x === 32 && ok)) ok = false;
    code = (code << 7) | x;
  }
  // Penta writes no type code at all ("D20,00NONREF"): NONREF is the reference, not type NONR + "EF".
  if (ok && code === NONR_CODE && isNonrefAt(u, o, i, n)) ok = false;
  if (!ok) return i;
  scanned.typeCode = typeCodeOf(text, i, code, (u[i + 3 - o] as number) === 32 ? 3 : 4);
  return i + 4;
}

/**
 * The rest of the line: `.` matches no line terminator (the first line has no line feed); the
 * references split at the first "//". False when a line terminator is in it.
 */
function scanReferences(text: string, u: Uint16Array, o: number, i: number, n: number): boolean {
  if (
    carriageReturns.find(text, i, n) >= 0 ||
    lineSeparators.find(text, i, n) >= 0 ||
    paragraphSeparators.find(text, i, n) >= 0
  )
    return false;
  let sep = slashes.find(text, i, n);
  while (sep >= 0 && !(sep + 1 < n && (u[sep + 1 - o] as number) === 47)) sep = slashes.find(text, sep + 1, n);
  scanned.customerRef = referenceAt(text, u, o, i, sep < 0 ? n : sep);
  scanned.bankRef = sep < 0 ? null : referenceAt(text, u, o, sep + 2, n);
  return true;
}

/** The lines after the first (subfield 9, supplementary details) joined with spaces; null when blank. */
function supplementaryOf(text: string, nl: number, end: number): string | null {
  const rest = text
    .slice(nl + 1, end)
    .replace(/\s*\n\s*/g, ' ')
    .trim();
  return rest === '' ? null : rest;
}

/** Drops the strings `scanned` holds: they may be slices of the input and would keep it alive after the parse. */
export function forgetLine61(): void {
  scanned.amount = '';
  scanned.customerRef = null;
  scanned.bankRef = null;
  scanned.supplementary = null;
}

/** The message for a :61: that scanLine61 refused. */
export function line61Error(text: string, start: number, end: number): string {
  const value = text.slice(start, end);
  const nl = value.indexOf('\n');
  return notALine((nl < 0 ? value : value.slice(0, nl)).trim());
}

/** The first line of a :61: field value as a Line61, or why it is not a statement line. */
export function parseLine61(value: string): Line61 | string {
  const nl = value.indexOf('\n');
  const win = windowFor(value);
  if (!scanLine61(win, value, 0, value.length, nl < 0 ? value.length : nl)) return line61Error(value, 0, value.length);
  const s = scanned;
  return {
    valueDate: s.valueDate,
    entryDate: s.entryDate,
    mark: s.mark,
    fundsCode: s.fundsCode,
    amount: s.amount,
    typeCode: s.typeCode,
    customerRef: s.customerRef,
    bankRef: s.bankRef,
    supplementary: s.supplementary,
  };
}

function notALine(first: string): string {
  return `:61: "${first.slice(0, 40)}" is not a statement line (date, C/D mark, amount, type)`;
}

/** True when YYYY-MM-DD names a real calendar day (February 30 does not). */
export function isRealDate(iso: string): boolean {
  // Days 01-28 exist in every month: the common case needs no calendar.
  const day = iso.charCodeAt(8);
  const month = iso.charCodeAt(5) * 10 + iso.charCodeAt(6) - 528;
  if (
    month >= 1 &&
    month <= 12 &&
    (day === 48 || day === 49 || (day === 50 && iso.charCodeAt(9) <= 56 && iso.charCodeAt(9) >= 48))
  ) {
    return iso.charCodeAt(8) !== 48 || iso.charCodeAt(9) !== 48;
  }
  const y = Number(iso.slice(0, 4));
  const m = Number(iso.slice(5, 7));
  const d = Number(iso.slice(8, 10));
  if (m < 1 || m > 12 || d < 1) return false;
  const days = [31, y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  return d <= (days[m - 1] as number);
}

export { yymmdd };
