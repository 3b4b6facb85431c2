import { currencyExponent } from '../money/currencies.ts';
import { type Decimal, decimalToMinor, parsePlainDecimal } from '../money/decimal.ts';
import { comparableReference } from '../references/creditor-reference.ts';

/**
 * Receivables matching (DESIGN.md, "Receivables, returns and exceptions"; docs/adr/0069): incoming
 * credits against a company's open expected payments, by evidence, in this fixed order; the first rule
 * that finds a candidate set decides, and a set of more than one is ambiguous: nothing is matched and
 * the credit goes to review.
 *
 *   1 structured-reference  the credit's structured reference is an expected payment's reference; or
 *                           its remittance names the references of several expected payments whose
 *                           open amounts add up to the credit exactly (1:N)
 *   2 end-to-end-id         the credit's end-to-end id is an expected payment's reference or invoice number
 *   3 amount-counterparty   the open amount exactly, from the expected counterparty's account, booked
 *                           within the window (dateFrom - windowDays .. dateTo + windowDays)
 *   4 tolerance-remittance  the open amount within the company's tolerance, with the expected payment's
 *                           reference or invoice number found in the remittance text, within the window
 *
 * Nothing matches on a bare amount. A credit matched by reference or end-to-end id for less than the
 * open amount is a partial payment (N:1: later credits settle the rest); one for more settles the
 * expected payment and keeps the rest open. Amounts are exact minor units (bigint), never floats.
 * Pure: the caller loads the candidates and persists the answer.
 */
export type MatchRule = 'structured-reference' | 'end-to-end-id' | 'amount-counterparty' | 'tolerance-remittance';

export type ExpectedCandidate = {
  id: string;
  currency: string;
  amountMinMinor: bigint;
  amountMaxMinor: bigint;
  matchedMinor: bigint;
  /** YYYY-MM-DD */
  dateFrom: string;
  dateTo: string;
  counterpartyIban: string | null;
  counterpartyOther: string | null;
  /** Normalised (creditor-reference.ts). */
  referenceValue: string | null;
  /** An invoice number or text the remittance should carry. */
  remittanceContains: string | null;
};

export type IncomingCredit = {
  id: string;
  currency: string;
  amountMinor: bigint;
  matchedMinor: bigint;
  bookingDate: string | null;
  endToEndId: string | null;
  reference: string | null;
  counterpartyIban: string | null;
  remittance: string | null;
};

export type MatchSettings = {
  /** Decimal string in the currency's units ("0.50"). */
  toleranceAmount: string;
  /** Decimal string, percent of the open amount ("1.5"). */
  tolerancePercent: string;
  windowDays: number;
};

export const DEFAULT_SETTINGS: MatchSettings = { toleranceAmount: '0', tolerancePercent: '0', windowDays: 5 };

export type Match = {
  incoming: number;
  expected: number;
  rule: MatchRule;
  amountMinor: bigint;
  /** The credit's open amount less the expected payment's open amount (the least of a range). */
  amountDeltaMinor: bigint;
  /** Days outside the window (negative: before dateFrom), 0 inside or without a booking date. */
  daysDelta: number;
  /** A tolerance match that settles the expected payment below its amount. */
  settles: boolean;
};

export type Ambiguous = { incoming: number; rule: MatchRule; candidates: number[] };

export type MatchOutcome = { matches: Match[]; ambiguous: Ambiguous[]; unmatched: number[] };

const DAY_MS = 86_400_000;
/** Day numbers of YYYY-MM-DD dates, remembered: a statement's and a window's dates repeat. */
const dayNumbers = new Map<string, number>();
function dayNumber(date: string): number {
  let n = dayNumbers.get(date);
  if (n === undefined) {
    n = Math.floor(Date.parse(`${date}T00:00:00Z`) / DAY_MS);
    if (dayNumbers.size > 100_000) dayNumbers.clear();
    dayNumbers.set(date, n);
  }
  return n;
}

/** Days the booking lies outside [from, to]: 0 inside, negative before, positive after. */
export function daysOutside(booking: string | null, from: string, to: string): number {
  if (booking === null) return 0;
  const b = dayNumber(booking);
  const f = dayNumber(from);
  const t = dayNumber(to);
  return b < f ? b - f : b > t ? b - t : 0;
}

