import assert from 'node:assert/strict';
import { test } from 'node:test';
import { luhnValid, mod11CheckDigit } from './check-digits.ts';
import { checkFikPaymentId, isValidFikCreditor } from './danish.ts';
import { finnishCheckDigit, isValidFinnishReference } from './finnish-reference.ts';
import { isValidKid, isValidNorwegianAccount } from './norwegian.ts';
import { isMikrorachunek, isValidNip, isValidNrb } from './polish.ts';
import { checkSplitPaymentText, checkTaxPaymentText, formatSplitPayment } from './polish-remittance.ts';
import { isValidRfReference, makeRfReference } from './rf-reference.ts';
import { isValidBankgiro, isValidOcr, isValidPlusgiro } from './swedish.ts';

test('RF creditor reference (ISO 11649): the standard example and its print form', () => {
  assert.equal(isValidRfReference('RF18539007547034'), true);
  assert.equal(isValidRfReference('RF18 5390 0754 7034'), true);
  assert.equal(isValidRfReference('rf18539007547034'), true);
  assert.equal(isValidRfReference('RF19539007547034'), false);
  assert.equal(isValidRfReference('RF18'), false);
  assert.equal(isValidRfReference('RF1853900754703412345678901'), false);
  assert.equal(isValidRfReference(makeRfReference('INV2026117')), true);
});

test('Finnish reference: 7-3-1 weights from the right', () => {
  assert.equal(finnishCheckDigit('123456'), 1);
  assert.equal(isValidFinnishReference('1234561'), true);
  assert.equal(isValidFinnishReference('1232'), true);
  assert.equal(isValidFinnishReference('1234 561'), true);
  assert.equal(isValidFinnishReference('1234562'), false);
  assert.equal(isValidFinnishReference('123'), false);
  assert.equal(isValidFinnishReference('123456789012345678901'), false);
});

test('Norwegian KID accepts MOD10 or MOD11, and account numbers use MOD11', () => {
  assert.equal(isValidKid('1234567897'), true);
  assert.equal(isValidKid('12345674'), true);
  assert.equal(isValidKid('1234567890'), false);
  assert.equal(isValidKid('12A4567897'), false);
  // a payload whose MOD11 remainder is 10 is written with a trailing dash
  let dashed = '';
  for (let n = 100000; !dashed; n++) if (mod11CheckDigit(String(n), [2, 3, 4, 5, 6, 7]) === undefined) dashed = `${n}-`;
  assert.equal(isValidKid(dashed), true);
  assert.equal(isValidNorwegianAccount('86011117947'), true);
  assert.equal(isValidNorwegianAccount('86011117948'), false);
  assert.equal(isValidNorwegianAccount('8601111794'), false);
});

test('Swedish Bankgiro, Plusgiro and OCR use Luhn', () => {
  assert.equal(isValidBankgiro('5050-1055'), true);
  assert.equal(isValidBankgiro('50501055'), true);
  assert.equal(isValidBankgiro('5050-1056'), false);
  assert.equal(isValidBankgiro('123456'), false);
  assert.equal(isValidPlusgiro('4000008'), luhnValid('4000008'));
  assert.equal(isValidPlusgiro('90-3'), luhnValid('903'));
  assert.equal(isValidPlusgiro('1'), false);
  assert.equal(isValidOcr('1234567897'), true);
  assert.equal(isValidOcr('1234567898'), false);
  // length digit variant: 12345 + length digit 7 (7 digits) + check digit
  const payload = '123457';
  let ocr = '';
  for (let d = 0; d < 10 && !ocr; d++) if (luhnValid(`${payload}${d}`)) ocr = `${payload}${d}`;
  assert.equal(isValidOcr(ocr, true), true);
});

test('Danish FIK payment ids: 15 digits for 71, 16 for 75, mod 10 weights 1,2', () => {
  assert.equal(checkFikPaymentId('71', '000000001234567').ok, luhnValid('000000001234567'));
  const id15 = findLuhn('00000000123456', 15);
  assert.deepEqual(checkFikPaymentId('71', id15), { ok: true });
  assert.deepEqual(checkFikPaymentId('71', `71/${id15}`), { ok: true });
  assert.equal(checkFikPaymentId('71', `75/${id15}`).ok, false);
  assert.equal(checkFikPaymentId('75', id15).ok, false);
  assert.deepEqual(checkFikPaymentId('75', findLuhn('000000001234567', 16)), { ok: true });
  assert.equal(checkFikPaymentId('73', id15).ok, false);
  assert.equal(isValidFikCreditor('85742016'), true);
  assert.equal(isValidFikCreditor('8574201'), false);
});

test('Polish NRB, NIP and the tax micro-account', () => {
  assert.equal(isValidNrb('61109010140000071219812874'), true);
  assert.equal(isValidNrb('61 1090 1014 0000 0712 1981 2874'), true);
  assert.equal(isValidNrb('62109010140000071219812874'), false);
  assert.equal(isValidNip('5260250274'), true);
  assert.equal(isValidNip('526-025-02-74'), true);
  assert.equal(isValidNip('5260250275'), false);
  assert.equal(isMikrorachunek('61109010140000071219812874'), false);
});

test('Polish split payment and tax remittance formats', () => {
  const text = formatSplitPayment({
    vatAmount: '23.00',
    taxId: '5260250274',
    invoiceNumber: 'FV-1-2026',
    text: 'zaplata',
  });
  assert.equal(text, '/VAT/23,00/IDC/5260250274/INV/FV-1-2026/TXT/zaplata');
  assert.deepEqual(checkSplitPaymentText(text), { ok: true });
  assert.deepEqual(checkSplitPaymentText('/VAT/23,00/IDC/5231242681/INV/PM1253'), { ok: true });
  assert.equal(checkSplitPaymentText('/VAT/23.00/IDC/5231242681/INV/PM1253').ok, false);
  assert.equal(checkSplitPaymentText('VAT 23').ok, false);
  assert.deepEqual(checkTaxPaymentText('/TI/N5260250274/OKR/24M03/SFP/VAT-7/TXT/VAT marzec'), { ok: true });
  assert.equal(checkTaxPaymentText('/TI/N5260250275/OKR/24M03/SFP/VAT-7').ok, false);
  assert.equal(checkTaxPaymentText('/TI/N5260250274/SFP/VAT-7').ok, false);
});

function findLuhn(payload: string, length: number): string {
  const p = payload.padStart(length - 1, '0');
  for (let d = 0; d < 10; d++) if (luhnValid(`${p}${d}`)) return `${p}${d}`;
  throw new Error('unreachable');
}
