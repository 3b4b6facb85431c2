import { currencyExponent } from './currencies.ts';

/** Exact amounts: decimal strings at the edges, bigint minor units inside. Never a float. */

const MAX_DIGITS = 18;
const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

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
  const m = DECIMAL.exec(value);
  if (!m) {
    return { ok: false, error: { code: 'invalid_amount', message: `not a plain decimal: ${JSON.stringify(value)}` } };
  }
  const whole = m[1] ?? '';
  const fraction = m[2] ?? '';
  if (fraction.length > exponent) {
    return {
      ok: false,
      error: {
        code: 'amount_precision',
        message: `${currency} allows at most ${exponent} fraction digits, got ${fraction.length}`,
      },
    };
  }
  const digits = (whole + fraction.padEnd(exponent, '0')).replace(/^0+/, '');
  if (digits.length > MAX_DIGITS) {
    return { ok: false, error: { code: 'invalid_amount', message: `amount has more than ${MAX_DIGITS} digits` } };
  }
  const minor = digits === '' ? 0n : BigInt(digits);
  if (minor <= 0n) {
    return { ok: false, error: { code: 'invalid_amount', message: 'amount must be positive' } };
  }
  return { ok: true, minor, exponent };
}

/** Formats minor units as a decimal string with exactly `exponent` fraction digits ("12.30"). */
export function formatMinor(minor: bigint, exponent: number): string {
  const negative = minor < 0n;
  const abs = (negative ? -minor : minor).toString().padStart(exponent + 1, '0');
  const body = exponent === 0 ? abs : `${abs.slice(0, -exponent)}.${abs.slice(-exponent)}`;
  return negative ? `-${body}` : body;
}

/**
 * Parses a decimal string as a bank file writes it ("1234.5", "1234,50", "-3.00") into minor units at
 * `exponent`, without the payment-side restrictions (zero and negatives allowed). Returns undefined
 * when the text is not a decimal or has more fraction digits than `exponent`.
 */
export function decimalToMinor(text: string, exponent: number): bigint | undefined {
  const m = /^([+-]?)(\d*)(?:[.,](\d*))?$/.exec(text.trim());
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) return undefined;
  const fraction = m[3] ?? '';
  if (fraction.length > exponent) {
    // Bank files sometimes pad fractions ("10.500" for EUR): accept trailing zeros only.
    if (/[^0]/.test(fraction.slice(exponent))) return undefined;
  }
  const digits = (m[2] ?? '') + fraction.slice(0, exponent).padEnd(exponent, '0');
  const value = BigInt(digits === '' ? '0' : digits);
  return m[1] === '-' ? -value : value;
}
