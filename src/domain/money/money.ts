import { currencyExponent } from './currencies.ts';

/** Exact amounts: decimal strings at the edges, bigint minor units inside. Never a float. */

const MAX_DIGITS = 18;

export type AmountError =
  | { code: 'invalid_amount'; message: string }
  | { code: 'amount_precision'; message: string }
  | { code: 'invalid_currency'; message: string };

export type AmountResult = { ok: true; minor: bigint; exponent: number } | { ok: false; error: AmountError };

/**
 * Parses a positive decimal string into minor units of `currency`.
 * Refuses exponent notation, signs, empty fractions, more fraction digits than the currency has,
 * zero, and more than 18 significant digits.
 */
export function parseAmount(value: unknown, currency: string): AmountResult {
  const exponent = currencyExponent(currency);
  if (exponent === undefined) {
    return { ok: false, error: { code: 'invalid_currency', message: `unknown currency ${JSON.stringify(currency)}` } };
  }
  if (typeof value !== 'string') {
    return { ok: false, error: { code: 'invalid_amount', message: 'amount must be a decimal string' } };
  }
  // Hand-rolled scan of /^\d+(\.\d+)?$/: this runs once per transaction on the conversion hot path.
  const n = value.length;
  let dot = -1;
  let bad = n === 0;
  for (let i = 0; i < n && !bad; i++) {
    const c = value.charCodeAt(i);
    if (c === 46 && dot < 0) dot = i;
    else if (c < 48 || c > 57) bad = true;
  }
  if (bad || dot === 0 || dot === n - 1) {
    return { ok: false, error: { code: 'invalid_amount', message: `not a plain decimal: ${JSON.stringify(value)}` } };
  }
  const fractionDigits = dot < 0 ? 0 : n - dot - 1;
  if (fractionDigits > exponent) {
    return {
      ok: false,
      error: {
        code: 'amount_precision',
        message: `${currency} allows at most ${exponent} fraction digits, got ${fractionDigits}`,
      },
    };
  }
  // Value as an integer of minor units; Number is exact up to 15 significant digits, beyond that BigInt.
  let significant = 0;
  let small = 0;
  for (let i = 0; i < n; i++) {
    if (i === dot) continue;
    const d = value.charCodeAt(i) - 48;
    if (significant === 0 && d === 0) continue;
    significant++;
    small = small * 10 + d;
  }
  const scale = exponent - fractionDigits;
  if (significant > 0) significant += scale;
  if (significant > MAX_DIGITS) {
    return { ok: false, error: { code: 'invalid_amount', message: `amount has more than ${MAX_DIGITS} digits` } };
  }
  let minor: bigint;
  if (significant <= 15) minor = BigInt(small * 10 ** scale);
  else {
    const digits =
      (dot < 0 ? value : value.slice(0, dot) + value.slice(dot + 1)).replace(/^0+/, '') + '0'.repeat(scale);
    minor = BigInt(digits);
  }
  if (minor <= 0n) {
    return { ok: false, error: { code: 'invalid_amount', message: 'amount must be positive' } };
  }
  return { ok: true, minor, exponent };
}

/** 10^0 .. 10^15, exact doubles: `10 ** scale` is a floating-point power call, once per amount. */
const POWERS_OF_TEN = Array.from({ length: 16 }, (_, k) => 10 ** k);

/**
 * The common case of parseAmount without allocating: a plain positive decimal of at most 15 significant
 * digits (after scaling to minor units) with no more fraction digits than `exponent`. Returns its minor
 * units, exactly what parseAmount would give as a bigint; -1 for anything else (call parseAmount for
 * the error or the bigint).
 */
export function plainMinor(value: string, exponent: number): number {
  const n = value.length;
  if (n === 0) return -1;
  let dot = -1;
  let small = 0;
  let significant = 0;
  for (let i = 0; i < n; i++) {
    const c = value.charCodeAt(i);
    if (c === 46) {
      if (dot >= 0) return -1;
      dot = i;
    } else if (c >= 48 && c <= 57) {
      if (significant === 0 && c === 48) continue;
      significant++;
      small = small * 10 + (c - 48);
    } else return -1;
  }
  if (dot === 0 || dot === n - 1) return -1;
  const fractionDigits = dot < 0 ? 0 : n - dot - 1;
  if (fractionDigits > exponent || significant === 0) return -1;
  const scale = exponent - fractionDigits;
  if (significant + scale > 15) return -1;
  return small * (POWERS_OF_TEN[scale] as number);
}

/** Formats minor units as a decimal string with exactly `exponent` fraction digits ("12.30"). */
export function formatMinor(minor: bigint, exponent: number): string {
  const negative = minor < 0n;
  const abs = (negative ? -minor : minor).toString().padStart(exponent + 1, '0');
  const body = exponent === 0 ? abs : `${abs.slice(0, -exponent)}.${abs.slice(-exponent)}`;
  return negative ? `-${body}` : body;
}
