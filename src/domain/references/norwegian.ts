import { DIGITS, luhnValid, mod11CheckDigit } from './check-digits.ts';

/**
 * Norwegian KID: up to 25 digits, MOD10 (Luhn) or MOD11 (weights 2..7 from the right; remainder 10 is
 * written as `-`). Which one applies is part of the creditor's agreement, so either is accepted.
 */
export function isValidKid(kid: string): boolean {
  if (kid.length < 2 || kid.length > 25) return false;
  const payload = kid.slice(0, -1);
  const last = kid.slice(-1);
  if (!DIGITS.test(payload)) return false;
  if (last === '-') return mod11CheckDigit(payload, [2, 3, 4, 5, 6, 7]) === undefined;
  if (!DIGITS.test(last)) return false;
  if (luhnValid(kid)) return true;
  return mod11CheckDigit(payload, [2, 3, 4, 5, 6, 7]) === Number(last);
}

/** Norwegian BBAN account number: 11 digits, MOD11 with weights 2..7 from the right. */
export function isValidNorwegianAccount(account: string): boolean {
  if (!/^\d{11}$/.test(account)) return false;
  return mod11CheckDigit(account.slice(0, 10), [2, 3, 4, 5, 6, 7]) === Number(account.slice(10));
}