/** The tolerance for an open amount: the larger of the absolute amount and the percentage (either suffices). */
export function toleranceMinor(settings: MatchSettings, currency: string, openMinor: bigint): bigint {
  const exponent = currencyExponent(currency) ?? 2;
  const absolute = decimalToMinor(settings.toleranceAmount, exponent) ?? 0n;
  const percent: Decimal = parsePlainDecimal(settings.tolerancePercent) ?? { units: 0n, scale: 0 };
  // open × percent / 100, rounded down to whole minor units (exact: bigint arithmetic).
  const relative = (openMinor * percent.units) / (100n * 10n ** BigInt(percent.scale));
  return absolute > relative ? absolute : relative;
}

/**
 * The letter and digit runs of a remittance text, upper case, into `out` (emptied first): the tokens
 * `remittanceKeys` joins. A scan of char codes, no regular expression or intermediate arrays: the
 * matcher runs it for every credit that reaches rule 4.
 */
export function remittanceTokens(text: string, out: string[]): string[] {
  out.length = 0;
  const upper = text.toUpperCase();
  let start = -1;
  for (let i = 0; i <= upper.length; i++) {
    const c = i < upper.length ? upper.charCodeAt(i) : 0;
    const word = (c >= 48 && c <= 57) || (c >= 65 && c <= 90);
    if (word && start < 0) start = i;
    else if (!word && start >= 0) {
      out.push(upper.slice(start, i));
      start = -1;
    }
  }
  return out;
}

/** Neighbouring tokens joined into one key, at most this many (a reference printed in groups). */
export const REMITTANCE_JOIN = 6;

/** Tokens of a remittance text and their joins of up to 6 neighbours (a reference printed in groups). */
export function remittanceKeys(text: string | null): string[] {
  if (text === null || text === '') return [];
  const tokens = remittanceTokens(text, []);
  const keys = new Set<string>();
  for (let i = 0; i < tokens.length; i++) {
    let joined = '';
    for (let j = i; j < tokens.length && j < i + REMITTANCE_JOIN; j++) {
      joined += tokens[j];
      if (joined.length >= 3) keys.add(joined);
    }
  }
  return [...keys];
}

/** A key's expected payments: one index, or several (most keys name one: no array then). */
type Slot = number | number[];

function addTo(map: Map<string, Slot>, key: string | null, i: number): void {
  if (key === null || key === '') return;
  const slot = map.get(key);
  if (slot === undefined) map.set(key, i);
  else if (typeof slot === 'number') map.set(key, [slot, i]);
  else slot.push(i);
}

/** Indexes of the open expected payments by reference and by invoice number, and by counterparty account. */
export class ExpectedIndex {
  readonly byReference = new Map<string, Slot>();
  readonly byInvoice = new Map<string, Slot>();
  readonly byAccount = new Map<string, Slot>();
  /** The longest reference or invoice key: a remittance join longer than it names nothing. */
  maxNameLength = 0;
  constructor(expected: readonly ExpectedCandidate[]) {
    for (let i = 0; i < expected.length; i++) {
      const e = expected[i]!;
      const ref = e.referenceValue === null ? null : comparableReference(e.referenceValue);
      const invoice = e.remittanceContains === null ? null : comparableReference(e.remittanceContains);
      addTo(this.byReference, ref, i);
      addTo(this.byInvoice, invoice, i);
      if (ref !== null && ref.length > this.maxNameLength) this.maxNameLength = ref.length;
      if (invoice !== null && invoice.length > this.maxNameLength) this.maxNameLength = invoice.length;
      addTo(this.byAccount, e.counterpartyIban, i);
      if (e.counterpartyOther !== null) addTo(this.byAccount, comparableReference(e.counterpartyOther), i);
    }
  }
}

/**
 * Matches `incoming` (in the order given: booking order) against `expected`; `matchedMinor` on both
 * sides is what earlier matches took. Every match's amount fits both sides' open amounts.
 */
export function matchReceivables(
  incoming: readonly IncomingCredit[],
  expected: readonly ExpectedCandidate[],
  settings: MatchSettings = DEFAULT_SETTINGS,
  index: ExpectedIndex = new ExpectedIndex(expected),
): MatchOutcome {
  const m = new Matcher(incoming, expected, settings, index);
  const out: MatchOutcome = { matches: [], ambiguous: [], unmatched: [] };
  for (let i = 0; i < incoming.length; i++) {
    if (m.incomingOpen[i]! <= 0n) continue;
    const decided = m.matchOne(i);
    if (decided === null) out.unmatched.push(i);
    else if ('candidates' in decided) out.ambiguous.push(decided);
    else {
      for (const x of decided) {
        out.matches.push(x);
        // The usual match takes all of both sides: constants then, not a new bigint each.
        const open = m.incomingOpen[i]!;
        m.incomingOpen[i] = open === x.amountMinor ? 0n : open - x.amountMinor;
        const taken = m.expectedOpen[x.expected]!;
        m.expectedOpen[x.expected] = taken === 0n ? x.amountMinor : taken + x.amountMinor;
        if (x.settles) m.settled[x.expected] = 1;
      }
    }
  }
  return out;
}

