/**
 * The :61: statement line: 6!n[4!n]2a[1!a]15d1!a3!c16x[//16x][34x]
 *   value date YYMMDD, optional entry date MMDD, mark C/D/RC/RD (EC/ED: expected), optional funds
 *   code (third letter of the currency), amount with a decimal comma, type N/F/S + 3 characters,
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

/** Entry date MMDD takes the value date's year, moved across a year end when the months say so. */
let lastEntryValueDate = '';
let lastEntryMmdd = '';
let lastEntryIso = '';

function entryDateOf(valueDate: string, mmdd: string): string {
  if (valueDate === lastEntryValueDate && mmdd === lastEntryMmdd) return lastEntryIso;
  lastEntryValueDate = valueDate;
  lastEntryMmdd = mmdd;
  lastEntryIso = computeEntryDate(valueDate, mmdd);
  return lastEntryIso;
}

function computeEntryDate(valueDate: string, mmdd: string): string {
  let year = Number(valueDate.slice(0, 4));
  const valueMonth = Number(valueDate.slice(5, 7));
  const entryMonth = Number(mmdd.slice(0, 2));
  if (valueMonth === 12 && entryMonth === 1) year++;
  else if (valueMonth === 1 && entryMonth === 12) year--;
  return `${year}-${mmdd.slice(0, 2)}-${mmdd.slice(2, 4)}`;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isUpper(c: number): boolean {
  return c >= 65 && c <= 90;
}

/** `.` of a regular expression matches every character but these line terminators. */
function hasLineTerminator(s: string, from: number): boolean {
  for (let i = from; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 13 || c === 10 || c === 0x2028 || c === 0x2029) return true;
  }
  return false;
}

// The type code (NTRF, NMSC ...) repeats from line to line and is kept on every transaction: the last
// one is handed out again when the four characters are the same.
let lastType = '';

function typeCodeAt(s: string, i: number): string {
  const t = lastType;
  if (
    t.length === 4 &&
    s.charCodeAt(i) === t.charCodeAt(0) &&
    s.charCodeAt(i + 1) === t.charCodeAt(1) &&
    s.charCodeAt(i + 2) === t.charCodeAt(2) &&
    s.charCodeAt(i + 3) === t.charCodeAt(3)
  )
    return t;
  lastType = s.slice(i, i + 4);
  return lastType;
}

const NONREF = 'NONREF';

/** Trimmed text, null when empty; the usual NONREF as one shared string. */
function reference(s: string): string | null {
  const t = s.trim();
  return t === '' ? null : t === NONREF ? NONREF : t;
}

/**
 * Reads the first line with the same result as the regular expression
 * /^(\d{6})(\d{4})?(RC|RD|EC|ED|C|D)([A-Z])?(\d{1,15}(?:,\d*)?)([NFS][A-Z0-9]{3})?(.*)$/
 * (no backtracking can change its match: each optional part is taken whenever it can be), by index:
 * no match array and no capture strings per statement line.
 */
export function parseLine61(value: string): Line61 | string {
  const nl = value.indexOf('\n');
  const first = (nl < 0 ? value : value.slice(0, nl)).trim();
  const n = first.length;
  let i = 0;
  for (; i < 6; i++) if (!isDigit(first.charCodeAt(i))) return notALine(first);
  let entry = -1;
  if (
    isDigit(first.charCodeAt(6)) &&
    isDigit(first.charCodeAt(7)) &&
    isDigit(first.charCodeAt(8)) &&
    isDigit(first.charCodeAt(9))
  ) {
    entry = 6;
    i = 10;
  }
  const c = first.charCodeAt(i);
  const d = first.charCodeAt(i + 1);
  let mark: Line61['mark'];
  if (c === 82 /* R */ && (d === 67 || d === 68)) mark = d === 67 ? 'RC' : 'RD';
  else if (c === 69 /* E */ && (d === 67 || d === 68)) mark = d === 67 ? 'EC' : 'ED';
  else if (c === 67) mark = 'C';
  else if (c === 68) mark = 'D';
  else return notALine(first);
  i += mark.length;
  let fundsCode: string | null = null;
  if (isUpper(first.charCodeAt(i))) {
    fundsCode = first[i] as string;
    i++;
  }
  const amountStart = i;
  while (i < n && i - amountStart < 15 && isDigit(first.charCodeAt(i))) i++;
  if (i === amountStart) return notALine(first);
  let amount: string;
  if (first.charCodeAt(i) === 44 /* , */) {
    const comma = i++;
    while (isDigit(first.charCodeAt(i))) i++;
    amount = `${first.slice(amountStart, comma)}.${first.slice(comma + 1, i)}`;
  } else amount = first.slice(amountStart, i);
  let typeCode: string | null = null;
  const t = first.charCodeAt(i);
  if (t === 78 || t === 70 || t === 83) {
    let ok = true;
    for (let k = i + 1; k < i + 4; k++) {
      const x = first.charCodeAt(k);
      if (!(isUpper(x) || isDigit(x))) ok = false;
    }
    if (ok) {
      typeCode = typeCodeAt(first, i);
      i += 4;
    }
  }
  if (hasLineTerminator(first, i)) return notALine(first);
  const valueDate = yymmdd(first.slice(0, 6));
  const sep = first.indexOf('//', i);
  const customerRef = reference(sep < 0 ? first.slice(i) : first.slice(i, sep));
  const bankRef = sep < 0 ? null : reference(first.slice(sep + 2));
  const supplementary =
    nl < 0
      ? ''
      : value
          .slice(nl + 1)
          .replace(/\s*\n\s*/g, ' ')
          .trim();
  return {
    valueDate,
    entryDate: entry < 0 ? null : entryDateOf(valueDate, first.slice(entry, entry + 4)),
    mark,
    fundsCode,
    amount,
    typeCode,
    customerRef,
    bankRef,
    supplementary: supplementary === '' ? null : supplementary,
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
