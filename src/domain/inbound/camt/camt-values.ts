import { type Amount, parseAmountText } from '../decimal.ts';
import type { Direction } from '../types.ts';
import { attr, child, textAt, type XNode } from '../xml/node.ts';

/** Small readers shared by the camt statement, entry and summary mappers. */

/** ISO 20022 ActiveOrHistoricCurrencyAndAmount allows 5 fraction digits and 18 digits in all. */
const MAX_FRACTION_DIGITS = 5;
const MAX_TOTAL_DIGITS = 18;

export type CamtAmount = Amount & { currency: string };

export class CamtDataError extends Error {}

/** Reads `<X Ccy="EUR">12.30</X>`; throws CamtDataError (caught per statement block) on a broken amount. */
export function readAmount(node: XNode | undefined, what: string, fallbackCurrency: string | null): CamtAmount | null {
  if (!node) return null;
  const raw = node.text.trim();
  if (raw === '') return null;
  const currency = attr(node, 'Ccy') ?? fallbackCurrency;
  if (!currency || !/^[A-Z]{3}$/.test(currency))
    throw new CamtDataError(`${what}: missing or invalid currency "${currency ?? ''}"`);
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
  return {
    text: amount.text,
    units: amount.units,
    scale: amount.scale,
    excessPrecision: amount.excessPrecision,
    currency,
  };
}

export function readDirection(node: XNode | undefined): Direction | null {
  const t = node?.text.trim();
  if (t === 'CRDT') return 'credit';
  if (t === 'DBIT') return 'debit';
  return null;
}

/** `<BookgDt><Dt>..</Dt></BookgDt>` or `<DtTm>`; some banks put a date-time inside Dt. Returns the calendar date. */
export function readDate(node: XNode | undefined): string | null {
  if (!node) return null;
  const t = textAt(node, 'Dt') ?? textAt(node, 'DtTm') ?? (node.children.length === 0 ? node.text.trim() : '');
  if (!t) return null;
  return /^\d{4}-\d\d-\d\d/.test(t) ? t.slice(0, 10) : t;
}

/** Code-or-proprietary choice: `<Cd>` wins, then `<Prtry>` (which may itself wrap an Id). */
export function codeOrProprietary(node: XNode | undefined): string | null {
  if (!node) return null;
  return textAt(node, 'Cd') ?? textAt(node, 'Prtry') ?? textAt(node, 'Prtry', 'Id') ?? null;
}

/** A party's name across versions: v02-v07 `Dbtr/Nm`, v08+ `Dbtr/Pty/Nm`. */
export function partyOf(node: XNode | undefined): XNode | undefined {
  if (!node) return undefined;
  return child(node, 'Pty') ?? child(node, 'Agt') ?? node;
}

export function bicOf(finInstnHolder: XNode | undefined): string | null {
  if (!finInstnHolder) return null;
  const fi = child(finInstnHolder, 'FinInstnId') ?? finInstnHolder;
  return textAt(fi, 'BIC') ?? textAt(fi, 'BICFI') ?? null;
}

export function addressOf(party: XNode | undefined): { country: string | null; address: string | null } {
  const adr = child(party, 'PstlAdr');
  if (!adr) return { country: textAt(party, 'CtryOfRes'), address: null };
  const parts: string[] = [];
  const street = [textAt(adr, 'StrtNm'), textAt(adr, 'BldgNb')].filter(Boolean).join(' ');
  if (street) parts.push(street);
  const town = [textAt(adr, 'PstCd'), textAt(adr, 'TwnNm')].filter(Boolean).join(' ');
  if (town) parts.push(town);
  for (const line of adr.children) if (line.name === 'AdrLine' && line.text.trim()) parts.push(line.text.trim());
  return {
    country: textAt(adr, 'Ctry') ?? textAt(party, 'CtryOfRes'),
    address: parts.length ? parts.join(', ') : null,
  };
}

export function isTrue(node: XNode | undefined): boolean {
  const t = node?.text.trim();
  return t === 'true' || t === '1';
}

const STATUS: Record<string, string> = { BOOK: 'booked', PDNG: 'pending', INFO: 'info', FUTR: 'future' };

/** Entry status: v02-v07 `<Sts>BOOK</Sts>`, v08+ `<Sts><Cd>BOOK</Cd></Sts>`. Missing means booked (statements book). */
export function readStatus(node: XNode | undefined): string {
  if (!node) return 'booked';
  const code = node.children.length ? codeOrProprietary(node) : node.text.trim();
  if (!code) return 'booked';
  return STATUS[code] ?? code.toLowerCase();
}
