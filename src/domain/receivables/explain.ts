import { comparableReference } from '../references/creditor-reference.ts';
import {
  daysOutside,
  type ExpectedCandidate,
  type IncomingCredit,
  type MatchSettings,
  remittanceKeys,
  toleranceMinor,
} from './matcher.ts';

/**
 * Why a candidate did not match (the exceptions queue, DESIGN.md): the amount and date deltas and
 * whether the reference agrees, with each rule's failing condition in words. Pure; the same
 * conditions as matcher.ts, read one pair at a time.
 */
export type Explained = {
  amountDeltaMinor: bigint;
  daysDelta: number;
  referenceMatch: boolean;
  why: string[];
};

/** `side`: what `p` is, a credit (an incoming payment) or a statement debit (docs/adr/0077), for the words. */
export function explainPair(
  p: IncomingCredit,
  e: ExpectedCandidate,
  settings: MatchSettings,
  side: 'credit' | 'debit' = 'credit',
): Explained {
  const openCredit = p.amountMinor - p.matchedMinor;
  const need = e.amountMinMinor > e.matchedMinor ? e.amountMinMinor - e.matchedMinor : 0n;
  const delta = openCredit - need;
  const days = daysOutside(p.bookingDate, e.dateFrom, e.dateTo);
  const ref = e.referenceValue === null ? null : comparableReference(e.referenceValue);
  const invoice = e.remittanceContains === null ? null : comparableReference(e.remittanceContains);
  const keys = new Set(remittanceKeys(p.remittance));
  const referenceMatch =
    ref !== null &&
    ((p.reference !== null && comparableReference(p.reference) === ref) ||
      (p.endToEndId !== null && comparableReference(p.endToEndId) === ref) ||
      keys.has(ref));
  const why: string[] = [];
  if (p.currency !== e.currency) why.push(`currency ${p.currency}, expected ${e.currency}`);
  if (ref === null) why.push('the expected payment has no reference');
  else if (!referenceMatch) why.push(`reference ${e.referenceValue} is not on the ${side}`);
  if (
    invoice !== null &&
    !keys.has(invoice) &&
    (p.endToEndId === null || comparableReference(p.endToEndId) !== invoice)
  )
    why.push(`"${e.remittanceContains}" is not in the remittance`);
  const account =
    e.counterpartyIban ?? (e.counterpartyOther === null ? null : comparableReference(e.counterpartyOther));
  if (account === null) why.push('no counterparty account to compare');
  else if (p.counterpartyIban === null || comparableReference(p.counterpartyIban) !== account)
    why.push(`counterparty account ${p.counterpartyIban ?? 'absent'}, expected ${account}`);
  if (delta !== 0n) {
    const tolerance = toleranceMinor(settings, e.currency, need);
    why.push(`amount differs by ${delta > 0n ? '+' : ''}${delta} minor units (tolerance ${tolerance})`);
  }
  if (Math.abs(days) > settings.windowDays)
    why.push(`booked ${Math.abs(days)} days outside the window (allowed ${settings.windowDays})`);
  if (e.matchedMinor >= e.amountMaxMinor) why.push('the expected payment is fully matched');
  return { amountDeltaMinor: delta, daysDelta: days, referenceMatch, why };
}

/** At most `n` candidates, nearest first: reference agreeing, then smaller amount delta, then date delta. */
export function nearest<T extends { explained: Explained }>(list: T[], n: number): T[] {
  const abs = (x: bigint) => (x < 0n ? -x : x);
  return [...list]
    .sort((a, b) => {
      if (a.explained.referenceMatch !== b.explained.referenceMatch) return a.explained.referenceMatch ? -1 : 1;
      const da = abs(a.explained.amountDeltaMinor);
      const db = abs(b.explained.amountDeltaMinor);
      if (da !== db) return da < db ? -1 : 1;
      return Math.abs(a.explained.daysDelta) - Math.abs(b.explained.daysDelta);
    })
    .slice(0, n);
}
