import { luhnValid } from './check-digits.ts';

/**
 * Danish FI-kort (FIK) payment id: 15 digits for card type 71, 16 for 75 (15 for 04 Giro as well),
 * mod 10 with weights 1,2 from the right, i.e. Luhn. The canonical reference is `71/<id>` or a bare id.
 */
const LENGTHS: Record<string, number> = { '71': 15, '75': 16, '04': 16, '01': 0, '15': 16, '73': 0 };

export type FikCheck = { ok: true } | { ok: false; reason: string };

export function checkFikPaymentId(cardType: string, reference: string): FikCheck {
  const expected = LENGTHS[cardType];
  if (expected === undefined) return { ok: false, reason: `unknown card type ${cardType}` };
  const m = /^(?:\+?(\d{2})[/<])?(\d+)$/.exec(reference.replace(/ /g, ''));
  if (!m) return { ok: false, reason: 'expected digits, optionally prefixed with the card type and a slash' };
  if (m[1] !== undefined && m[1] !== cardType) return { ok: false, reason: `card type ${m[1]} given for ${cardType}` };
  const id = m[2] ?? '';
  if (expected === 0) return { ok: false, reason: `card type ${cardType} carries no payment id` };
  if (id.length !== expected) return { ok: false, reason: `card type ${cardType} needs ${expected} digits` };
  if (!luhnValid(id)) return { ok: false, reason: 'check digit does not match (mod 10, weights 1,2)' };
  return { ok: true };
}

/** FIK creditor number: 8 digits. */
export function isValidFikCreditor(number: string): boolean {
  return /^\d{8}$/.test(number);
}
