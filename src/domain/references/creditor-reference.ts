import { DIGITS, luhnValid, mod11CheckDigit, mod97 } from './check-digits.ts';
import { finnishCheckDigit } from './finnish-reference.ts';

/**
 * Structured creditor references a company puts on its invoices, and that the payer's bank carries
 * back in `RmtInf/Strd/CdtrRefInf/Ref` (domain.md, creditor references): the four schemes the service
 * issues and validates (DESIGN.md, Receivables: `POST /references`, `GET /references/validate`).
 *
 *   SCOR  RF creditor reference (ISO 11649): `RF` + 2 check digits + 1..21 alphanumerics
 *   FI    Finnish reference (viitenumero): 4..20 digits, weights 7,3,1 from the right
 *   OCR   Swedish OCR: 2..25 digits, Luhn; optionally a length digit ((length) mod 10) before the check digit
 *   KID   Norwegian KID: 2..25 digits, MOD10 (Luhn) or MOD11 (weights 2..7, remainder 10 written `-`)
 *
 * Pure: a generator is given its base (the caller draws one when the customer has none).
 */
export const REFERENCE_TYPES = ['SCOR', 'FI', 'OCR', 'KID'] as const;
export type ReferenceType = (typeof REFERENCE_TYPES)[number];

export type ReferenceOptions = {
  /** OCR: a length digit before the check digit (Bankgirot's "längdsiffra" variant). */
  ocrLengthDigit?: boolean;
  /** KID: which check digit the creditor agreement names (generation; validation accepts either when absent). */
  kidAlgorithm?: 'MOD10' | 'MOD11';
};

export type Generated = { ok: true; value: string; printed: string } | { ok: false; reason: string };
export type Validated = { valid: boolean; normalised: string; reason: string | null };

const MOD11_WEIGHTS = [2, 3, 4, 5, 6, 7] as const;

/** What a person typed or a payer's bank mangled: spaces, hyphens (not KID's final one) and case removed. */
export function normaliseReference(type: ReferenceType, value: string): string {
  const compact = value.replace(/[\s.]/g, '').toUpperCase();
  if (type === 'KID') return compact.replace(/-(?=.)/g, '');
  return compact.replace(/-/g, '');
}

/** The Luhn check digit of a digit payload (the digit that makes payload + digit Luhn-valid). */
export function luhnCheckDigit(payload: string): number {
  for (let d = 0; d <= 9; d++) if (luhnValid(`${payload}${d}`)) return d;
  /* c8 ignore next */
  throw new Error('no Luhn digit');
}

/** Groups of four from the left, as RF references are printed (`RF18 5390 0754 7034`). */
function printedInFours(value: string): string {
  return value.replace(/(.{4})(?=.)/g, '$1 ');
}

/** Groups of five from the right, as Finnish references are printed (`12 34561`). */
function printedInFivesFromRight(value: string): string {
  const groups: string[] = [];
  for (let end = value.length; end > 0; end -= 5) groups.unshift(value.slice(Math.max(0, end - 5), end));
  return groups.join(' ');
}

