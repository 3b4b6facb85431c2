import { countrySpecs } from 'ibantools';
import { letterPair } from './countries.ts';

/**
 * IBAN check on ibantools' country table (length, BBAN pattern, national check digits) with our own
 * mod-97 loop over character codes: ibantools' isValidIBAN builds several strings per call, which showed
 * as a fifth of the benchmark's time. Same answers, no allocation on the clean path.
 */
type Spec = {
  chars: number;
  bban: RegExp;
  /** The BBAN pattern as one class per position (DIGIT, UPPER, or both) when it is a plain sequence of classes. */
  classes: Uint8Array | undefined;
  /** Every BBAN position is a digit (DE, AT, BE, ES ...): mod97Digits, with no class to look up per position. */
  digitsOnly: boolean;
  national?: (bban: string) => boolean;
};

const DIGIT = 1;
const UPPER = 2;
const TOKEN_CLASS: Record<string, number> = {
  '[0-9]': DIGIT,
  '[A-Z]': UPPER,
  '[A-Z0-9]': DIGIT | UPPER,
  '[0-9A-Z]': DIGIT | UPPER,
};

/**
 * ibantools' BBAN patterns are sequences like `^[0-9]{10}[A-Z0-9]{11}[0-9]{2}$`: compiled to per-position
 * classes so the check runs in the mod-97 loop instead of a regex call. Anything else keeps the regex.
 */
function compileBban(pattern: string, bbanLength: number): Uint8Array | undefined {
  const body = /^\^?((?:\[[^\]]+\]\{\d+\})+)\$?$/.exec(pattern);
  if (!body) return undefined;
  const out: number[] = [];
  for (const m of (body[1] as string).matchAll(/(\[[^\]]+\])\{(\d+)\}/g)) {
    const cls = TOKEN_CLASS[m[1] as string];
    if (cls === undefined) return undefined;
    for (let k = 0; k < Number(m[2]); k++) out.push(cls);
  }
  // The length check (spec.chars) makes a pattern without `$` and one with it equal only when they cover the BBAN.
  return out.length === bbanLength ? Uint8Array.from(out) : undefined;
}

/**
 * National checks rewritten over character codes for the most frequent countries, with ibantools'
 * arithmetic (they run only after the country's BBAN pattern matched, so every position holds what the
 * pattern allows). Same answers as checkFrenchBBAN, checkBelgianBBAN and checkSpainBBAN.
 */
function frenchDigit(c: number): number {
  if (c < 65) return c - 48;
  if (c <= 73) return c - 64;
  if (c <= 82) return c - 73;
  return c - 81;
}
/**
 * Letters of the RIB key mapped to digits (A,J -> 1 ... I,R,Z -> 9), the whole BBAN mod 97 is 0. The
 * remainder is reduced only when it could leave the int32 range (as in mod97Checked): a division per
 * digit made this the costliest national check.
 */
function frenchBban(iban: string): boolean {
  let rem = 0;
  for (let k = 4; k < iban.length; k++) {
    rem = rem * 10 + frenchDigit(iban.charCodeAt(k));
    if (rem >= 100_000_000) rem %= 97;
  }
  return rem % 97 === 0;
}
/** The digits of s[from, to) mod 97, in int32 arithmetic (ten digits exceed it, and a double modulo is a slow call). */
function digitsMod97(s: string, from: number, to: number): number {
  let rem = 0;
  for (let k = from; k < to; k++) {
    rem = rem * 10 + (s.charCodeAt(k) - 48);
    if (rem >= 100_000_000) rem %= 97;
  }
  return rem % 97;
}
function digitsAt(s: string, from: number, to: number): number {
  let v = 0;
  for (let k = from; k < to; k++) v = v * 10 + (s.charCodeAt(k) - 48);
  return v;
}
/** BE: the first 10 BBAN digits mod 97 (0 counts as 97) are the last 2. */
function belgianBban(iban: string): boolean {
  const rem = digitsMod97(iban, 4, 14);
  return (rem === 0 ? 97 : rem) === digitsAt(iban, 14, 16);
}
const ES_BANK_BRANCH = [4, 8, 5, 10, 9, 7, 3, 6];
const ES_ACCOUNT = [1, 2, 4, 8, 5, 10, 9, 7, 3, 6];
function spanishCheck(rem: number): number {
  return rem === 0 ? 0 : rem === 1 ? 1 : 11 - rem;
}
/** ES: two mod-11 control digits (bank and branch, account). */
function spanishBban(iban: string): boolean {
  let sum = 0;
  for (let k = 0; k < 8; k++) sum += (iban.charCodeAt(4 + k) - 48) * (ES_BANK_BRANCH[k] as number);
  if (iban.charCodeAt(12) - 48 !== spanishCheck(sum % 11)) return false;
  sum = 0;
  for (let k = 0; k < 10; k++) sum += (iban.charCodeAt(14 + k) - 48) * (ES_ACCOUNT[k] as number);
  return iban.charCodeAt(13) - 48 === spanishCheck(sum % 11);
}
const FAST_NATIONAL: Record<string, (iban: string) => boolean> = {
  FR: frenchBban,
  MC: frenchBban,
  BE: belgianBban,
  ES: spanishBban,
};

