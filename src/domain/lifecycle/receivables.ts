import { tableTransition } from './transition.ts';

/**
 * Receivables (DESIGN.md, "Receivables, returns and exceptions"): what a company expects to receive
 * and the credits its statements bring. Both statuses follow from the matched amount (and, for an
 * expected payment, its window) through expectedStatusOf / incomingStatusOf; the table below says
 * which moves those may make, and the writers ask it before they persist.
 *
 *   unreconciled          nothing matched yet, window open
 *   partially-reconciled  some matched, less than the amount (the least of a range)
 *   reconciled            the amount matched (within a range: at least its least, never over its most)
 *   overdue               the window passed with an open amount (a late match still moves it on)
 *   archived              put away by a person: final, takes no match
 */
export const EXPECTED_PAYMENT_STATUSES = [
  'unreconciled',
  'partially-reconciled',
  'reconciled',
  'overdue',
  'archived',
] as const;
export type ExpectedPaymentStatus = (typeof EXPECTED_PAYMENT_STATUSES)[number];
export const expectedPaymentTransition = tableTransition<ExpectedPaymentStatus>(
  {
    unreconciled: ['partially-reconciled', 'reconciled', 'overdue', 'archived'],
    'partially-reconciled': ['unreconciled', 'reconciled', 'overdue', 'archived'],
    reconciled: ['unreconciled', 'partially-reconciled', 'overdue', 'archived'],
    // Back to unreconciled only when a person moves the window on (PATCH, nothing matched yet).
    overdue: ['unreconciled', 'partially-reconciled', 'reconciled', 'archived'],
    archived: [],
  },
  'expected payment',
);

/**
 * An expected payment's status from what matched it: `matched` and the amounts are minor units,
 * `today` and `dateTo` YYYY-MM-DD. Archived stays archived (the caller never asks for it then).
 */
export function expectedStatusOf(
  e: { matchedMinor: bigint; amountMinMinor: bigint; dateTo: string; settled: boolean },
  today: string,
): ExpectedPaymentStatus {
  if (e.settled || e.matchedMinor >= e.amountMinMinor) return 'reconciled';
  if (today > e.dateTo) return 'overdue';
  return e.matchedMinor > 0n ? 'partially-reconciled' : 'unreconciled';
}

/** Incoming payments: matched in part or whole; `returned` when the bank reversed the credit (final). */
export const INCOMING_PAYMENT_STATUSES = ['unmatched', 'partially-matched', 'matched', 'returned'] as const;
export type IncomingPaymentStatus = (typeof INCOMING_PAYMENT_STATUSES)[number];
export const incomingPaymentTransition = tableTransition<IncomingPaymentStatus>(
  {
    unmatched: ['partially-matched', 'matched', 'returned'],
    'partially-matched': ['unmatched', 'matched', 'returned'],
    matched: ['unmatched', 'partially-matched', 'returned'],
    returned: [],
  },
  'incoming payment',
);

export function incomingStatusOf(p: { matchedMinor: bigint; amountMinor: bigint }): IncomingPaymentStatus {
  if (p.matchedMinor >= p.amountMinor) return 'matched';
  return p.matchedMinor > 0n ? 'partially-matched' : 'unmatched';
}
