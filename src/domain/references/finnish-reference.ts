/**
 * Finnish national reference (viitenumero): 4..20 digits including the check digit; weights 7,3,1
 * repeating from the right over the base; check = (10 - sum mod 10) mod 10. Leading zeros are not allowed
 * by the banks' forms but are accepted in files, so only the length and the digit are checked.
 */
export function finnishCheckDigit(base: string): number {
  const weights = [7, 3, 1];
  let sum = 0;
  for (let i = 0; i < base.length; i++) {
    sum += (base.charCodeAt(base.length - 1 - i) - 48) * (weights[i % 3] ?? 0);
  }
  return (10 - (sum % 10)) % 10;
}

export function isValidFinnishReference(reference: string): boolean {
  const ref = reference.replace(/ /g, '');
  if (!/^\d{4,20}$/.test(ref)) return false;
  return finnishCheckDigit(ref.slice(0, -1)) === ref.charCodeAt(ref.length - 1) - 48;
}
