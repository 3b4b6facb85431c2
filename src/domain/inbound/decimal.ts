import { currencyExponent } from '../money/currencies.ts';
import { formatMinor } from '../money/money.ts';

/**
 * Exact decimals for bank-file amounts. Bank files may carry more fraction digits than the currency
 * has (camt "five decimals", XXX, invalid balances), so amounts here are bigint units at their own
 * scale rather than the currency's minor units; sums align scales instead of rounding.
 */
export type Decimal = { units: bigint; scale: number };

const DECIMAL_TEXT = /^([+-]?)(\d+)(?:[.,](\d*))?$|^([+-]?)[.,](\d+)$/;

/** "1234,5", "-3.00", "0012.10", ",5" -> units and scale; undefined for anything else (no exponents, no spaces inside). */
function parseDecimal(text: string): Decimal | undefined {
  const m = DECIMAL_TEXT.exec(text);
  if (!m) return undefined;
  const sign = m[1] ?? m[4] ?? '';
  const whole = m[2] ?? '';
  const fraction = m[3] ?? m[5] ?? '';
  if (whole.length + fraction.length > 40) return undefined;
  const units = BigInt(`${whole}${fraction}` || '0');
  return { units: sign === '-' ? -units : units, scale: fraction.length };
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

// Fast path for the overwhelmingly common "123.45" in a two-decimal currency: no BigInt formatting.
const PLAIN_TWO = /^(?:0|[1-9]\d{0,14})\.\d\d$/;

/** Units of a PLAIN_TWO text; up to 15 digits in all are exact as a double, so no digit string is built. */
function plainTwoUnits(raw: string): bigint {
  if (raw.length > 16) return BigInt(raw.replace('.', ''));
  let v = 0;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c !== 46) v = v * 10 + (c - 48);
  }
  return BigInt(v);
}

export function parseAmountText(raw: string, currency: string | null): Amount | undefined {
  const exponent = currency ? (currencyExponent(currency) ?? 2) : 2;
  if (exponent === 2 && PLAIN_TWO.test(raw)) {
    return { text: raw, units: plainTwoUnits(raw), scale: 2, excessPrecision: false };
  }
  const d = parseDecimal(raw.trim());
  if (!d || d.units < 0n) return undefined;
  const t = trimScale(d, exponent);
  return { text: formatMinor(t.units, t.scale), units: t.units, scale: t.scale, excessPrecision: t.scale > exponent };
}
