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

test('agrees with ibantools on mutated IBANs', () => {
  const base = 'DE89370400440532013000';
  for (let i = 2; i < base.length; i++) {
    for (const d of '0123456789') {
      const mutated = base.slice(0, i) + d + base.slice(i + 1);
      assert.equal(isValidIban(mutated), isValidIBAN(mutated), mutated);
    }
  }
});
