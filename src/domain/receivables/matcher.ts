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
const dayNumber = (date: string) => Math.floor(Date.parse(`${date}T00:00:00Z`) / DAY_MS);

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

/** Tokens of a remittance text and their joins of up to 6 neighbours (a reference printed in groups). */
export function remittanceKeys(text: string | null): string[] {
  if (text === null || text === '') return [];
  const tokens = text
    .toUpperCase()
    .split(/[^A-Z0-9]+/)
    .filter((t) => t !== '');
  const keys = new Set<string>();
  for (let i = 0; i < tokens.length; i++) {
    let joined = '';
    for (let j = i; j < tokens.length && j < i + 6; j++) {
      joined += tokens[j];
      if (joined.length >= 3) keys.add(joined);
    }
  }
  return [...keys];
}

type State = { expectedOpen: bigint[]; incomingOpen: bigint[]; settled: boolean[] };

/** What an expected payment still takes: up to its most (a range's upper bound). */
const roomOf = (e: ExpectedCandidate, s: State, i: number) =>
  s.settled[i] ? 0n : e.amountMaxMinor - s.expectedOpen[i]!;
/** What it still needs to be reconciled: its least less what matched. */
const needOf = (e: ExpectedCandidate, s: State, i: number) => {
  const need = e.amountMinMinor - s.expectedOpen[i]!;
  return s.settled[i] ? 0n : need > 0n ? need : 0n;
};

