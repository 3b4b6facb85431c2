import { currencyExponent } from './currencies.ts';
import { formatMinor } from './money.ts';

/**
 * The one module for exact decimal text that is not a payment amount (payment amounts: money.ts):
 * bank-file amounts, balances, query bounds, webhook and approval thresholds. Parse, compare, add,
 * format; never a float.
 *
 * Exact decimals for bank-file amounts. Bank files may carry more fraction digits than the currency
 * has (camt "five decimals", XXX, invalid balances), so amounts here are bigint units at their own
 * scale rather than the currency's minor units; sums align scales instead of rounding.
 */
export type Decimal = { units: bigint; scale: number };

const DECIMAL_TEXT = /^([+-]?)(\d+)(?:[.,](\d*))?$|^([+-]?)[.,](\d+)$/;

/** "1234,5", "-3.00", "0012.10", ",5" -> units and scale; undefined for anything else (no exponents, no spaces inside). */
export function parseBankDecimal(text: string): Decimal | undefined {
  const m = DECIMAL_TEXT.exec(text);
  if (!m) return undefined;
  const sign = m[1] ?? m[4] ?? '';
  const whole = m[2] ?? '';
  const fraction = m[3] ?? m[5] ?? '';
  if (whole.length + fraction.length > 40) return undefined;
  const units = BigInt(`${whole}${fraction}` || '0');
  return { units: sign === '-' ? -units : units, scale: fraction.length };
}

const PLAIN_DECIMAL = /^([+-]?)(\d+)(?:\.(\d+))?$/;

/**
 * A plain decimal as people and our own JSON write it: optional sign, digits, optional "." and
 * digits ("10", "-3.5", "+0.10"); undefined for anything else (no comma, no exponent, no spaces).
 */
export function parsePlainDecimal(text: string): Decimal | undefined {
  const m = PLAIN_DECIMAL.exec(text);
  if (!m) return undefined;
  const fraction = m[3] ?? '';
  const units = BigInt(`${m[2]}${fraction}`);
  return { units: m[1] === '-' ? -units : units, scale: fraction.length };
}

function rescale(d: Decimal, scale: number): bigint {
  return scale === d.scale ? d.units : d.units * 10n ** BigInt(scale - d.scale);
}

export function addDecimal(a: Decimal, b: Decimal): Decimal {
  const scale = Math.max(a.scale, b.scale);
  return { units: rescale(a, scale) + rescale(b, scale), scale };
}

export function negate(d: Decimal): Decimal {
  return { units: -d.units, scale: d.scale };
}

export function compareDecimal(a: Decimal, b: Decimal): number {
  const scale = Math.max(a.scale, b.scale);
  const x = rescale(a, scale);
  const y = rescale(b, scale);
  return x === y ? 0 : x < y ? -1 : 1;
}

/** Exact comparison of two decimal strings; undefined when either is not a plain decimal. */
export function compareDecimalText(a: string, b: string): number | undefined {
  const x = parsePlainDecimal(a);
  const y = parsePlainDecimal(b);
  return x && y ? compareDecimal(x, y) : undefined;
}

/**
 * A decimal as a bank file writes it ("1234.5", "1234,50", "-3.00") in units at `exponent`, zero and
 * negatives allowed. Bank files sometimes pad fractions ("10.500" for EUR): trailing zeros beyond
 * `exponent` are accepted, any other digit there gives undefined, as does text that is not a decimal.
 */
export function decimalToMinor(text: string, exponent: number): bigint | undefined {
  // Fast path for the common shape "123.45" with exactly `exponent` fraction digits (reconciliation
  // reads every entry's amount through here).
  const dot = text.length - exponent - 1;
  if (
    exponent > 0 &&
    dot > 0 &&
    text.charCodeAt(dot) === 46 &&
    allDigits(text, 0, dot) &&
    allDigits(text, dot + 1, text.length)
  ) {
    return BigInt(text.slice(0, dot) + text.slice(dot + 1));
  }
  const d = parseBankDecimal(text.trim());
  if (!d) return undefined;
  const t = d.scale > exponent ? trimScale(d, exponent) : d;
  return t.scale > exponent ? undefined : rescale(t, exponent);
}

function allDigits(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

export const ZERO: Decimal = { units: 0n, scale: 0 };

/** Drops trailing zero fraction digits beyond `minScale` (exact: 10.500 at scale 2 is 10.50). */
function trimScale(d: Decimal, minScale: number): Decimal {
  let { units, scale } = d;
  while (scale > minScale && units % 10n === 0n) {
    units /= 10n;
    scale--;
  }
  if (scale < minScale) units *= 10n ** BigInt(minScale - scale);
  return { units, scale: Math.max(scale, minScale) };
}

export function formatDecimal(d: Decimal, currency: string | null): string {
  const exponent = currency ? (currencyExponent(currency) ?? 2) : 2;
  const t = trimScale(d, exponent);
  return formatMinor(t.units, t.scale);
}

/** Canonical amount text for a currency, its exact value (it is a Decimal) and whether it is finer than the currency allows. */
export type Amount = { text: string; units: bigint; scale: number; excessPrecision: boolean };

/**
 * Units of "123.45" (no sign, no leading zero unless "0.xx", exactly two decimals) with at most 13 integer digits, so that all digits are exact as a double; -1 for any other
 * text, which the general path then reads.
 */
export function plainTwoUnits(raw: string): number {
  const n = raw.length;
  if (n < 4 || n > 16 || raw.charCodeAt(n - 3) !== 46) return -1;
  const first = raw.charCodeAt(0);
  if (first === 48 ? n !== 4 : first < 49 || first > 57) return -1;
  let v = 0;
  for (let k = 0; k < n; k++) {
    if (k === n - 3) continue;
    const c = raw.charCodeAt(k) - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v;
}

export function parseAmountText(raw: string, currency: string | null): Amount | undefined {
  const exponent = currency ? (currencyExponent(currency) ?? 2) : 2;
  // Fast path for the overwhelmingly common "123.45" in a two-decimal currency: no BigInt formatting.
  if (exponent === 2) {
    const cents = plainTwoUnits(raw);
    if (cents >= 0) return { text: raw, units: BigInt(cents), scale: 2, excessPrecision: false };
  }
  const d = parseBankDecimal(raw.trim());
  if (!d || d.units < 0n) return undefined;
  const t = trimScale(d, exponent);
  return { text: formatMinor(t.units, t.scale), units: t.units, scale: t.scale, excessPrecision: t.scale > exponent };
}

/** "1,234.50": thousands grouped for the human summary only (never parsed back). */
export function formatGrouped(amount: string): string {
  const [whole = '0', fraction] = amount.split('.');
  const g = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return fraction === undefined ? g : `${g}.${fraction}`;
}
