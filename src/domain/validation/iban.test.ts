import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isValidIBAN } from 'ibantools';
import { isValidIban } from './iban.ts';

test('valid IBANs of several countries pass', () => {
  for (const iban of [
    'DE89370400440532013000',
    'FI2112345600000785',
    'NL91ABNA0417164300',
    'PL61109010140000071219812874',
  ]) {
    assert.equal(isValidIban(iban), true, iban);
  }
});

test('check digits 00, 01 and 99 are refused even when the mod-97 sum works out (ISO 13616)', () => {
  // DE01508700100766615730 has a correct mod-97 remainder but the forbidden check digits 01.
  assert.equal(isValidIban('DE01508700100766615730'), false);
  assert.equal(isValidIBAN('DE01508700100766615730'), false);
});

test('agrees with ibantools on mutated IBANs (national check digits of FR, MC, BE and ES included)', () => {
  for (const base of [
    'DE89370400440532013000',
    'FR1420041010050500013M02606',
    'MC5811222000010123456789030',
    'BE71068973942469',
    'ES9121000418450200051332',
  ]) {
    assert.equal(isValidIban(base), true, base);
    for (let i = 2; i < base.length; i++) {
      for (const d of '0123456789AMZ') {
        const mutated = base.slice(0, i) + d + base.slice(i + 1);
        assert.equal(isValidIban(mutated), isValidIBAN(mutated), mutated);
        // The same BBAN with its IBAN check digits made right: the national check alone decides.
        const fixed = withCheckDigits(mutated);
        assert.equal(isValidIban(fixed), isValidIBAN(fixed), fixed);
      }
    }
  }
});

/** `iban` with check digits that make its mod-97 sum 1 (ISO 13616), whatever its BBAN. */
function withCheckDigits(iban: string): string {
  const rotated = `${iban.slice(4)}${iban.slice(0, 2)}00`;
  let rem = 0;
  for (const ch of rotated) rem = (rem * (ch >= 'A' ? 100 : 10) + Number.parseInt(ch, 36)) % 97;
  return `${iban.slice(0, 2)}${String(98 - rem).padStart(2, '0')}${iban.slice(4)}`;
}
