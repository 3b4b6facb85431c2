import {
  addDecimal,
  compareDecimal,
  type Decimal,
  formatDecimal,
  negate,
  parsePlainDecimal,
} from '../money/decimal.ts';
import type { Balance, Direction, EntrySummary, IntegrityWarning } from './types.ts';

/**
 * Running totals over a statement's entries, kept as numbers rather than a list so a 100,000-entry
 * statement costs nothing extra. Entries in a currency other than the account's are counted but kept
 * out of the balance arithmetic (their currencies are reported as `droppedCurrencies`).
 */
export type EntryTotals = {
  count: number;
  creditCount: number;
  creditSum: Decimal;
  debitCount: number;
  debitSum: Decimal;
  /** Booked entries in the account currency, credits minus debits. */
  bookedNet: Decimal;
  otherCurrencies: Set<string>;
  currency: string | null;
};

export function newTotals(currency: string | null): EntryTotals {
  // Fresh accumulators per statement: `accumulate` mutates them in place.
  return {
    count: 0,
    creditCount: 0,
    creditSum: { units: 0n, scale: 0 },
    debitCount: 0,
    debitSum: { units: 0n, scale: 0 },
    bookedNet: { units: 0n, scale: 0 },
    otherCurrencies: new Set(),
    currency,
  };
}

/** Adds `amount` to `sum` in place when the scales agree (the common case), else rescales. */
function accumulate(sum: Decimal, amount: Decimal): void {
  if (sum.scale === amount.scale) sum.units += amount.units;
  else {
    const r = addDecimal(sum, amount);
    sum.units = r.units;
    sum.scale = r.scale;
  }
}

export function addEntry(
  t: EntryTotals,
  amount: Decimal,
  currency: string,
  direction: Direction,
  booked: boolean,
): void {
  t.count++;
  t.currency ??= currency;
  if (currency !== t.currency) {
    t.otherCurrencies.add(currency);
    return;
  }
  if (direction === 'credit') {
    t.creditCount++;
    accumulate(t.creditSum, amount);
    if (booked) accumulate(t.bookedNet, amount);
  } else {
    t.debitCount++;
    accumulate(t.debitSum, amount);
    if (booked) accumulate(t.bookedNet, negate(amount));
  }
}

export function computedSummary(t: EntryTotals): EntrySummary {
  const currency = t.currency;
  const net = addDecimal(t.creditSum, negate(t.debitSum));
  return {
    totalCount: t.count,
    totalSum: formatDecimal(addDecimal(t.creditSum, t.debitSum), currency),
    totalNet: formatDecimal(net.units < 0n ? negate(net) : net, currency),
    totalDirection: net.units < 0n ? 'debit' : 'credit',
    creditCount: t.creditCount,
    creditSum: formatDecimal(t.creditSum, currency),
    debitCount: t.debitCount,
    debitSum: formatDecimal(t.debitSum, currency),
    source: 'computed',
  };
}

/** An unsigned balance amount with its direction as a signed decimal; undefined when not a plain decimal. */
function signed(b: Balance): Decimal | undefined {
  const d = /^\d/.test(b.amount) ? parsePlainDecimal(b.amount) : undefined;
  return d && b.direction === 'debit' ? negate(d) : d;
}

/** Balance with the first type of `preference` that the statement has: chosen by type, never by position. */
export function pickBalance(balances: Balance[], preference: readonly string[]): Balance | null {
  for (const type of preference) {
    const b = balances.find((x) => x.type === type);
    if (b) return b;
  }
  return null;
}

/**
 * Opening and closing balances chosen by type, never by position: the first pair of `pairs` whose
 * opening and closing types both exist (booked with booked, available with available). Without a
 * full pair, whichever single balance is found first is returned and the other side is null.
 */
export function pickOpeningClosing(
  balances: Balance[],
  pairs: readonly (readonly [readonly string[], readonly string[]])[],
): { opening: Balance | null; closing: Balance | null; paired: boolean } {
  for (const [open, close] of pairs) {
    const o = pickBalance(balances, open);
    const c = pickBalance(balances, close);
    if (o && c) return { opening: o, closing: c, paired: true };
  }
  const opening = pairs.map(([o]) => pickBalance(balances, o)).find((b) => b) ?? null;
  const closing = pairs.map(([, c]) => pickBalance(balances, c)).find((b) => b) ?? null;
  return { opening, closing, paired: false };
}

/** opening + credits - debits = closing, over booked entries in the account currency. */
export function checkBalances(
  opening: Balance | null,
  closing: Balance | null,
  t: EntryTotals,
  label: string,
): IntegrityWarning[] {
  if (!opening || !closing) {
    return [
      {
        code: 'missing_balance',
        message: `${label}: no ${!opening && !closing ? 'opening and closing' : !opening ? 'matching opening' : 'matching closing'} balance, the entries cannot be checked against the balances`,
      },
    ];
  }
  if (opening.currency !== closing.currency) {
    return [
      {
        code: 'currency_mismatch',
        message: `${label}: opening balance in ${opening.currency}, closing in ${closing.currency}`,
      },
    ];
  }
  const o = signed(opening);
  const c = signed(closing);
  if (!o || !c) return [];
  const expected = addDecimal(o, t.bookedNet);
  if (compareDecimal(expected, c) === 0) return [];
  const fmt = (d: Decimal) =>
    d.units < 0n ? `-${formatDecimal(negate(d), opening.currency)}` : formatDecimal(d, opening.currency);
  return [
    {
      code: 'balance_mismatch',
      message: `${label}: opening ${fmt(o)} + booked entries ${fmt(t.bookedNet)} = ${fmt(expected)}, but the closing balance (${closing.type}) is ${fmt(c)} ${closing.currency}`,
    },
  ];
}

/** The file's own summary (only the parts it has) against what the entries add up to. */
export function checkSummary(file: Partial<EntrySummary>, computed: EntrySummary, label: string): IntegrityWarning[] {
  const out: IntegrityWarning[] = [];
  const keys = ['totalCount', 'totalSum', 'creditCount', 'creditSum', 'debitCount', 'debitSum'] as const;
  for (const key of keys) {
    const a = file[key];
    const b = computed[key];
    if (a !== undefined && String(a) !== String(b)) {
      out.push({ code: 'summary_mismatch', message: `${label}: summary ${key} is ${a}, the entries give ${b}` });
    }
  }
  // The net (camt TtlNetNtry): its direction matters only when it is not zero.
  const net = file.totalNet;
  if (net !== undefined) {
    const zero = /^0*(?:\.0*)?$/.test(net) && /^0*(?:\.0*)?$/.test(computed.totalNet);
    if (net !== computed.totalNet || (!zero && file.totalDirection !== computed.totalDirection)) {
      const side = (d: string | undefined) => (d === 'debit' ? 'DBIT' : 'CRDT');
      out.push({
        code: 'summary_mismatch',
        message: `${label}: summary net is ${net} ${side(file.totalDirection)}, the entries give ${computed.totalNet} ${side(computed.totalDirection)}`,
      });
    }
  }
  return out;
}

/** The file's summary completed with computed values for the parts it lacks. */
export function mergeSummary(file: Partial<EntrySummary>, computed: EntrySummary): EntrySummary {
  return { ...computed, ...file, source: 'file' };
}
