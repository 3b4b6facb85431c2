import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { isBicShape } from './formats.ts';

/** The schema pattern isBicShape implements by hand. */
const BIC = /^[A-Z]{6}[A-Z2-9][A-NP-Z0-9]([A-Z0-9]{3})?$/;

test('isBicShape: the schema pattern on BICs, near misses and arbitrary text', () => {
  for (const bic of ['COBADEFFXXX', 'COBADEFF', 'NDEAFIHH', 'BKAUATWWXXX', 'CMCIFR2AXXX', 'RABONL2U']) {
    assert.equal(isBicShape(bic), true, bic);
  }
  for (const bad of [
    '',
    'COBADEFF1',
    'COBADEFFXX',
    'COBADE0FXXX',
    'COBADE1FXXX',
    'COBADEFOXXX',
    'cobadeffxxx',
    'COBADEFF\n',
  ]) {
    assert.equal(isBicShape(bad), false, JSON.stringify(bad));
  }
  const chars = fc.constantFrom(...'ABNOZ012789a -\u00c4\u0130'.split(''));
  fc.assert(
    fc.property(fc.array(chars, { minLength: 0, maxLength: 12 }), (cs) => {
      const s = cs.join('');
      assert.equal(isBicShape(s), BIC.test(s), JSON.stringify(s));
    }),
    { numRuns: 20_000 },
  );
  // BIC-like text: six letters (sometimes one not), the location pair, an optional branch; valid ones often.
  const letters = fc.array(fc.constantFrom(...'AZ'.split('')), { minLength: 6, maxLength: 6 });
  const pair = fc.array(fc.constantFrom(...'AOZ0129a'.split('')), { minLength: 2, maxLength: 2 });
  const branch = fc.constantFrom('', 'XXX', 'A0Z', 'AB', 'a00', '0009');
  const head = fc.oneof(
    { weight: 4, arbitrary: letters.map((l) => l.join('')) },
    { weight: 1, arbitrary: fc.constantFrom('ABCDE1', 'abcdef', 'ABCDEF1') },
  );
  fc.assert(
    fc.property(head, pair, branch, (h, p, b) => {
      const s = `${h}${p.join('')}${b}`;
      assert.equal(isBicShape(s), BIC.test(s), s);
    }),
    { numRuns: 20_000 },
  );
});
