/** Shared check-digit arithmetic over digit strings; callers check the alphabet first. */

/** Luhn (mod 10, weights 2,1 from the right over the payload, check digit last). */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/** Mod 97 of an alphanumeric string where letters count as 10..35 (ISO 7064 MOD 97-10 input form). */
export function mod97(text: string): number {
  let rem = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) rem = (rem * 10 + (c - 48)) % 97;
    else if (c >= 65 && c <= 90) rem = (rem * 100 + (c - 55)) % 97;
    else return -1;
  }
  return rem;
}

/** Weighted sum mod 11 check with weights applied from the right to the payload (check digit excluded). */
export function mod11CheckDigit(payload: string, weights: readonly number[]): number | undefined {
  let sum = 0;
  for (let i = 0; i < payload.length; i++) {
    const w = weights[i % weights.length] ?? 0;
    sum += (payload.charCodeAt(payload.length - 1 - i) - 48) * w;
  }
  const r = 11 - (sum % 11);
  if (r === 11) return 0;
  if (r === 10) return undefined;
  return r;
}

export const DIGITS = /^\d+$/;