/** A reference with valid check digits built on `base` (the customer's own number, or a drawn one). */
export function generateReference(type: ReferenceType, base: string, options: ReferenceOptions = {}): Generated {
  const b = normaliseReference(type, base);
  switch (type) {
    case 'SCOR': {
      if (!/^[A-Z0-9]{1,21}$/.test(b)) return { ok: false, reason: 'an RF base is 1 to 21 letters and digits' };
      const check = 98 - mod97(`${b}RF00`);
      const value = `RF${String(check).padStart(2, '0')}${b}`;
      return { ok: true, value, printed: printedInFours(value) };
    }
    case 'FI': {
      if (!DIGITS.test(b) || b.length < 3 || b.length > 19)
        return { ok: false, reason: 'a Finnish reference base is 3 to 19 digits' };
      const value = `${b}${finnishCheckDigit(b)}`;
      return { ok: true, value, printed: printedInFivesFromRight(value) };
    }
    case 'OCR': {
      const room = options.ocrLengthDigit ? 23 : 24;
      if (!DIGITS.test(b) || b.length > room) return { ok: false, reason: `an OCR base is 1 to ${room} digits` };
      const payload = options.ocrLengthDigit ? `${b}${(b.length + 2) % 10}` : b;
      const value = `${payload}${luhnCheckDigit(payload)}`;
      return { ok: true, value, printed: value };
    }
    case 'KID': {
      if (!DIGITS.test(b) || b.length > 24) return { ok: false, reason: 'a KID base is 1 to 24 digits' };
      if (options.kidAlgorithm === 'MOD11') {
        const d = mod11CheckDigit(b, MOD11_WEIGHTS);
        const value = `${b}${d === undefined ? '-' : d}`;
        return { ok: true, value, printed: value };
      }
      const value = `${b}${luhnCheckDigit(b)}`;
      return { ok: true, value, printed: value };
    }
  }
}

/** Whether `value` is a valid reference of `type`, its normalised form, and why not. */
export function validateReference(type: ReferenceType, value: string, options: ReferenceOptions = {}): Validated {
  const v = normaliseReference(type, value);
  const answer = (reason: string | null): Validated => ({ valid: reason === null, normalised: v, reason });
  switch (type) {
    case 'SCOR':
      if (!v.startsWith('RF')) return answer('an RF reference starts with RF');
      if (!/^RF\d{2}[A-Z0-9]{1,21}$/.test(v)) return answer('RF, 2 check digits and 1 to 21 letters or digits');
      return answer(mod97(v.slice(4) + v.slice(0, 4)) === 1 ? null : 'check digits do not match (ISO 7064 mod 97)');
    case 'FI':
      if (!/^\d{4,20}$/.test(v)) return answer('a Finnish reference is 4 to 20 digits');
      return answer(
        finnishCheckDigit(v.slice(0, -1)) === v.charCodeAt(v.length - 1) - 48
          ? null
          : 'check digit does not match (weights 7, 3, 1)',
      );
    case 'OCR':
      if (!/^\d{2,25}$/.test(v)) return answer('an OCR reference is 2 to 25 digits');
      if (!luhnValid(v)) return answer('check digit does not match (Luhn)');
      if (options.ocrLengthDigit && (v.length < 3 || v.charCodeAt(v.length - 2) - 48 !== v.length % 10))
        return answer(`length digit does not match (${v.length % 10} expected for ${v.length} digits)`);
      return answer(null);
    case 'KID': {
      if (!/^\d{1,24}[\d-]$/.test(v)) return answer('a KID is 2 to 25 digits (MOD11 may end in -)');
      const payload = v.slice(0, -1);
      const last = v.slice(-1);
      const mod11 = mod11CheckDigit(payload, MOD11_WEIGHTS);
      const mod11Ok = last === '-' ? mod11 === undefined : mod11 === Number(last);
      const mod10Ok = last !== '-' && luhnValid(v);
      if (options.kidAlgorithm === 'MOD10') return answer(mod10Ok ? null : 'check digit does not match (MOD10)');
      if (options.kidAlgorithm === 'MOD11') return answer(mod11Ok ? null : 'check digit does not match (MOD11)');
      return answer(mod10Ok || mod11Ok ? null : 'check digit matches neither MOD10 nor MOD11');
    }
  }
}

/**
 * The type of a structured reference as a statement carries it, when it is one of ours: an `RF` prefix
 * is SCOR; digits are matched as written (FI, OCR and KID are all digits, so the expected payment's
 * type decides which check applies). Used by the matcher to compare references in normalised form.
 */
export function comparableReference(value: string): string {
  // Most references arrive as written: no copy then.
  return COMPARABLE.test(value) ? value : value.replace(/[\s.-]/g, '').toUpperCase();
}
const COMPARABLE = /^[A-Z0-9]*$/;
