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
  const m = new Matcher(lines, entries, options);
  m.byEndToEndId();
  m.byInstructionId();
  m.byReferenceOrAccount();
  m.returnsByAccount();
  const unmatchedEntries: number[] = [];
  for (let e = 0; e < entries.length; e++) if (m.entryState[e] !== 1) unmatchedEntries.push(e);
  return { matches: m.matches, ambiguous: m.ambiguous, unmatchedEntries };
}

const NONE: number[] = [];

/** One matching run: which lines and entries are taken, what matched, and the indexes built so far. */
class Matcher {
  readonly lines: readonly ReconLine[];
  readonly entries: readonly ReconEntry[];
  readonly daysBefore: number;
  readonly daysAfter: number;
  readonly returnWindowDays: number;
  readonly lineTaken: Uint8Array;
  // A reversal undoes a booking, so it may name a line that a booking already took; once each.
  readonly lineReversed: Uint8Array;
  // 0 open, 1 matched, 2 ambiguous (seen: no weaker rule may take it either).
  readonly entryState: Uint8Array;
  readonly matches: ReconMatch[] = [];
  readonly ambiguous: Ambiguity[] = [];
  byReferenceAmount: Index | undefined = undefined;
  byIbanAmount: Index | undefined = undefined;
  byBlock: Index | undefined = undefined;

  constructor(lines: readonly ReconLine[], entries: readonly ReconEntry[], options: MatchOptions) {
    this.lines = lines;
    this.entries = entries;
    this.daysBefore = options.daysBefore ?? BOOKING_WINDOW.before;
    this.daysAfter = options.daysAfter ?? BOOKING_WINDOW.after;
    this.returnWindowDays = options.returnWindowDays ?? RETURN_WINDOW_DAYS;
    this.lineTaken = new Uint8Array(lines.length);
    this.lineReversed = new Uint8Array(lines.length);
    for (let i = 0; i < lines.length; i++) {
      if (lines[i]!.settled) this.lineTaken[i] = 1;
      // Already returned: only rule 4 looks at it, for the same return seen again.
      if (lines[i]!.returned) this.lineTaken[i] = this.lineReversed[i] = 1;
    }
    this.entryState = new Uint8Array(entries.length);
  }

  /** An index over the lines still open, or over every line (identifiers: reversals need them all). */
  indexLines(key: (line: ReconLine) => string | null, openOnly = true): Index {
    const map: Index = new Map();
    const { lines, lineTaken } = this;
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
  }

  /** Open lines among `candidates` in the entry's currency (and with its amount, when asked). */
  open(candidates: number | number[] | undefined, entry: ReconEntry, sameAmount: boolean): number[] {
    if (candidates === undefined) return NONE;
    const lines = this.lines;
    const taken = entry.reversal ? this.lineReversed : this.lineTaken;
    const fits = (i: number) => {
      const line = lines[i]!;
      return !taken[i] && line.currency === entry.currency && (!sameAmount || line.amountMinor === entry.amountMinor);
    };
    if (typeof candidates === 'number') return fits(candidates) ? [candidates] : NONE;
    return candidates.filter(fits);
  }

  /** The lines of `found` executed within the booking-date window around the entry. */
  windowed(found: number[], entry: ReconEntry): number[] {
    const booked = dayNumber(entry.bookingDate);
    return found.filter((i) => {
      const planned = dayNumber(this.lines[i]!.executionDate);
      if (booked === null || planned === null) return true;
      return booked >= planned - this.daysBefore && booked <= planned + this.daysAfter;
    });
  }

  /** One candidate: a match; several: the entry is ambiguous and each candidate says why; none: nothing. */
  settle(found: number[], e: number, rule: MatchRule, what: string, by?: ReturnMatchedBy): void {
    if (found.length === 1) {
      (rule === 'return' ? this.lineReversed : this.lineTaken)[found[0]!] = 1;
      this.entryState[e] = 1;
      this.matches.push(
        by === undefined ? { line: found[0]!, entry: e, rule } : { line: found[0]!, entry: e, rule, by },
      );
    } else if (found.length > 1) {
      this.entryState[e] = 2;
      for (const line of found)
        this.ambiguous.push({ line, entry: e, reason: `${found.length} outbound lines share ${what}` });
    }
  }

  /** Pass 1a: end-to-end ids. */
  byEndToEndId(): void {
    const entries = this.entries;
    const byE2e = this.indexLines((l) => (usable(l.endToEndId) ? l.endToEndId : null), false);
    for (let e = 0; e < entries.length; e++) {
      const entry = entries[e]!;
      if (!identifies(entry) || !usable(entry.endToEndId)) continue;
      const what = `end-to-end id ${entry.endToEndId}`;
      const found = this.open(byE2e.get(entry.endToEndId), entry, false);
      if (entry.reversal) this.settle(found, e, 'return', what, 'end-to-end-id');
      else this.settle(found, e, 'end-to-end-id', what);
    }
  }