/** Indexes of the open expected payments by reference and by invoice number, and by counterparty account. */
export class ExpectedIndex {
  readonly byReference = new Map<string, number[]>();
  readonly byInvoice = new Map<string, number[]>();
  readonly byAccount = new Map<string, number[]>();
  constructor(expected: readonly ExpectedCandidate[]) {
    const add = (map: Map<string, number[]>, key: string | null, i: number) => {
      if (key === null || key === '') return;
      const list = map.get(key);
      if (list) list.push(i);
      else map.set(key, [i]);
    };
    for (let i = 0; i < expected.length; i++) {
      const e = expected[i]!;
      add(this.byReference, e.referenceValue === null ? null : comparableReference(e.referenceValue), i);
      add(this.byInvoice, e.remittanceContains === null ? null : comparableReference(e.remittanceContains), i);
      add(this.byAccount, e.counterpartyIban ?? null, i);
      if (e.counterpartyOther !== null) add(this.byAccount, comparableReference(e.counterpartyOther), i);
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
  const state: State = {
    expectedOpen: expected.map((e) => e.matchedMinor),
    incomingOpen: incoming.map((p) => p.amountMinor - p.matchedMinor),
    settled: expected.map(() => false),
  };
  const out: MatchOutcome = { matches: [], ambiguous: [], unmatched: [] };
  for (let i = 0; i < incoming.length; i++) {
    const p = incoming[i]!;
    if (state.incomingOpen[i]! <= 0n) continue;
    const decided = matchOne(i, p, expected, index, settings, state);
    if (decided === null) out.unmatched.push(i);
    else if ('candidates' in decided) out.ambiguous.push(decided);
    else {
      for (const m of decided) {
        out.matches.push(m);
        state.incomingOpen[i]! -= m.amountMinor;
        state.expectedOpen[m.expected]! += m.amountMinor;
        if (m.settles) state.settled[m.expected] = true;
      }
    }
  }
  return out;
}

function matchOne(
  i: number,
  p: IncomingCredit,
  expected: readonly ExpectedCandidate[],
  index: ExpectedIndex,
  settings: MatchSettings,
  state: State,
): Match[] | Ambiguous | null {
  const open = (j: number) => expected[j]!.currency === p.currency && roomOf(expected[j]!, state, j) > 0n;
  const single = (j: number, rule: MatchRule): Match => {
    const e = expected[j]!;
    const room = roomOf(e, state, j);
    const credit = state.incomingOpen[i]!;
    return {
      incoming: i,
      expected: j,
      rule,
      amountMinor: credit < room ? credit : room,
      amountDeltaMinor: credit - needOf(e, state, j),
      daysDelta: daysOutside(p.bookingDate, e.dateFrom, e.dateTo),
      settles: false,
    };
  };
  // Several candidates settle together only when their open amounts add up to the credit exactly (1:N).
  const several = (list: number[], rule: MatchRule): Match[] | Ambiguous => {
    const sorted = [...list].sort((a, b) => a - b);
    let sum = 0n;
    for (const j of sorted) sum += needOf(expected[j]!, state, j);
    if (sum !== state.incomingOpen[i]! || sorted.some((j) => needOf(expected[j]!, state, j) === 0n))
      return { incoming: i, rule, candidates: sorted };
    return sorted.map((j) => ({
      incoming: i,
      expected: j,
      rule,
      amountMinor: needOf(expected[j]!, state, j),
      amountDeltaMinor: 0n,
      daysDelta: daysOutside(p.bookingDate, expected[j]!.dateFrom, expected[j]!.dateTo),
      settles: false,
    }));
  };
  const decide = (candidates: number[], rule: MatchRule): Match[] | Ambiguous | null => {
    if (candidates.length === 0) return null;
    if (candidates.length > 1) return several(candidates, rule);
    return [single(candidates[0]!, rule)];
  };

  // 1. Structured reference (one expected payment: a full or partial payment; several: 1:N, exact sum).
  if (p.reference !== null) {
    const hit = decide(
      (index.byReference.get(comparableReference(p.reference)) ?? []).filter(open),
      'structured-reference',
    );
    if (hit !== null) return hit;
  }

  // 2. End-to-end id: the payer quoted the reference or the invoice number as its end-to-end id.
  if (p.endToEndId !== null && p.endToEndId !== 'NOTPROVIDED') {
    const key = comparableReference(p.endToEndId);
    const set = new Set([...(index.byReference.get(key) ?? []), ...(index.byInvoice.get(key) ?? [])]);
    const hit = decide([...set].filter(open), 'end-to-end-id');
    if (hit !== null) return hit;
  }

  const credit = state.incomingOpen[i]!;
  const inWindow = (j: number) => {
    const e = expected[j]!;
    return Math.abs(daysOutside(p.bookingDate, e.dateFrom, e.dateTo)) <= settings.windowDays;
  };
  // 3. Amount and counterparty account within the window: the open amount exactly (a range: within it).
  if (p.counterpartyIban !== null) {
    const fits = (j: number) => {
      const e = expected[j]!;
      return (
        open(j) &&
        inWindow(j) &&
        credit >= needOf(e, state, j) &&
        credit <= roomOf(e, state, j) &&
        needOf(e, state, j) > 0n
      );
    };
    const hit = decide(
      (index.byAccount.get(comparableReference(p.counterpartyIban)) ?? []).filter(fits),
      'amount-counterparty',
    );
    if (hit !== null) return hit;
  }

  // 4. Within tolerance, with the reference or invoice number in the remittance text (several named
  // there: 1:N, their open amounts adding up to the credit exactly).
  const keys = remittanceKeys(p.remittance);
  if (keys.length > 0) {
    const set = new Set<number>();
    for (const k of keys) {
      for (const j of index.byReference.get(k) ?? []) set.add(j);
      for (const j of index.byInvoice.get(k) ?? []) set.add(j);
    }
    const named = [...set].filter((j) => open(j) && inWindow(j) && needOf(expected[j]!, state, j) > 0n);
    if (named.length > 1) return several(named, 'tolerance-remittance');
    if (named.length === 1) {
      const j = named[0]!;
      const need = needOf(expected[j]!, state, j);
      const delta = credit - need;
      if ((delta < 0n ? -delta : delta) > toleranceMinor(settings, expected[j]!.currency, need)) return null;
      const m = single(j, 'tolerance-remittance');
      // An underpayment within tolerance settles the expected payment; an overpayment keeps the rest open.
      return [{ ...m, settles: credit < need }];
    }
  }
  return null;
}
