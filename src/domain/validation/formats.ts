/** Format checks shared by the validation levels. */

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T([01]\d|2[0-3]):([0-5]\d):([0-5]\d)(\.\d{1,9})?(Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)?$/;

function calendarOk(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1 || y < 1900 || y > 2999) return false;
  const days = [31, y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  return d <= (days[m - 1] ?? 0);
}

/** YYYY-MM-DD naming a real calendar day. */
export function isIsoDate(value: string): boolean {
  const m = DATE.exec(value);
  return m !== null && calendarOk(Number(m[1]), Number(m[2]), Number(m[3]));
}

/** ISO 8601 date-time as xs:dateTime accepts it (offset optional). */
export function isIsoDateTime(value: string): boolean {
  const m = DATE_TIME.exec(value);
  return m !== null && calendarOk(Number(m[1]), Number(m[2]), Number(m[3]));
}

/** isBicShape's copy of the string's characters, for isBicShapeAt. */
const BIC_SCRATCH = new Uint8Array(11);

/**
 * BIC as the pain.001.001.03 schema pattern demands (the stricter of the two versions): 4 letters bank,
 * 2 letters country, location without 0/1 first and O second, optional 3-character branch; that is
 * /^[A-Z]{6}[A-Z2-9][A-NP-Z0-9]([A-Z0-9]{3})?$/, checked by hand: it runs once per transaction on the
 * conversion hot path, where the regex call cost about twice the check.
 */
export function isBicShape(value: string): boolean {
  const n = value.length;
  if (n !== 8 && n !== 11) return false;
  for (let i = 0; i < n; i++) {
    const c = value.charCodeAt(i);
    if (c > 127) return false;
    BIC_SCRATCH[i] = c;
  }
  return isBicShapeAt(BIC_SCRATCH, 0, n);
}

/**
 * isBicShape over bytes: the `n` bytes from `at` (8 or 11). The fused writer checks a BIC in the output it
 * has just copied it to, so the caller's string is read once.
 */
export function isBicShapeAt(b: Uint8Array, at: number, n: number): boolean {
  if (n !== 8 && n !== 11) return false;
  for (let i = 0; i < 6; i++) if (!isUpper(b[at + i] as number)) return false;
  const location = b[at + 6] as number;
  if (!isUpper(location) && !(location >= 50 && location <= 57)) return false;
  const second = b[at + 7] as number;
  if (!isUpperOrDigit(second) || second === 79) return false;
  for (let i = 8; i < n; i++) if (!isUpperOrDigit(b[at + i] as number)) return false;
  return true;
}

function isUpper(c: number): boolean {
  return c >= 65 && c <= 90;
}

function isUpperOrDigit(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 48 && c <= 57);
}

/** ISO external code (purpose, category purpose, service level): 1..4 capital letters or digits. */
export function isExternalCode(value: string): boolean {
  return /^[A-Z0-9]{1,4}$/.test(value);
}
