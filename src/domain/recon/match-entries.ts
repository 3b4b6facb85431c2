import type { Ambiguity, MatchRule, ReconEntry, ReconLine, ReconMatch, ReconResult, ReturnMatchedBy } from './types.ts';

/**
 * One-to-one matching of statement entries to outbound payment lines (issue 6, Reconciliation):
 *   1. identifiers: end-to-end id for every entry first, then instruction id for what is still open,
 *      so an identifier match is never taken away by a weaker rule;
 *   2. for what is left: message id (or payment-information id) with amount and currency, then
 *      amount, currency and creditor IBAN, both within a booking-date window around execution;
 *   3. batch bookings without transaction details: the block's open lines whose sum is the entry;
 *   4. returns that name no identifier at all (docs/adr/0070): the line paid to the return's
 *      counterparty account with its amount (booked or instructed) and currency, executed at most
 *      RETURN_WINDOW_DAYS before the return was booked.
 * A rule that finds more than one candidate matches nothing: the lines stay pending with a reason.
 * Returns (credits that undo a booking of ours: a reversal, a return reason, MT940 RD) are matched as
 * rule `return`, by an identifier when they carry one (and only by it), else by rule 4. A reversal that
 * debits the account undoes a credit, never one of our payments, and is matched to nothing.
 * Linear in lines + entries: every rule is a hash lookup, and the indexes of the later rules cover
 * only the lines the earlier ones left open, built on first use.
 */
const NOT_PROVIDED = 'NOTPROVIDED';
const DAY_MS = 86_400_000;

export type MatchOptions = { daysBefore?: number; daysAfter?: number; returnWindowDays?: number };

/**
 * How long after a line's execution date a return that names no identifier may still be booked and
 * be taken for it (docs/adr/0070): SEPA returns come within days; two weeks also covers a slow
 * correspondent, and stays shorter than a month, so a monthly payment of the same amount to the same
 * account is not a second candidate.
 */
export const RETURN_WINDOW_DAYS = 14;

/** The booking-date window around a line's execution date that rule 2 allows (days before, after). */
export const BOOKING_WINDOW = { before: 3, after: 10 } as const;

/** A return of one of our payments: an entry that undoes a booking and credits the account. */
export const isReturn = (entry: ReconEntry): boolean => entry.reversal && entry.direction === 'credit';

function usable(id: string | null): id is string {
  return id !== null && id !== '' && id !== NOT_PROVIDED;
}

/** Key -> the line, or the lines when several share the key (the rare case: no array then). */
type Index = Map<string, number | number[]>;

function dayNumber(date: string | null): number | null {
  if (date === null || date.length < 10) return null;
  const t = Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10)));
  return Number.isNaN(t) ? null : t / DAY_MS;
}

const amountKey = (amount: bigint, currency: string) => `${amount}|${currency}`;

function referenceOf(x: { paymentInfoId: string | null; messageId: string | null }): string | null {
  return usable(x.paymentInfoId) ? x.paymentInfoId : usable(x.messageId) ? x.messageId : null;
}

