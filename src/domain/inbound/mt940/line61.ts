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

const LINE61 = /^(\d{6})(\d{4})?(RC|RD|EC|ED|C|D)([A-Z])?(\d{1,15}(?:,\d*)?)([NFS][A-Z0-9]{3})?(.*)$/;

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
let lastEntryKey = '';
let lastEntryIso = '';

function entryDateOf(valueDate: string, mmdd: string): string {
  const key = valueDate + mmdd;
  if (key === lastEntryKey) return lastEntryIso;
  lastEntryKey = key;
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

export function parseLine61(value: string): Line61 | string {
  const nl = value.indexOf('\n');
  const first = (nl < 0 ? value : value.slice(0, nl)).trim();
  const m = LINE61.exec(first);
  if (!m) return `:61: "${first.slice(0, 40)}" is not a statement line (date, C/D mark, amount, type)`;
  const valueDate = yymmdd(m[1] as string);
  const rest = m[7] ?? '';
  const sep = rest.indexOf('//');
  const customerRef = (sep < 0 ? rest : rest.slice(0, sep)).trim();
  const bankRef = sep < 0 ? '' : rest.slice(sep + 2).trim();
  const supplementary =
    nl < 0
      ? ''
      : value
          .slice(nl + 1)
          .replace(/\s*\n\s*/g, ' ')
          .trim();
  return {
    valueDate,
    entryDate: m[2] ? entryDateOf(valueDate, m[2]) : null,
    mark: m[3] as Line61['mark'],
    fundsCode: m[4] ?? null,
    amount: (m[5] as string).replace(',', '.'),
    typeCode: m[6] ?? null,
    customerRef: customerRef === '' ? null : customerRef,
    bankRef: bankRef === '' ? null : bankRef,
    supplementary: supplementary === '' ? null : supplementary,
  };
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
