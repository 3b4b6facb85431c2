import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { decimalToMinor } from './decimal.ts';
import { formatMinor, parseAmount, plainMinor } from './money.ts';

test('parseAmount accepts plain decimals within the currency exponent', () => {
  assert.deepEqual(parseAmount('12.30', 'EUR'), { ok: true, minor: 1230n, exponent: 2 });
  assert.deepEqual(parseAmount('12', 'EUR'), { ok: true, minor: 1200n, exponent: 2 });
  assert.deepEqual(parseAmount('1500', 'JPY'), { ok: true, minor: 1500n, exponent: 0 });
  assert.deepEqual(parseAmount('1.234', 'KWD'), { ok: true, minor: 1234n, exponent: 3 });
  assert.deepEqual(parseAmount('999999999999999999', 'JPY'), { ok: true, minor: 999999999999999999n, exponent: 0 });
});

test('parseAmount refuses floats, exponents, signs, zero, excess precision and excess digits', () => {
  const code = (v: unknown, c = 'EUR') => {
    const r = parseAmount(v, c);
    return r.ok ? 'ok' : r.error.code;
  };
  assert.equal(code(12.3), 'invalid_amount');
  assert.equal(code('1e3'), 'invalid_amount');
  assert.equal(code('-1.00'), 'invalid_amount');
  assert.equal(code('+1.00'), 'invalid_amount');
  assert.equal(code('1.'), 'invalid_amount');
  assert.equal(code('.5'), 'invalid_amount');
  assert.equal(code('0.00'), 'invalid_amount');
  assert.equal(code('1,00'), 'invalid_amount');
  assert.equal(code('1.001'), 'amount_precision');
  assert.equal(code('1.5', 'JPY'), 'amount_precision');
  assert.equal(code('10000000000000000.00'), 'invalid_amount');
  assert.equal(code('1.00', 'XXX'), 'invalid_currency');
});

test('formatMinor writes exactly the exponent digits', () => {
  assert.equal(formatMinor(1230n, 2), '12.30');
  assert.equal(formatMinor(5n, 2), '0.05');
  assert.equal(formatMinor(-5n, 2), '-0.05');
  assert.equal(formatMinor(1500n, 0), '1500');
  assert.equal(formatMinor(1n, 3), '0.001');
});

test('decimalToMinor reads bank-file decimals exactly', () => {
  assert.equal(decimalToMinor('1234,5', 2), 123450n);
  assert.equal(decimalToMinor('-3.00', 2), -300n);
  assert.equal(decimalToMinor('0', 2), 0n);
  assert.equal(decimalToMinor('10.500', 2), 1050n);
  assert.equal(decimalToMinor('10.505', 2), undefined);
  assert.equal(decimalToMinor('abc', 2), undefined);
  assert.equal(decimalToMinor(',', 2), undefined);
});

/** The fused converter's allocation-free amount parser must agree with parseAmount wherever it answers. */
test("plainMinor gives parseAmount's minor units, or -1", () => {
  const currencies: Array<[string, number]> = [
    ['JPY', 0],
    ['EUR', 2],
    ['KWD', 3],
    ['CLF', 4],
  ];
  const amount = fc.tuple(
    fc.stringMatching(/^[0-9]{1,16}$/),
    fc.option(fc.stringMatching(/^[0-9]{0,5}$/), { nil: undefined }),
  );
  fc.assert(
    fc.property(amount, fc.constantFrom(...currencies), ([whole, fraction], [currency, exponent]) => {
      const text = fraction === undefined ? whole : `${whole}.${fraction}`;
      const fast = plainMinor(text, exponent);
      if (fast === -1) return;
      const full = parseAmount(text, currency);
      assert.ok(full.ok, text);
      assert.equal(BigInt(fast), full.minor, `${text} ${currency}`);
    }),
    { numRuns: 2000 },
  );
  assert.equal(plainMinor('12.3', 2), 1230);
  assert.equal(plainMinor('7', 4), 70000);
  assert.equal(plainMinor('123456789012345', 0), 123456789012345);
  assert.equal(plainMinor('1234567890123456', 0), -1);
});
