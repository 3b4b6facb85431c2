import assert from 'node:assert/strict';
import { test } from 'node:test';
import { matchEntries } from './match-entries.ts';
import type { ReconEntry, ReconLine } from './types.ts';

const line = (over: Partial<ReconLine>): ReconLine => ({
  endToEndId: null,
  instructionId: null,
  messageId: 'MSG-1',
  paymentInfoId: 'PMT-1',
  amountMinor: 10000n,
  currency: 'EUR',
  creditorIban: 'FI5542345670000081',
  executionDate: '2026-11-20',
  ...over,
});

const entry = (over: Partial<ReconEntry>): ReconEntry => ({
  endToEndId: null,
  instructionId: null,
  messageId: null,
  paymentInfoId: null,
  amountMinor: 10000n,
  currency: 'EUR',
  direction: 'debit',
  counterpartyIban: null,
  bookingDate: '2026-11-20',
  reversal: false,
  batchWithoutDetails: false,
  ...over,
});

test('end-to-end id first, one to one: a second entry with the same id finds the line taken', () => {
  const r = matchEntries(
    [line({ endToEndId: 'E1' }), line({ endToEndId: 'E2' })],
    [entry({ endToEndId: 'E2' }), entry({ endToEndId: 'E1' }), entry({ endToEndId: 'E1' })],
  );
  assert.deepEqual(r.matches, [
    { line: 1, entry: 0, rule: 'end-to-end-id' },
    { line: 0, entry: 1, rule: 'end-to-end-id' },
  ]);
  assert.deepEqual(r.unmatchedEntries, [2]);
});

test('an identifier match is never taken away by a weaker rule of an earlier entry', () => {
  // Entry 0 could match line 0 by amount and IBAN, but entry 1 names line 0 by its end-to-end id.
  const r = matchEntries(
    [line({ endToEndId: 'E1', paymentInfoId: null, messageId: null })],
    [entry({ counterpartyIban: 'FI5542345670000081' }), entry({ endToEndId: 'E1' })],
  );
  assert.deepEqual(r.matches, [{ line: 0, entry: 1, rule: 'end-to-end-id' }]);
  assert.deepEqual(r.unmatchedEntries, [0]);
});

test('instruction id when the end-to-end id is missing or NOTPROVIDED', () => {
  const r = matchEntries(
    [line({ instructionId: 'I-9' })],
    [entry({ endToEndId: 'NOTPROVIDED', instructionId: 'I-9' })],
  );
  assert.deepEqual(r.matches, [{ line: 0, entry: 0, rule: 'instruction-id' }]);
});

test('message or payment-information id with the exact amount and currency, within the date window', () => {
  const lines = [line({ amountMinor: 5000n }), line({ amountMinor: 7000n })];
  const r = matchEntries(lines, [entry({ paymentInfoId: 'PMT-1', amountMinor: 7000n })]);
  assert.deepEqual(r.matches, [{ line: 1, entry: 0, rule: 'message-id-amount' }]);
  const late = matchEntries(lines, [entry({ paymentInfoId: 'PMT-1', amountMinor: 7000n, bookingDate: '2026-12-31' })]);
  assert.deepEqual(late.matches, []);
  const otherCurrency = matchEntries(lines, [entry({ paymentInfoId: 'PMT-1', amountMinor: 7000n, currency: 'SEK' })]);
  assert.deepEqual(otherCurrency.matches, []);
});

test('amount and creditor IBAN as the last resort', () => {
  const r = matchEntries(
    [line({ paymentInfoId: null, messageId: null })],
    [entry({ counterpartyIban: 'FI5542345670000081' })],
  );
  assert.deepEqual(r.matches, [{ line: 0, entry: 0, rule: 'amount-counterparty' }]);
});

test('an ambiguous candidate never matches: both lines stay pending with a reason', () => {
  const twins = [line({ paymentInfoId: null, messageId: null }), line({ paymentInfoId: null, messageId: null })];
  const r = matchEntries(twins, [entry({ counterpartyIban: 'FI5542345670000081' })]);
  assert.deepEqual(r.matches, []);
  assert.deepEqual(
    r.ambiguous.map((a) => a.line),
    [0, 1],
  );
  assert.match(r.ambiguous[0]!.reason, /2 outbound lines share amount and creditor IBAN/);
  assert.deepEqual(r.unmatchedEntries, [0]);
  const dupE2e = matchEntries([line({ endToEndId: 'X' }), line({ endToEndId: 'X' })], [entry({ endToEndId: 'X' })]);
  assert.equal(dupE2e.matches.length, 0);
  assert.equal(dupE2e.ambiguous.length, 2);
});

test('a batch booking without details matches the block whose open lines sum to it', () => {
  const lines = [
    line({ amountMinor: 100n }),
    line({ amountMinor: 250n }),
    line({ paymentInfoId: 'PMT-2', amountMinor: 999n }),
  ];
  const r = matchEntries(lines, [entry({ paymentInfoId: 'PMT-1', amountMinor: 350n, batchWithoutDetails: true })]);
  assert.deepEqual(r.matches, [
    { line: 0, entry: 0, rule: 'batch-total' },
    { line: 1, entry: 0, rule: 'batch-total' },
  ]);
  const wrongSum = matchEntries(lines, [
    entry({ paymentInfoId: 'PMT-1', amountMinor: 351n, batchWithoutDetails: true }),
  ]);
  assert.deepEqual(wrongSum.matches, []);
});