/** Candidate tests (no closure per credit: this runs once per credit of a statement). */
const OPEN = 0;
const AMOUNT_COUNTERPARTY = 1;
const NAMED = 2;

class Matcher {
  readonly expectedOpen: bigint[];
  readonly incomingOpen: bigint[];
  /** 1 when a tolerance match settled it below its amount. */
  readonly settled: Uint8Array;
  private readonly fromDay: Int32Array;
  private readonly toDay: Int32Array;
  private readonly buf: number[] = [];
  private readonly tokens: string[] = [];
  private i = 0;
  private p: IncomingCredit | undefined;
  private booking: number | null = null;
  private readonly incoming: readonly IncomingCredit[];
  private readonly expected: readonly ExpectedCandidate[];
  private readonly settings: MatchSettings;
  private readonly index: ExpectedIndex;

  constructor(
    incoming: readonly IncomingCredit[],
    expected: readonly ExpectedCandidate[],
    settings: MatchSettings,
    index: ExpectedIndex,
  ) {
    this.incoming = incoming;
    this.expected = expected;
    this.settings = settings;
    this.index = index;
    this.expectedOpen = expected.map((e) => e.matchedMinor);
    // No new bigint per credit when nothing of it matched yet (the common case: a fresh statement).
    this.incomingOpen = incoming.map((p) => (p.matchedMinor === 0n ? p.amountMinor : p.amountMinor - p.matchedMinor));
    // Typed arrays, filled in one loop: no closure call and no boxed element per expected payment.
    this.settled = new Uint8Array(expected.length);
    this.fromDay = new Int32Array(expected.length);
    this.toDay = new Int32Array(expected.length);
    for (let j = 0; j < expected.length; j++) {
      this.fromDay[j] = dayNumber(expected[j]!.dateFrom);
      this.toDay[j] = dayNumber(expected[j]!.dateTo);
    }
  }

  /** What an expected payment still takes: up to its most (a range's upper bound). */
  private room(j: number): bigint {
    if (this.settled[j]) return 0n;
    // Nothing matched yet: the amount itself, no bigint allocated (this runs per candidate tested).
    const matched = this.expectedOpen[j]!;
    return matched === 0n ? this.expected[j]!.amountMaxMinor : this.expected[j]!.amountMaxMinor - matched;
  }

  /** What it still needs to be reconciled: its least less what matched. */
  private need(j: number): bigint {
    if (this.settled[j]) return 0n;
    const matched = this.expectedOpen[j]!;
    if (matched === 0n) return this.expected[j]!.amountMinMinor;
    const need = this.expected[j]!.amountMinMinor - matched;
    return need > 0n ? need : 0n;
  }

  private days(j: number): number {
    const b = this.booking;
    if (b === null) return 0;
    const f = this.fromDay[j]!;
    const t = this.toDay[j]!;
    return b < f ? b - f : b > t ? b - t : 0;
  }

  private passes(j: number, test: number): boolean {
    if (this.expected[j]!.currency !== this.p!.currency || this.room(j) <= 0n) return false;
    if (test === OPEN) return true;
    if (Math.abs(this.days(j)) > this.settings.windowDays) return false;
    const need = this.need(j);
    if (need <= 0n) return false;
    if (test === NAMED) return true;
    const credit = this.incomingOpen[this.i]!;
    return credit >= need && credit <= this.room(j);
  }

  /** Adds the slot's expected payments that pass `test` to the buffer (once each). */
  private collect(slot: Slot | undefined, test: number): void {
    if (slot === undefined) return;
    if (typeof slot === 'number') {
      if (!this.buf.includes(slot) && this.passes(slot, test)) this.buf.push(slot);
      return;
    }
    for (const j of slot) if (!this.buf.includes(j) && this.passes(j, test)) this.buf.push(j);
  }

