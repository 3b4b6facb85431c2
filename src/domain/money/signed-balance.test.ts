import assert from 'node:assert/strict';
import { test } from 'node:test';
import { signedBalance } from './signed-balance.ts';

test('a debit balance is negative, a credit one positive, zero unsigned, never signed twice', () => {
  assert.equal(signedBalance({ amount: '125.40', direction: 'debit' }), '-125.40');
  assert.equal(signedBalance({ amount: '125.40', direction: 'credit' }), '125.40');
  assert.equal(signedBalance({ amount: '125.40' }), '125.40');
  assert.equal(signedBalance({ amount: '0.00', direction: 'debit' }), '0.00');
  assert.equal(signedBalance({ amount: '0,00', direction: 'debit' }), '0,00');
  assert.equal(signedBalance({ amount: '-3.00', direction: 'debit' }), '3.00');
});
