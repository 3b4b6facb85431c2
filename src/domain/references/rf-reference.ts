import { mod97 } from './check-digits.ts';

/**
 * ISO 11649 structured creditor reference: `RF` + 2 check digits + 1..21 alphanumerics (5..25 in all);
 * move the first four characters to the end, letters to numbers, mod 97 must be 1.
 * Spaces are allowed in print form and removed here.
 */
export function isValidRfReference(reference: string): boolean {
  const ref = reference.replace(/ /g, '').toUpperCase();
  if (!/^RF\d{2}[A-Z0-9]{1,21}$/.test(ref)) return false;
  return mod97(ref.slice(4) + ref.slice(0, 4)) === 1;
}

/** Builds an RF reference from a payload (used by tests and sample data). */
export function makeRfReference(payload: string): string {
  const body = payload.toUpperCase();
  const check = 98 - mod97(`${body}RF00`);
  return `RF${String(check).padStart(2, '0')}${body}`;
}
