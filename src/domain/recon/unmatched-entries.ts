import { createHash } from 'node:crypto';
import type { StatementTransaction } from '../inbound/types.ts';
import type { EvidenceSource } from './statement-entries.ts';
import type { ReconEntry } from './types.ts';

/**
 * Booked statement entries that matched no outbound payment line (the dashboard's "unmatched statement
 * entries", docs/adr/0047). Only money that left the account (debits) and returns are worth listing:
 * a plain credit is an incoming payment, never evidence for an outbound line, and recording every one
 * would copy a collection account's statements.
 */
export const worthListing = (entry: ReconEntry): boolean => entry.direction === 'debit' || entry.reversal;

/** What an unmatched entry's record quotes beyond the matcher's entry: who was paid and for what. */
export type EntryDetails = {
  counterpartyName: string | null;
  remittance: string | null;
  /** The transaction's position in its statement block, as an incoming payment's `entryIndex`. */
  position: number;
  /** The return reason code (RtrInf, /RTRN/) when the entry is a return: a reversed credit's evidence. */
  returnReason: string | null;
  /** The structured creditor reference (CdtrRefInf/Ref): rule 1 for a debit expected payment (docs/adr/0077). */
  creditorReference: string | null;
};

const REMITTANCE_KEPT = 140;

/** Kept beside an entry worth listing only (null otherwise: the file worker holds whole statements). */
export function entryDetailsOf(tx: StatementTransaction, entry: ReconEntry, position: number): EntryDetails | null {
  if (!worthListing(entry)) return null;
  const remittance = tx.remittance ?? tx.creditorReference ?? tx.additionalInfo;
  return {
    counterpartyName: tx.counterpartyName,
    remittance: remittance === null ? null : remittance.slice(0, REMITTANCE_KEPT),
    position,
    returnReason: tx.returnReason,
    creditorReference: tx.creditorReference,
  };
}

export type UnmatchedEntryRecord = {
  /** Identifies the bank's entry across statements (an intraday camt.052, then the day's camt.053). */
  entryKey: string;
  direction: 'debit' | 'credit';
  reversal: boolean;
  /** Decimal string without sign, as the statement gives it. */
  amount: string;
  amountMinor: bigint;
  currency: string;
  bookingDate: string | null;
  bankRef: string | null;
  endToEndId: string | null;
  instructionId: string | null;
  /** Payment-information or message id of the batch the entry books. */
  reference: string | null;
  counterpartyName: string | null;
  counterpartyIban: string | null;
  remittance: string | null;
  /** Why nothing matched when the matcher knows (more than one candidate line), else null. */
  note: string | null;
  /** The entry's position in its statement block (the `entry {documentId, entryIndex}` of a manual match). */
  entryIndex: number | null;
  returnReason: string | null;
  creditorReference: string | null;
};

/**
 * Entry keys of the entries worth listing: SHA-256 over the account and what the bank says of the
 * entry (direction, amount, currency, booking date, bank reference, identifiers, counterparty), with
 * the entry's occurrence among identical ones in the statement, so two equal fees on one day stay two
 * while the same entry in a later statement gets the same key.
 */
function entryKeys(
  account: string,
  entries: readonly ReconEntry[],
  sources: readonly EvidenceSource[],
): Map<number, string> {
  const seen = new Map<string, number>();
  const keys = new Map<number, string>();
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    if (!worthListing(e)) continue;
    const s = sources[i]!;
    const base = JSON.stringify([
      account,
      e.direction,
      e.reversal,
      String(e.amountMinor),
      e.currency,
      e.bookingDate,
      s.acctSvcrRef ?? s.bankRef,
      e.endToEndId,
      e.instructionId,
      e.counterpartyIban,
    ]);
    // Counted by the base's digest, not the base itself: a 50 MB statement's bases would be tens of MB.
    const seenKey = createHash('sha256').update(base, 'utf8').digest('base64');
    const n = (seen.get(seenKey) ?? 0) + 1;
    seen.set(seenKey, n);
    keys.set(i, createHash('sha256').update(`${base}#${n}`, 'utf8').digest('hex'));
  }
  return keys;
}

/**
 * A page of records as the insert takes them: one JSON array (`amountMinor` as a decimal string).
 * Made where the records are (the file worker), so that the ingest's thread neither receives them as
 * objects nor serialises them: that garbage was most of what it grew by while writing a 50 MB
 * statement's 28,000 records (docs/adr/0029).
 */
export type UnmatchedPage = { json: string; count: number };

export const unmatchedPage = (records: readonly UnmatchedEntryRecord[]): UnmatchedPage => ({
  json: JSON.stringify(records, (key, value: unknown) => (key === 'amountMinor' ? String(value) : value)),
  count: records.length,
});

export type StatementLeftovers = {
  unmatched: UnmatchedPage;
  /** Keys of the entries worth listing that matched a line (asked for when earlier records may be resolved). */
  matchedKeys: string[];
};

type Kept = {
  entries: readonly ReconEntry[];
  sources: readonly EvidenceSource[];
  details: readonly (EntryDetails | null)[];
};

/** Which entries worth listing matched nothing (index and key), and the keys of those that matched. */
export type LeftoverIndex = { unmatched: { index: number; key: string }[]; matchedKeys: string[] };

/**
 * The unmatched entries worth listing, without their records yet (made a page at a time by
 * leftoverRecord, so a large statement's records are never all held). `unmatched` maps entry index to
 * its note; null when no matching ran (no candidate line at all): then every entry is unmatched.
 */
export function leftoverIndex(
  kept: Kept,
  unmatched: ReadonlyMap<number, string | null> | null,
  options: { account: string; matchedKeys: boolean },
): LeftoverIndex {
  const keys = entryKeys(options.account, kept.entries, kept.sources);
  const out: LeftoverIndex = { unmatched: [], matchedKeys: [] };
  for (const [i, key] of keys) {
    if (unmatched !== null && !unmatched.has(i)) {
      if (options.matchedKeys) out.matchedKeys.push(key);
      continue;
    }
    out.unmatched.push({ index: i, key });
  }
  return out;
}

/** The record of one unmatched entry (leftoverIndex). */
export function leftoverRecord(
  kept: Kept,
  unmatched: ReadonlyMap<number, string | null> | null,
  at: { index: number; key: string },
): UnmatchedEntryRecord {
  const i = at.index;
  const e = kept.entries[i]!;
  const s = kept.sources[i]!;
  const d = kept.details[i] ?? null;
  const amount = s.amount ?? s.entryAmount;
  return {
    entryKey: at.key,
    direction: e.direction,
    reversal: e.reversal,
    amount: amount.startsWith('-') ? amount.slice(1) : amount,
    amountMinor: e.amountMinor,
    currency: e.currency,
    bookingDate: e.bookingDate,
    bankRef: s.acctSvcrRef ?? s.bankRef,
    endToEndId: e.endToEndId,
    instructionId: e.instructionId,
    reference: e.paymentInfoId ?? e.messageId,
    counterpartyName: d?.counterpartyName ?? null,
    counterpartyIban: e.counterpartyIban,
    remittance: d?.remittance ?? null,
    note: unmatched?.get(i) ?? null,
    entryIndex: d?.position ?? null,
    returnReason: d?.returnReason ?? null,
    creditorReference: d?.creditorReference ?? null,
  };
}