/** Specs indexed by the two country letters (letterPair): no substring per lookup. */
const SPECS: Array<Spec | undefined> = new Array(26 * 26).fill(undefined);
const FAST: Array<((iban: string) => boolean) | undefined> = new Array(26 * 26).fill(undefined);
for (const [country, s] of Object.entries(countrySpecs)) {
  if (!s.chars || !s.bban_regexp) continue;
  if (!/^[A-Z]{2}$/.test(country)) continue;
  // Sticky and without the leading anchor, so the BBAN is matched in place from index 4.
  const classes = compileBban(s.bban_regexp, s.chars - 4);
  const spec: Spec = {
    chars: s.chars,
    bban: new RegExp(s.bban_regexp.replace(/^\^/, ''), 'y'),
    classes,
    digitsOnly: classes?.every((cls) => cls === DIGIT) ?? false,
  };
  if (s.bban_validation_func) spec.national = s.bban_validation_func;
  const slot = letterPair(country);
  SPECS[slot] = spec;
  if (s.bban_validation_func) FAST[slot] = FAST_NATIONAL[country];
}

function mod97Rotated(iban: string): number {
  let rem = 0;
  const n = iban.length;
  for (let k = 0; k < n; k++) {
    const c = iban.charCodeAt(k < n - 4 ? k + 4 : k - (n - 4));
    if (c >= 48 && c <= 57) rem = (rem * 10 + (c - 48)) % 97;
    else if (c >= 65 && c <= 90) rem = (rem * 100 + (c - 55)) % 97;
    else return -1;
  }
  return rem;
}

/**
 * mod97Rotated with the BBAN classes checked on the way (-1 when a character does not fit its position).
 * Remainders are reduced only when they could leave the int32 range, a few times per IBAN.
 */
function mod97Checked(iban: string, classes: Uint8Array): number {
  let rem = 0;
  const n = iban.length;
  for (let k = 4; k < n; k++) {
    const c = iban.charCodeAt(k);
    const cls = classes[k - 4] as number;
    if (c >= 48 && c <= 57) {
      if ((cls & DIGIT) === 0) return -1;
      rem = rem * 10 + (c - 48);
    } else if (c >= 65 && c <= 90) {
      if ((cls & UPPER) === 0) return -1;
      rem = rem * 100 + (c - 55);
    } else return -1;
    if (rem >= 10_000_000) rem %= 97;
  }
  return withCountry(rem, iban);
}

/** mod97Checked for a BBAN of digits only: one range test per position. */
function mod97Digits(iban: string): number {
  let rem = 0;
  const n = iban.length;
  for (let k = 4; k < n; k++) {
    const d = iban.charCodeAt(k) - 48;
    if (d < 0 || d > 9) return -1;
    rem = rem * 10 + d;
    if (rem >= 10_000_000) rem %= 97;
  }
  return withCountry(rem, iban);
}

/** The rotated IBAN's remainder: the BBAN's `rem`, then country letters and check digits (already checked). */
function withCountry(rem: number, iban: string): number {
  let r = (rem % 97) * 100 + (iban.charCodeAt(0) - 55);
  r = (r % 97) * 100 + (iban.charCodeAt(1) - 55);
  r = (r % 97) * 100 + (iban.charCodeAt(2) - 48) * 10 + (iban.charCodeAt(3) - 48);
  return r % 97;
}

/** Electronic-format IBAN (no spaces, upper case). */
export function isValidIban(iban: string): boolean {
  const slot = letterPair(iban);
  if (slot < 0) return false;
  const spec = SPECS[slot];
  if (!spec || iban.length !== spec.chars) return false;
  const c2 = iban.charCodeAt(2);
  const c3 = iban.charCodeAt(3);
  if (c2 < 48 || c2 > 57 || c3 < 48 || c3 > 57) return false;
  // ISO 13616: check digits run 02..98; 00, 01 and 99 never occur in a real IBAN.
  const check = (c2 - 48) * 10 + (c3 - 48);
  if (check < 2 || check > 98) return false;
  const classes = spec.classes;
  if (spec.digitsOnly) {
    if (mod97Digits(iban) !== 1) return false;
  } else if (classes) {
    if (mod97Checked(iban, classes) !== 1) return false;
  } else {
    spec.bban.lastIndex = 4;
    if (!spec.bban.test(iban)) return false;
    if (mod97Rotated(iban) !== 1) return false;
  }
  if (!spec.national) return true;
  const fast = FAST[slot];
  return fast ? fast(iban) : spec.national(iban.slice(4));
}
