import { luhnValid } from './check-digits.ts';

/** Bankgiro number: 7..8 digits (a hyphen in print form is allowed), Luhn check digit. */
export function isValidBankgiro(number: string): boolean {
  const n = number.replace('-', '');
  return /^\d{7,8}$/.test(n) && luhnValid(n);
}

/** Plusgiro number: 2..8 digits (hyphen before the check digit in print form), Luhn check digit. */
export function isValidPlusgiro(number: string): boolean {
  const n = number.replace('-', '');
  return /^\d{2,8}$/.test(n) && luhnValid(n);
}

/**
 * Swedish OCR reference: 2..25 digits with a Luhn check digit. Some creditors also use a length digit
 * (`(length) mod 10` before the check digit); that variant is checked when `withLengthDigit` is set.
 */
export function isValidOcr(ocr: string, withLengthDigit = false): boolean {
  if (!/^\d{2,25}$/.test(ocr) || !luhnValid(ocr)) return false;
  if (!withLengthDigit) return true;
  return ocr.length >= 3 && ocr.charCodeAt(ocr.length - 2) - 48 === ocr.length % 10;
}