export function matchEntries(
  lines: readonly ReconLine[],
  entries: readonly ReconEntry[],
  options: MatchOptions = {},
): ReconResult {
  const daysBefore = options.daysBefore ?? BOOKING_WINDOW.before;
  const daysAfter = options.daysAfter ?? BOOKING_WINDOW.after;
  const returnWindowDays = options.returnWindowDays ?? RETURN_WINDOW_DAYS;
  const lineTaken = new Uint8Array(lines.length);
  // A reversal undoes a booking, so it may name a line that a booking already took; once each.
  const lineReversed = new Uint8Array(lines.length);
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.settled) lineTaken[i] = 1;
    // Already returned: only rule 4 looks at it, for the same return seen again.
    if (lines[i]!.returned) lineTaken[i] = lineReversed[i] = 1;
  }
  // 0 open, 1 matched, 2 ambiguous (seen: no weaker rule may take it either).
  const entryState = new Uint8Array(entries.length);
  const matches: ReconMatch[] = [];
  const ambiguous: Ambiguity[] = [];

  /** An index over the lines still open, or over every line (identifiers: reversals need them all). */
  const indexLines = (key: (line: ReconLine) => string | null, openOnly = true): Index => {
    const map: Index = new Map();
    for (let i = 0; i < lines.length; i++) {
      if (openOnly && lineTaken[i]) continue;
      const k = key(lines[i]!);
      if (k === null) continue;
      const found = map.get(k);
      if (found === undefined) map.set(k, i);
      else if (typeof found === 'number') map.set(k, [found, i]);
      else found.push(i);
    }
    return map;
  };

  const NONE: number[] = [];
  /** Open lines among `candidates` in the entry's currency (and with its amount, when asked). */
  const open = (candidates: number | number[] | undefined, entry: ReconEntry, sameAmount: boolean): number[] => {
    if (candidates === undefined) return NONE;
    const taken = entry.reversal ? lineReversed : lineTaken;
    const fits = (i: number) => {
      const line = lines[i]!;
      return !taken[i] && line.currency === entry.currency && (!sameAmount || line.amountMinor === entry.amountMinor);
    };
    if (typeof candidates === 'number') return fits(candidates) ? [candidates] : NONE;
    return candidates.filter(fits);
  };

  const inWindow = (line: ReconLine, entry: ReconEntry): boolean => {
    const booked = dayNumber(entry.bookingDate);
    const planned = dayNumber(line.executionDate);
    if (booked === null || planned === null) return true;
    return booked >= planned - daysBefore && booked <= planned + daysAfter;
  };

  const settle = (found: number[], e: number, rule: MatchRule, what: string, by?: ReturnMatchedBy): void => {
    if (found.length === 1) {
      (rule === 'return' ? lineReversed : lineTaken)[found[0]!] = 1;
      entryState[e] = 1;
      matches.push(by === undefined ? { line: found[0]!, entry: e, rule } : { line: found[0]!, entry: e, rule, by });
    } else if (found.length > 1) {
      entryState[e] = 2;
      for (const line of found)
        ambiguous.push({ line, entry: e, reason: `${found.length} outbound lines share ${what}` });
    }
  };

  const identifies = (entry: ReconEntry) =>
    !entry.batchWithoutDetails && (entry.reversal ? isReturn(entry) : entry.direction === 'debit');

  // Pass 1a: end-to-end ids.
  const byE2e = indexLines((l) => (usable(l.endToEndId) ? l.endToEndId : null), false);
  for (let e = 0; e < entries.length; e++) {
    const entry = entries[e]!;
    if (!identifies(entry) || !usable(entry.endToEndId)) continue;
    const what = `end-to-end id ${entry.endToEndId}`;
    if (entry.reversal) settle(open(byE2e.get(entry.endToEndId), entry, false), e, 'return', what, 'end-to-end-id');
    else settle(open(byE2e.get(entry.endToEndId), entry, false), e, 'end-to-end-id', what);
  }

  // Pass 1b: instruction ids, for entries still open: bookings look among open lines only, reversals
  // among all lines (what they undo was taken).
  let byInstrOpen: Index | undefined;
  let byInstrAll: Index | undefined;
  const instructionIdOf = (l: ReconLine) => (usable(l.instructionId) ? l.instructionId : null);
  for (let e = 0; e < entries.length; e++) {
    const entry = entries[e]!;
    if (entryState[e] || !identifies(entry) || !usable(entry.instructionId)) continue;
    if (entry.reversal) byInstrAll ??= indexLines(instructionIdOf, false);
    else byInstrOpen ??= indexLines(instructionIdOf);
    const byInstr = (entry.reversal ? byInstrAll : byInstrOpen)!;
    const found = open(byInstr.get(entry.instructionId), entry, false);
    const what = `instruction id ${entry.instructionId}`;
    if (entry.reversal) settle(found, e, 'return', what, 'instruction-id');
    else settle(found, e, 'instruction-id', what);
  }

  // Pass 2: references with amounts, and batch totals, for what is left.
  let byReferenceAmount: Index | undefined;
  let byIbanAmount: Index | undefined;
  let byBlock: Index | undefined;
  for (let e = 0; e < entries.length; e++) {
    const entry = entries[e]!;
    if (entryState[e] || entry.direction !== 'debit' || entry.reversal) continue;
    const windowed = (found: number[]) => found.filter((i) => inWindow(lines[i]!, entry));

    if (entry.batchWithoutDetails) {
      if (!usable(entry.paymentInfoId)) continue;
      byBlock ??= indexLines((l) => (usable(l.paymentInfoId) ? l.paymentInfoId : null));
      const block = windowed(open(byBlock.get(entry.paymentInfoId), entry, false));
      let sum = 0n;
      for (const i of block) sum += lines[i]!.amountMinor;
      if (block.length > 0 && sum === entry.amountMinor) {
        entryState[e] = 1;
        for (const i of block) {
          lineTaken[i] = 1;
          matches.push({ line: i, entry: e, rule: 'batch-total' });
        }
      }
      continue;
    }

    const ref = referenceOf(entry);
    if (ref !== null) {
      byReferenceAmount ??= indexLines((l) => {
        const own = referenceOf(l);
        return own === null ? null : `${own}|${amountKey(l.amountMinor, l.currency)}`;
      });
      const key = `${ref}|${amountKey(entry.amountMinor, entry.currency)}`;
      settle(
        windowed(open(byReferenceAmount.get(key), entry, true)),
        e,
        'message-id-amount',
        `reference ${ref} and amount`,
      );
      if (entryState[e]) continue;
    }
    if (entry.counterpartyIban) {
      byIbanAmount ??= indexLines((l) =>
        l.creditorIban ? `${l.creditorIban}|${amountKey(l.amountMinor, l.currency)}` : null,
      );
      const key = `${entry.counterpartyIban}|${amountKey(entry.amountMinor, entry.currency)}`;
      settle(windowed(open(byIbanAmount.get(key), entry, true)), e, 'amount-counterparty', 'amount and creditor IBAN');
    }
  }

  // Pass 3: returns that name no identifier, by amount (booked or instructed), currency and the
  // counterparty account the line paid, within the return window; every line is a candidate (what
  // is returned was booked), a line already returned only for that same return (its bank reference).
  let byIbanAll: Index | undefined;
  for (let e = 0; e < entries.length; e++) {
    const entry = entries[e]!;
    if (entryState[e] || !isReturn(entry) || entry.batchWithoutDetails || !entry.counterpartyIban) continue;
    if (usable(entry.endToEndId) || usable(entry.instructionId)) continue;
    const booked = dayNumber(entry.bookingDate);
    if (booked === null) continue;
    byIbanAll ??= indexLines((l) => l.creditorIban, false);
    const candidates = byIbanAll.get(entry.counterpartyIban);
    if (candidates === undefined) continue;
    const fits = (i: number): boolean => {
      const line = lines[i]!;
      if (line.currency !== entry.currency) return false;
      if (line.amountMinor !== entry.amountMinor && line.amountMinor !== entry.originalAmountMinor) return false;
      const planned = dayNumber(line.executionDate);
      return planned !== null && booked >= planned && booked <= planned + returnWindowDays;
    };
    const all = (typeof candidates === 'number' ? [candidates] : candidates).filter(fits);
    // A line already returned fits only the same return again, known by its bank reference; without
    // one on either side it cannot be told apart, so it stays a candidate (and two make it ambiguous).
    const again = all.filter((i) => {
      const ref = lines[i]!.returned?.bankRef;
      return ref !== undefined && ref !== null && ref === entry.bankRef;
    });
    const unknown = (i: number) => lines[i]!.returned !== undefined && (!entry.bankRef || !lines[i]!.returned!.bankRef);
    const found = again.length > 0 ? again : all.filter((i) => !lineReversed[i] || unknown(i));
    settle(found, e, 'return', 'amount and counterparty account', 'amount-counterparty');
  }

  const unmatchedEntries: number[] = [];
  for (let e = 0; e < entries.length; e++) if (entryState[e] !== 1) unmatchedEntries.push(e);
  return { matches, ambiguous, unmatchedEntries };
}