  /**
   * Pass 1b: instruction ids, for entries still open: bookings look among open lines only, reversals
   * among all lines (what they undo was taken).
   */
  byInstructionId(): void {
    const entries = this.entries;
    let byInstrOpen: Index | undefined;
    let byInstrAll: Index | undefined;
    const instructionIdOf = (l: ReconLine) => (usable(l.instructionId) ? l.instructionId : null);
    for (let e = 0; e < entries.length; e++) {
      const entry = entries[e]!;
      if (this.entryState[e] || !identifies(entry) || !usable(entry.instructionId)) continue;
      if (entry.reversal) byInstrAll ??= this.indexLines(instructionIdOf, false);
      else byInstrOpen ??= this.indexLines(instructionIdOf);
      const byInstr = (entry.reversal ? byInstrAll : byInstrOpen)!;
      const found = this.open(byInstr.get(entry.instructionId), entry, false);
      const what = `instruction id ${entry.instructionId}`;
      if (entry.reversal) this.settle(found, e, 'return', what, 'instruction-id');
      else this.settle(found, e, 'instruction-id', what);
    }
  }

  /** Pass 2: references with amounts, and batch totals, for the debits that are left. */
  byReferenceOrAccount(): void {
    const entries = this.entries;
    for (let e = 0; e < entries.length; e++) {
      const entry = entries[e]!;
      if (this.entryState[e] || entry.direction !== 'debit' || entry.reversal) continue;
      if (entry.batchWithoutDetails) {
        this.batchTotal(entry, e);
        continue;
      }
      const ref = referenceOf(entry);
      if (ref !== null) {
        this.byReferenceAmount ??= this.indexLines((l) => {
          const own = referenceOf(l);
          return own === null ? null : `${own}|${amountKey(l.amountMinor, l.currency)}`;
        });
        const key = `${ref}|${amountKey(entry.amountMinor, entry.currency)}`;
        const found = this.windowed(this.open(this.byReferenceAmount.get(key), entry, true), entry);
        this.settle(found, e, 'message-id-amount', `reference ${ref} and amount`);
        if (this.entryState[e]) continue;
      }
      if (entry.counterpartyIban) {
        this.byIbanAmount ??= this.indexLines((l) =>
          l.creditorIban ? `${l.creditorIban}|${amountKey(l.amountMinor, l.currency)}` : null,
        );
        const key = `${entry.counterpartyIban}|${amountKey(entry.amountMinor, entry.currency)}`;
        const found = this.windowed(this.open(this.byIbanAmount.get(key), entry, true), entry);
        this.settle(found, e, 'amount-counterparty', 'amount and creditor IBAN');
      }
    }
  }

  /** A batch booking without details: the block's open lines in the window, when they add up to the entry. */
  batchTotal(entry: ReconEntry, e: number): void {
    if (!usable(entry.paymentInfoId)) return;
    this.byBlock ??= this.indexLines((l) => (usable(l.paymentInfoId) ? l.paymentInfoId : null));
    const block = this.windowed(this.open(this.byBlock.get(entry.paymentInfoId), entry, false), entry);
    let sum = 0n;
    for (const i of block) sum += this.lines[i]!.amountMinor;
    if (block.length === 0 || sum !== entry.amountMinor) return;
    this.entryState[e] = 1;
    for (const i of block) {
      this.lineTaken[i] = 1;
      this.matches.push({ line: i, entry: e, rule: 'batch-total' });
    }
  }

  /**
   * Pass 3: returns that name no identifier, by amount (booked or instructed), currency and the
   * counterparty account the line paid, within the return window; every line is a candidate (what
   * is returned was booked), a line already returned only for that same return (its bank reference).
   */
  returnsByAccount(): void {
    const entries = this.entries;
    let byIbanAll: Index | undefined;
    for (let e = 0; e < entries.length; e++) {
      const entry = entries[e]!;
      if (this.entryState[e] || !isReturn(entry) || entry.batchWithoutDetails || !entry.counterpartyIban) continue;
      if (usable(entry.endToEndId) || usable(entry.instructionId)) continue;
      const booked = dayNumber(entry.bookingDate);
      if (booked === null) continue;
      byIbanAll ??= this.indexLines((l) => l.creditorIban, false);
      const candidates = byIbanAll.get(entry.counterpartyIban);
      if (candidates === undefined) continue;
      const found = this.returnCandidates(candidates, entry, booked);
      this.settle(found, e, 'return', 'amount and counterparty account', 'amount-counterparty');
    }
  }

  /** The candidates for a return booked on day `booked`, a line already returned only for the same return. */
  returnCandidates(candidates: number | number[], entry: ReconEntry, booked: number): number[] {
    const lines = this.lines;
    const fits = (i: number): boolean => {
      const line = lines[i]!;
      if (line.currency !== entry.currency) return false;
      if (line.amountMinor !== entry.amountMinor && line.amountMinor !== entry.originalAmountMinor) return false;
      const planned = dayNumber(line.executionDate);
      return planned !== null && booked >= planned && booked <= planned + this.returnWindowDays;
    };
    const all = (typeof candidates === 'number' ? [candidates] : candidates).filter(fits);
    // A line already returned fits only the same return again, known by its bank reference; without
    // one on either side it cannot be told apart, so it stays a candidate (and two make it ambiguous).
    const again = all.filter((i) => {
      const ref = lines[i]!.returned?.bankRef;
      return ref !== undefined && ref !== null && ref === entry.bankRef;
    });
    const unknown = (i: number) => lines[i]!.returned !== undefined && (!entry.bankRef || !lines[i]!.returned!.bankRef);
    return again.length > 0 ? again : all.filter((i) => !this.lineReversed[i] || unknown(i));
  }
}

/** Entries an identifier may match: a booking that debits us, or a return of one of our payments. */
function identifies(entry: ReconEntry): boolean {
  return !entry.batchWithoutDetails && (entry.reversal ? isReturn(entry) : entry.direction === 'debit');
}
