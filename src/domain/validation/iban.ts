import { countrySpecs } from 'ibantools';

/**
 * IBAN check on ibantools' country table (length, BBAN pattern, national check digits) with our own
 * mod-97 loop over character codes: ibantools' isValidIBAN builds several strings per call, which showed
 * as a fifth of the benchmark's time. Same answers, no allocation on the clean path.
 */
type Spec = { chars: number; bban: RegExp; national?: (bban: string) => boolean };

const SPECS = new Map<string, Spec>();
for (const [country, s] of Object.entries(countrySpecs)) {
  if (!s.chars || !s.bban_regexp) continue;
  // Sticky and without the leading anchor, so the BBAN is matched in place from index 4.
  const spec: Spec = { chars: s.chars, bban: new RegExp(s.bban_regexp.replace(/^\^/, ''), 'y') };
  if (s.bban_validation_func) spec.national = s.bban_validation_func;
  SPECS.set(country, spec);
}

function mod97Rotated(iban: string): number {
  let rem = 0;
  const n = iban.length;
  for (let k = 0; k < n; k++) {
    const c = iban.charCodeAt(k < n - 4 ? k + 4 : k - (n - 4));
    if (c >= 48 && c <= 57) rem = (rem * 10 + (c - 48)) % 97;
    else if (c >= 65 && c <= 90) rem = (rem * 100 + (c - 55)) % 97;
    else return -1;
  }
  return rem;
}

/** Electronic-format IBAN (no spaces, upper case). */
export function isValidIban(iban: string): boolean {
  const spec = SPECS.get(iban.slice(0, 2));
  if (!spec || iban.length !== spec.chars) return false;
  const c2 = iban.charCodeAt(2);
  const c3 = iban.charCodeAt(3);
  if (c2 < 48 || c2 > 57 || c3 < 48 || c3 > 57) return false;
  spec.bban.lastIndex = 4;
  if (!spec.bban.test(iban)) return false;
  if (mod97Rotated(iban) !== 1) return false;
  return spec.national ? spec.national(iban.slice(4)) : true;
}