  private single(j: number, rule: MatchRule): Match {
    const room = this.room(j);
    const credit = this.incomingOpen[this.i]!;
    const need = this.need(j);
    return {
      incoming: this.i,
      expected: j,
      rule,
      amountMinor: credit < room ? credit : room,
      amountDeltaMinor: credit === need ? 0n : credit - need,
      daysDelta: this.days(j),
      settles: false,
    };
  }

  /** Several candidates settle together only when their open amounts add up to the credit exactly (1:N). */
  private several(rule: MatchRule): Match[] | Ambiguous {
    const sorted = [...this.buf].sort((a, b) => a - b);
    let sum = 0n;
    for (const j of sorted) sum += this.need(j);
    if (sum !== this.incomingOpen[this.i]! || sorted.some((j) => this.need(j) === 0n))
      return { incoming: this.i, rule, candidates: sorted };
    return sorted.map((j) => ({
      incoming: this.i,
      expected: j,
      rule,
      amountMinor: this.need(j),
      amountDeltaMinor: 0n,
      daysDelta: this.days(j),
      settles: false,
    }));
  }

  /** The buffer's candidates decided: none, one, or several (1:N or ambiguous). */
  private decide(rule: MatchRule): Match[] | Ambiguous | null {
    if (this.buf.length === 0) return null;
    if (this.buf.length > 1) return this.several(rule);
    return [this.single(this.buf[0]!, rule)];
  }

  /**
   * Rule 4's candidates: the expected payments whose reference or invoice number is one of the
   * remittance's keys (remittanceKeys: tokens and joins of up to 6 neighbours, at least 3 characters),
   * looked up as they are made, without the set and array of keys. A key met twice is collected once.
   */
  private collectRemittance(text: string): void {
    const tokens = remittanceTokens(text, this.tokens);
    const { byReference, byInvoice, maxNameLength } = this.index;
    const invoices = byInvoice.size > 0;
    for (let a = 0; a < tokens.length; a++) {
      let joined = '';
      for (let b = a; b < tokens.length && b < a + REMITTANCE_JOIN; b++) {
        joined += tokens[b];
        // Longer than every name: so is every longer join from here (no string built, hashed, looked up).
        if (joined.length > maxNameLength) break;
        if (joined.length < 3) continue;
        this.collect(byReference.get(joined), NAMED);
        if (invoices) this.collect(byInvoice.get(joined), NAMED);
      }
    }
  }

  matchOne(i: number): Match[] | Ambiguous | null {
    const p = this.incoming[i]!;
    this.i = i;
    this.p = p;
    this.booking = p.bookingDate === null ? null : dayNumber(p.bookingDate);
    const { index } = this;
    const buf = this.buf;

    // 1. Structured reference (one expected payment: a full or partial payment; several: 1:N, exact sum).
    if (p.reference !== null) {
      buf.length = 0;
      this.collect(index.byReference.get(comparableReference(p.reference)), OPEN);
      const hit = this.decide('structured-reference');
      if (hit !== null) return hit;
    }

    // 2. End-to-end id: the payer quoted the reference or the invoice number as its end-to-end id.
    if (p.endToEndId !== null && p.endToEndId !== 'NOTPROVIDED') {
      const key = comparableReference(p.endToEndId);
      buf.length = 0;
      this.collect(index.byReference.get(key), OPEN);
      this.collect(index.byInvoice.get(key), OPEN);
      const hit = this.decide('end-to-end-id');
      if (hit !== null) return hit;
    }

    // 3. Amount and counterparty account within the window: the open amount exactly (a range: within it).
    if (p.counterpartyIban !== null) {
      buf.length = 0;
      this.collect(index.byAccount.get(comparableReference(p.counterpartyIban)), AMOUNT_COUNTERPARTY);
      const hit = this.decide('amount-counterparty');
      if (hit !== null) return hit;
    }

    // 4. Within tolerance, with the reference or invoice number in the remittance text (several named
    // there: 1:N, their open amounts adding up to the credit exactly).
    if (p.remittance === null || p.remittance === '') return null;
    buf.length = 0;
    this.collectRemittance(p.remittance);
    if (buf.length > 1) return this.several('tolerance-remittance');
    if (buf.length === 0) return null;
    const j = buf[0]!;
    const need = this.need(j);
    const credit = this.incomingOpen[i]!;
    const delta = credit - need;
    if ((delta < 0n ? -delta : delta) > toleranceMinor(this.settings, this.expected[j]!.currency, need)) return null;
    // An underpayment within tolerance settles the expected payment; an overpayment keeps the rest open.
    return [{ ...this.single(j, 'tolerance-remittance'), settles: credit < need }];
  }
}