test('credits are not bookings of our payments, but a reversal names its line by identifier', () => {
  const lines = [line({ endToEndId: 'E1' })];
  assert.deepEqual(matchEntries(lines, [entry({ endToEndId: 'E1', direction: 'credit' })]).matches, []);
  assert.deepEqual(matchEntries(lines, [entry({ endToEndId: 'E1', direction: 'credit', reversal: true })]).matches, [
    { line: 0, entry: 0, rule: 'return', by: 'end-to-end-id' },
  ]);
});

test('a reversal in the same statement as its booking names the booked line', () => {
  const r = matchEntries(
    [line({ endToEndId: 'E1' })],
    [entry({ endToEndId: 'E1' }), entry({ endToEndId: 'E1', direction: 'credit', reversal: true })],
  );
  assert.deepEqual(r.matches, [
    { line: 0, entry: 0, rule: 'end-to-end-id' },
    { line: 0, entry: 1, rule: 'return', by: 'end-to-end-id' },
  ]);
});

test('a settled line takes no second booking but can be reversed', () => {
  const lines = [line({ endToEndId: 'E1', settled: true })];
  assert.deepEqual(matchEntries(lines, [entry({ endToEndId: 'E1' })]).matches, []);
  assert.deepEqual(matchEntries(lines, [entry({ endToEndId: 'E1', direction: 'credit', reversal: true })]).matches, [
    { line: 0, entry: 0, rule: 'return', by: 'end-to-end-id' },
  ]);
});

const IBAN = 'FI5542345670000081';
const returned = (over: Partial<ReconEntry> = {}) =>
  entry({ direction: 'credit', reversal: true, counterpartyIban: IBAN, bookingDate: '2026-11-25', ...over });

test('a return without identifiers: the one line paid to that account with that amount within the window', () => {
  const lines = [
    line({ endToEndId: 'E1', settled: true }),
    line({ endToEndId: 'E2', amountMinor: 20000n }),
    line({ endToEndId: 'E3', creditorIban: 'DE89370400440532013000' }),
  ];
  assert.deepEqual(matchEntries(lines, [returned()]).matches, [
    { line: 0, entry: 0, rule: 'return', by: 'amount-counterparty' },
  ]);
  // The instructed amount counts when the return is booked net of charges.
  assert.deepEqual(matchEntries(lines, [returned({ amountMinor: 9500n, originalAmountMinor: 10000n })]).matches, [
    { line: 0, entry: 0, rule: 'return', by: 'amount-counterparty' },
  ]);
});

test('a return without identifiers: outside the window, in another currency or on another account, nothing', () => {
  const lines = [line({ endToEndId: 'E1', settled: true })];
  for (const e of [
    returned({ bookingDate: '2026-11-19' }),
    returned({ bookingDate: '2026-12-05' }),
    returned({ currency: 'SEK' }),
    returned({ counterpartyIban: 'DE89370400440532013000' }),
    returned({ bookingDate: null }),
  ])
    assert.deepEqual(
      matchEntries(lines, [e]).matches,
      [],
      JSON.stringify(e, (_, v) => String(v)),
    );
  // At the window's last day it still matches.
  assert.equal(matchEntries(lines, [returned({ bookingDate: '2026-12-04' })]).matches.length, 1);
});

test('a return without identifiers and two candidates: nothing matched, both lines named ambiguous', () => {
  const lines = [line({ endToEndId: 'E1', settled: true }), line({ endToEndId: 'E2', executionDate: '2026-11-22' })];
  const r = matchEntries(lines, [returned()]);
  assert.deepEqual(r.matches, []);
  assert.deepEqual(
    r.ambiguous.map((a) => a.line),
    [0, 1],
  );
  assert.deepEqual(r.unmatchedEntries, [0]);
});

test('a return naming an identifier is matched by it or not at all; a debit reversal is no return of ours', () => {
  const lines = [line({ endToEndId: 'E1', settled: true })];
  assert.deepEqual(matchEntries(lines, [returned({ endToEndId: 'OTHER' })]).matches, []);
  assert.deepEqual(matchEntries(lines, [returned({ instructionId: 'I-OTHER' })]).matches, []);
  assert.deepEqual(matchEntries(lines, [returned({ direction: 'debit', endToEndId: 'E1' })]).matches, []);
  assert.deepEqual(
    matchEntries([line({ instructionId: 'I1', settled: true })], [returned({ instructionId: 'I1' })]).matches,
    [{ line: 0, entry: 0, rule: 'return', by: 'instruction-id' }],
  );
});

test('a line already returned: the same return again is matched to it, another return never is', () => {
  const lines = [
    line({ endToEndId: 'E1', returned: { bankRef: 'RET-1' } }),
    line({ endToEndId: 'E2', settled: true, executionDate: '2026-11-21' }),
  ];
  // The same entry (its bank reference) again: the line it already returned, not the other one.
  assert.deepEqual(matchEntries(lines, [returned({ bankRef: 'RET-1' })]).matches, [
    { line: 0, entry: 0, rule: 'return', by: 'amount-counterparty' },
  ]);
  // Another return: the line not yet returned.
  assert.deepEqual(matchEntries(lines, [returned({ bankRef: 'RET-2' })]).matches, [
    { line: 1, entry: 0, rule: 'return', by: 'amount-counterparty' },
  ]);
  // Without a bank reference the returned line cannot be told from the other: nothing matched.
  assert.deepEqual(matchEntries(lines, [returned()]).matches, []);
  // Two returns in one statement for two equal payments: which is which cannot be told, both ambiguous.
  const two = matchEntries([line({ settled: true }), line({ settled: true })], [returned(), returned()]);
  assert.deepEqual(two.matches, []);
  assert.deepEqual(two.unmatchedEntries, [0, 1]);
});
