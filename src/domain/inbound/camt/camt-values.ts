import { currencyExponent } from '../../money/currencies.ts';
import { parseAmountText, plainTwoUnits } from '../../money/decimal.ts';
import type { Direction } from '../types.ts';
import { attrOf } from '../xml/node.ts';
import type { Tree } from '../xml/tree.ts';
import { N } from './names.ts';

/** Small readers shared by the camt statement, entry and summary mappers (nodes are indexes of `t`, -1: missing). */

/** ISO 20022 ActiveOrHistoricCurrencyAndAmount allows 5 fraction digits and 18 digits in all. */
const MAX_FRACTION_DIGITS = 5;
const MAX_TOTAL_DIGITS = 18;

/**
 * An amount of the file with its currency. One of the usual "123.45" shape in a two-decimal currency
 * keeps its units as a number (`plain`) and makes its bigint only when asked: the entry sums add plain
 * amounts as numbers (see EntrySums), so most entries need no bigint at all.
 */
export class CamtAmount {
  text: string;
  scale: number;
  excessPrecision: boolean;
  currency: string;
  /** Units at scale 2 as a number (below 10^15) for a plain amount, else -1. */
  plain: number;
  private exact: bigint;

  constructor(text: string, scale: number, excessPrecision: boolean, currency: string, plain: number, exact: bigint) {
    this.text = text;
    this.scale = scale;
    this.excessPrecision = excessPrecision;
    this.currency = currency;
    this.plain = plain;
    this.exact = exact;
  }

  get units(): bigint {
    return this.plain >= 0 ? BigInt(this.plain) : this.exact;
  }
}

export class CamtDataError extends Error {}

/** Reads `<X Ccy="EUR">12.30</X>`; throws CamtDataError (caught per statement block) on a broken amount. */
export function readAmount(
  t: Tree,
  i: number,
  what: string,
  fallbackCurrency: string | null,
  attrs?: string,
): CamtAmount | null {
  if (i < 0) return null;
  const raw = t.trimmed(i);
  if (raw === '') return null;
  const currency = attrOf(attrs ?? (t.attrs[i] as string), 'Ccy') ?? fallbackCurrency;
  if (currency !== lastCurrency) {
    if (!currency || !/^[A-Z]{3}$/.test(currency))
      throw new CamtDataError(`${what}: missing or invalid currency "${currency ?? ''}"`);
    lastCurrency = currency;
    lastExponent = currencyExponent(currency) ?? 2;
  }
  // Most amounts are "123.45" in a two-decimal currency: read in place, as parseAmountText's fast path would.
  if (lastExponent === 2) {
    const units = plainTwoUnits(raw);
    if (units >= 0) return new CamtAmount(raw, 2, false, currency, units, 0n);
  }
  const amount = parseAmountText(raw, currency);
  if (!amount || !/^\d*(?:\.\d*)?$/.test(raw)) throw new CamtDataError(`${what}: "${raw}" is not a decimal amount`);
  const dot = raw.indexOf('.');
  const fraction = dot < 0 ? 0 : raw.length - dot - 1;
  // Only long texts can break the digit limits; most amounts skip the counting.
  if (
    fraction > MAX_FRACTION_DIGITS ||
    (raw.length > MAX_TOTAL_DIGITS && raw.replace('.', '').replace(/^0+/, '').length > MAX_TOTAL_DIGITS)
  ) {
    throw new CamtDataError(
      `${what}: "${raw}" has more digits than ISO 20022 allows (${MAX_FRACTION_DIGITS} decimals, ${MAX_TOTAL_DIGITS} in all)`,
    );
  }
  return new CamtAmount(amount.text, amount.scale, amount.excessPrecision, currency, -1, amount.units);
}

/**
 * readAmount for an amount that usually repeats `like` (a transaction's amount repeats its entry's):
 * when the text and currency are the same and `like` is plain, readAmount would return an equal amount,
 * so `like` itself is returned, compared in place, without a new amount or string.
 */
export function readAmountLike(
  t: Tree,
  i: number,
  what: string,
  fallbackCurrency: string | null,
  like: CamtAmount,
): CamtAmount | null {
  if (
    i >= 0 &&
    like.plain >= 0 &&
    (attrOf(t.attrs[i] as string, 'Ccy') ?? fallbackCurrency) === like.currency &&
    t.textIs(i, like.text)
  )
    return like;
  return readAmount(t, i, what, fallbackCurrency);
}

