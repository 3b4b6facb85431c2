import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newTransaction } from '../inbound/new-transaction.ts';
import type { StatementTransaction } from '../inbound/types.ts';
import { isReturn } from './match-entries.ts';
import { entryOf, isReturnOrReversal } from './statement-entries.ts';

const tx = (over: Partial<StatementTransaction>): StatementTransaction => ({
  ...newTransaction(1, 'EUR', over.direction ?? 'credit', '10.00'),
  amount: '10.00',
  status: 'booked',
  bookingDate: '2026-11-20',
  ...over,
});

test('the marks of a return: reversal indicator, return reason, RRTN/RPCR, the German GVC 159 of a credit', () => {
  assert.equal(isReturnOrReversal(tx({})), false);
  assert.equal(isReturnOrReversal(tx({ reversal: true })), true);
  assert.equal(isReturnOrReversal(tx({ returnReason: 'AC04' })), true);
  assert.equal(isReturnOrReversal(tx({ txCodeSubFamily: 'RRTN' })), true);
  assert.equal(isReturnOrReversal(tx({ txCodeSubFamily: 'RPCR' })), true);
  assert.equal(isReturnOrReversal(tx({ txCodeProprietary: '159', detailsDialect: 'german' })), true);
  // 159 is a German GVC: from another dialect's code list it means something else.
  assert.equal(isReturnOrReversal(tx({ txCodeProprietary: '159', detailsDialect: 'swift-tags' })), false);
  assert.equal(isReturnOrReversal(tx({ txCodeProprietary: '166', detailsDialect: 'german' })), false);
});

test('only a return that credits the account is a return of ours; a debit with return information is no booking', () => {
  const credit = entryOf(
    tx({ returnReason: 'AC04', originalAmount: '10.50', originalCurrency: 'EUR', bankRef: 'B1' }),
  )!;
  assert.equal(isReturn(credit), true);
  assert.equal(credit.originalAmountMinor, 1050n);
  assert.equal(credit.bankRef, 'B1');
  const debit = entryOf(tx({ direction: 'debit', returnReason: 'AC06' }))!;
  assert.equal(debit.reversal, true, 'a direct debit come back unpaid: not a booking of an outbound payment');
  assert.equal(isReturn(debit), false);
  // An instructed amount in another currency is not the booked one's original.
  assert.equal(
    entryOf(tx({ reversal: true, originalAmount: '9.00', originalCurrency: 'USD' }))!.originalAmountMinor,
    null,
  );
});
