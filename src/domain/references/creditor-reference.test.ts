import assert from 'node:assert/strict';
import { test } from 'node:test';
import { luhnValid } from './check-digits.ts';
import {
  generateReference,
  luhnCheckDigit,
  normaliseReference,
  REFERENCE_TYPES,
  validateReference,
} from './creditor-reference.ts';

test('RF (ISO 11649): the standard example, generated from its base and validated in print form', () => {
  // ISO 11649's own example: base 539007547034 -> RF18 5390 0754 7034.
  assert.deepEqual(generateReference('SCOR', '539007547034'), {
    ok: true,
    value: 'RF18539007547034',
    printed: 'RF18 5390 0754 7034',
  });
  assert.deepEqual(validateReference('SCOR', 'RF18 5390 0754 7034'), {
    valid: true,
    normalised: 'RF18539007547034',
    reason: null,
  });
  assert.equal(validateReference('SCOR', 'rf18539007547034').valid, true);
  assert.match(validateReference('SCOR', 'RF19539007547034').reason ?? '', /mod 97/);
  assert.equal(validateReference('SCOR', 'RF18').valid, false);
  assert.equal(validateReference('SCOR', `RF18${'1'.repeat(22)}`).valid, false);
  assert.equal(generateReference('SCOR', 'A'.repeat(22)).ok, false);
  const inv = generateReference('SCOR', 'INV-2026-117');
  assert.ok(inv.ok);
  assert.equal(validateReference('SCOR', inv.value).valid, true);
});

test('Finnish reference: 7-3-1 from the right (Finance Finland examples 1232 and 1234561)', () => {
  assert.deepEqual(generateReference('FI', '123'), { ok: true, value: '1232', printed: '1232' });
  assert.deepEqual(generateReference('FI', '123456'), { ok: true, value: '1234561', printed: '12 34561' });
  assert.equal(validateReference('FI', '12 34561').valid, true);
  assert.match(validateReference('FI', '1234562').reason ?? '', /7, 3, 1/);
  assert.equal(validateReference('FI', '123').valid, false);
  assert.equal(validateReference('FI', '1'.repeat(21)).valid, false);
  assert.equal(generateReference('FI', '12').ok, false);
  assert.equal(generateReference('FI', '1'.repeat(20)).ok, false);
});

test('Swedish OCR: Luhn, with and without the length digit', () => {
  // The Luhn textbook example 7992739871 -> 3, and 123456789 -> 7.
  assert.equal(luhnCheckDigit('7992739871'), 3);
  assert.deepEqual(generateReference('OCR', '123456789'), { ok: true, value: '1234567897', printed: '1234567897' });
  assert.equal(validateReference('OCR', '79927398713').valid, true);
  assert.match(validateReference('OCR', '1234567898').reason ?? '', /Luhn/);
  // Length digit: base 12345, 7 digits in all, so the length digit is 7, then the Luhn digit.
  const withLength = generateReference('OCR', '12345', { ocrLengthDigit: true });
  assert.ok(withLength.ok);
  assert.equal(withLength.value.length, 7);
  assert.equal(withLength.value.slice(0, 6), '123457');
  assert.equal(luhnValid(withLength.value), true);
  assert.equal(validateReference('OCR', withLength.value, { ocrLengthDigit: true }).valid, true);
  // Luhn-valid, but its length digit is wrong: refused only when the variant is asked for.
  assert.equal(validateReference('OCR', '1234567897').valid, true);
  assert.match(validateReference('OCR', '1234567897', { ocrLengthDigit: true }).reason ?? '', /length digit/);
  assert.equal(validateReference('OCR', '1').valid, false);
  assert.equal(validateReference('OCR', '1'.repeat(26)).valid, false);
});

test('Norwegian KID: MOD10 and MOD11 (remainder 10 written as -)', () => {
  assert.deepEqual(generateReference('KID', '123456789'), { ok: true, value: '1234567897', printed: '1234567897' });
  assert.deepEqual(generateReference('KID', '1234567', { kidAlgorithm: 'MOD11' }), {
    ok: true,
    value: '12345674',
    printed: '12345674',
  });
  assert.equal(validateReference('KID', '1234567897').valid, true);
  assert.equal(validateReference('KID', '12345674').valid, true);
  assert.equal(validateReference('KID', '1234567897', { kidAlgorithm: 'MOD11' }).valid, false);
  assert.equal(validateReference('KID', '1234567890').valid, false);
  // A base whose MOD11 remainder is 10 ends in a dash; it validates as MOD11 and not as MOD10.
  let dashed: string | undefined;
  for (let n = 1000; dashed === undefined; n++) {
    const g = generateReference('KID', String(n), { kidAlgorithm: 'MOD11' });
    if (g.ok && g.value.endsWith('-')) dashed = g.value;
  }
  assert.equal(validateReference('KID', dashed).valid, true);
  assert.equal(validateReference('KID', dashed, { kidAlgorithm: 'MOD10' }).valid, false);
  assert.equal(normaliseReference('KID', ` ${dashed} `), dashed);
});

test('every generated reference of every type validates (fixed bases)', () => {
  for (const type of REFERENCE_TYPES) {
    for (const base of ['1', '42', '1000', '987654321', '20261203000117']) {
      if (type === 'FI' && base.length < 3) continue;
      for (const options of [{}, { ocrLengthDigit: true }, { kidAlgorithm: 'MOD11' as const }]) {
        const g = generateReference(type, base, options);
        assert.ok(g.ok, `${type} ${base}`);
        assert.equal(validateReference(type, g.value, options).valid, true, `${type} ${base} ${g.value}`);
      }
    }
  }
});
