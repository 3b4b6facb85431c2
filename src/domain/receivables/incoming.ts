import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { StatementTransaction } from '../inbound/types.ts';
import type { ReconEntry } from '../recon/types.ts';

/**
 * Incoming payments from a statement's credits (DESIGN.md, Receivables): every booked credit that is
 * not a return or reversal, as records made a page at a time while the parser streams (the file
 * worker holds only these pages' JSON, never the transactions: docs/adr/0029, 0069).
 *
 * The payment key identifies the bank's entry across statements (an intraday camt.052, then the day's
 * camt.053): booking date, amount, currency, the bank's reference (the entry's, else the account
 * servicer's), the end-to-end id and the counterparty's account; without a bank reference, the
 * entry's position in its statement; and the occurrence among identical ones in the statement. The account is the statement's, added by the store (its unique index).
 */
/**
 * One credit, positionally: entry index, payment key (128 bits of the SHA-256, base64url), amount,
 * amount in minor units (a decimal string: JSON has no bigint), currency, booking date, value date,
 * bank reference, end-to-end id, structured reference, counterparty name, counterparty IBAN, remittance.
 */
export type IncomingRecord = [
  entryIndex: number,
  paymentKey: string,
  amount: string,
  amountMinor: string,
  currency: string,
  bookingDate: string | null,
  valueDate: string | null,
  bankRef: string | null,
  endToEndId: string | null,
  reference: string | null,
  counterpartyName: string | null,
  counterpartyIban: string | null,
  remittance: string | null,
];

/** Records per page: one INSERT each (store: insertIncomingPage). */
export const INCOMING_PAGE = 500;
const REMITTANCE_KEPT = 140;

export const isIncomingCredit = (entry: ReconEntry): boolean => entry.direction === 'credit' && !entry.reversal;

/**
 * Per statement block, the JSON pages of its incoming payments, made as the transactions stream. A
 * page is gzipped as it fills: the pages are held from the parse until the ingest's transaction asks
 * for them, and a 50 MB statement's 57,000 credits were 11 MB of JSON in the worker's heap at its
 * busiest moment, the end of the parse (1.5 MB gzipped; docs/adr/0069, 2026-12-06).
 */
export class IncomingPages {
  private readonly pages: { gzipped: Uint8Array; count: number }[][] = [];
  private readonly positions: number[] = [];
  private readonly seen: Map<string, number>[] = [];
  private block = -1;
  private records: IncomingRecord[] = [];

  /** Every transaction of the block (`entry` undefined for those no matcher reads): positions count them all. */
  add(block: number, tx: StatementTransaction, entry: ReconEntry | undefined): void {
    const position = this.positions[block] ?? 0;
    this.positions[block] = position + 1;
    if (entry === undefined || !isIncomingCredit(entry)) return;
    if (block !== this.block) this.flush();
    this.block = block;
    const ref = tx.bankRef ?? tx.acctSvcrRef;
    const base = JSON.stringify([
      entry.bookingDate,
      String(entry.amountMinor),
      entry.currency,
      ref,
      entry.endToEndId,
      entry.counterpartyIban,
      // No reference of the bank's: the entry's own position in its statement tells two apart.
      ref === null ? position : null,
    ]);
    const seen = this.seen[block] ?? new Map<string, number>();
    this.seen[block] = seen;
    const digest = createHash('sha256').update(base, 'utf8').digest('base64');
    const n = (seen.get(digest) ?? 0) + 1;
    seen.set(digest, n);
    const amount = tx.amount ?? tx.entryAmount;
    const remittance = tx.remittance ?? tx.additionalInfo;
    // A positional array (IncomingRecord's order), not an object: a page's JSON carries no key names,
    // which were a third of what the worker kept of a large statement's credits.
    this.records.push([
      position,
      createHash('sha256').update(`${base}#${n}`, 'utf8').digest('base64url').slice(0, 22),
      amount.startsWith('-') ? amount.slice(1) : amount,
      String(entry.amountMinor),
      entry.currency,
      entry.bookingDate,
      tx.valueDate,
      ref,
      entry.endToEndId,
      tx.creditorReference,
      tx.counterpartyName,
      entry.counterpartyIban,
      remittance === null ? null : remittance.slice(0, REMITTANCE_KEPT),
    ]);
    if (this.records.length >= INCOMING_PAGE) this.flush();
  }

  flush(): void {
    if (this.records.length === 0) return;
    const pages = this.pages[this.block] ?? [];
    // Copied out of zlib's 64 KB output buffer, which a page's 23 KB would otherwise keep whole (a
    // Buffer.from copy keeps 64 KB too: a typed array's copy is exact).
    const gzipped = new Uint8Array(gzipSync(JSON.stringify(this.records), { level: 1 }));
    pages.push({ gzipped, count: this.records.length });
    this.pages[this.block] = pages;
    this.records = [];
  }

  /** How many pages the block has (after flush). */
  pageCount(block: number): number {
    return this.pages[block]?.length ?? 0;
  }

  /** The block's page `page` (after flush), its JSON and record count; undefined past the last. */
  page(block: number, page: number): { json: string; count: number } | undefined {
    const p = this.pages[block]?.[page];
    return p && { json: gunzipSync(p.gzipped).toString('utf8'), count: p.count };
  }

  /** The digests of equal bases are needed only while the file streams. */
  done(): void {
    this.seen.length = 0;
  }
}