// The last currency that passed the check, with its exponent: every amount of a statement repeats it.
let lastCurrency = '';
let lastExponent = 2;

export function readDirection(t: Tree, i: number): Direction | null {
  if (t.textIs(i, 'CRDT')) return 'credit';
  if (t.textIs(i, 'DBIT')) return 'debit';
  return null;
}

// Consecutive entries of a statement mostly share their dates: the last one read is handed out again
// instead of a new ten-character copy per entry (compared in place, no string is cut to compare).
let lastDate = '';

/** `<BookgDt><Dt>..</Dt></BookgDt>` or `<DtTm>`; some banks put a date-time inside Dt. Returns the calendar date. */
export function readDate(t: Tree, i: number): string | null {
  if (i < 0) return null;
  let n = t.child(i, N.Dt);
  if (n >= 0 && lastDate !== '' && t.textIs(n, lastDate)) return lastDate;
  if (n < 0 || t.trimmed(n) === '') n = t.child(i, N.DtTm);
  const v = n >= 0 ? t.trimmed(n) : '';
  const s = v !== '' ? v : t.hasChildren(i) ? '' : t.trimmed(i);
  if (!s) return null;
  if (!/^\d{4}-\d\d-\d\d/.test(s)) return s;
  lastDate = s.length === 10 ? s : s.slice(0, 10);
  return lastDate;
}

/** Code-or-proprietary choice: `<Cd>` wins, then `<Prtry>` (which may itself wrap an Id). */
export function codeOrProprietary(t: Tree, i: number): string | null {
  if (i < 0) return null;
  return t.textAt(i, N.Cd) ?? t.textAt(i, N.Prtry) ?? t.textAt(i, N.Prtry, N.Id) ?? null;
}

/** A party's name across versions: v02-v07 `Dbtr/Nm`, v08+ `Dbtr/Pty/Nm`. */
export function partyOf(t: Tree, i: number): number {
  if (i < 0) return -1;
  const pty = t.child(i, N.Pty);
  if (pty >= 0) return pty;
  const agt = t.child(i, N.Agt);
  return agt >= 0 ? agt : i;
}

export function bicOf(t: Tree, finInstnHolder: number): string | null {
  if (finInstnHolder < 0) return null;
  const id = t.child(finInstnHolder, N.FinInstnId);
  const fi = id >= 0 ? id : finInstnHolder;
  return t.textAt(fi, N.BIC) ?? t.textAt(fi, N.BICFI) ?? null;
}

export function addressOf(t: Tree, party: number): { country: string | null; address: string | null } {
  const adr = t.child(party, N.PstlAdr);
  if (adr < 0) return { country: t.textAt(party, N.CtryOfRes), address: null };
  const parts: string[] = [];
  const street = [t.textAt(adr, N.StrtNm), t.textAt(adr, N.BldgNb)].filter(Boolean).join(' ');
  if (street) parts.push(street);
  const town = [t.textAt(adr, N.PstCd), t.textAt(adr, N.TwnNm)].filter(Boolean).join(' ');
  if (town) parts.push(town);
  for (let line = t.first[adr] as number; line >= 0; line = t.next[line] as number) {
    if (t.id[line] !== N.AdrLine) continue;
    const s = t.trimmed(line);
    if (s) parts.push(s);
  }
  return {
    country: t.textAt(adr, N.Ctry) ?? t.textAt(party, N.CtryOfRes),
    address: parts.length ? parts.join(', ') : null,
  };
}

export function isTrue(t: Tree, i: number): boolean {
  return t.textIs(i, 'true') || t.textIs(i, '1');
}

const STATUS: Record<string, string> = { BOOK: 'booked', PDNG: 'pending', INFO: 'info', FUTR: 'future' };

/** Entry status: v02-v07 `<Sts>BOOK</Sts>`, v08+ `<Sts><Cd>BOOK</Cd></Sts>`. Missing means booked (statements book). */
export function readStatus(t: Tree, i: number): string {
  if (i < 0) return 'booked';
  if (t.textIs(i, 'BOOK')) return 'booked'; // the usual case, compared in place
  const code = t.hasChildren(i) ? codeOrProprietary(t, i) : t.trimmed(i);
  if (!code) return 'booked';
  return STATUS[code] ?? code.toLowerCase();
}
