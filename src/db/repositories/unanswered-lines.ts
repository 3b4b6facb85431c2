import { and, asc, eq, isNull, lt, sql } from 'drizzle-orm';
import type { CompanyScope, Executor } from '../executor.ts';
import { journalDocuments, paymentLines, unmatchedEntries } from '../schema/index.ts';
import { inCompany } from '../tenant.ts';
import { takesEvidence } from './journal-documents.ts';

export type UnansweredLine = {
  documentId: string;
  journalNo: string;
  environment: string;
  lineIndex: number;
  endToEndId: string | null;
  instructionId: string | null;
  amount: string;
  amountMinor: bigint;
  currency: string;
  payeeName: string | null;
  payeeIban: string | null;
  executionDate: string | null;
  openUntil: Date;
};

/**
 * The exceptions queue's outbound lines (docs/adr/0075): pending with no evidence at all (no pain.002,
 * no statement booked them) though their answer window closed, of documents the bank got (takesEvidence),
 * keyset on (document, line), read through payment_lines_open_idx (open_until is cleared when a line
 * settles, so only lines still in flight are read).
 */
export async function unansweredLines(
  q: Executor,
  scope: CompanyScope,
  filter: { now: Date; after?: { documentId: string; lineIndex: number } | undefined; limit: number },
): Promise<UnansweredLine[]> {
  const rows = await q
    .select({
      documentId: paymentLines.documentId,
      journalNo: journalDocuments.journalNo,
      environment: journalDocuments.environment,
      lineIndex: paymentLines.lineIndex,
      endToEndId: paymentLines.endToEndId,
      instructionId: paymentLines.instructionId,
      amount: paymentLines.amount,
      amountMinor: paymentLines.amountMinor,
      currency: paymentLines.currency,
      payeeName: paymentLines.payeeName,
      payeeIban: paymentLines.payeeIban,
      executionDate: paymentLines.executionDate,
      openUntil: paymentLines.openUntil,
    })
    .from(paymentLines)
    .innerJoin(journalDocuments, eq(journalDocuments.id, paymentLines.documentId))
    .where(
      and(
        inCompany(paymentLines, scope),
        lt(paymentLines.openUntil, filter.now),
        eq(paymentLines.state, 'pending'),
        isNull(paymentLines.evidence),
        eq(journalDocuments.direction, 'outbound'),
        takesEvidence,
        filter.after
          ? sql`(${paymentLines.documentId}, ${paymentLines.lineIndex}) > (${filter.after.documentId}, ${filter.after.lineIndex})`
          : undefined,
      ),
    )
    .orderBy(asc(paymentLines.documentId), asc(paymentLines.lineIndex))
    .limit(filter.limit);
  return rows.map((r) => ({ ...r, openUntil: r.openUntil! }));
}

export type DebitCandidate = {
  id: number;
  documentId: string;
  entryIndex: number | null;
  amount: string;
  amountMinor: bigint;
  bookingDate: string | null;
  endToEndId: string | null;
  instructionId: string | null;
  counterpartyIban: string | null;
};

/** Open unmatched debits (docs/adr/0047) of a currency nearest to an amount: candidates for a line. */
export async function nearestDebits(
  q: Executor,
  scope: CompanyScope,
  near: { currency: string; amountMinor: bigint; endToEndId: string | null; limit: number },
): Promise<DebitCandidate[]> {
  return q
    .select({
      id: unmatchedEntries.id,
      documentId: unmatchedEntries.documentId,
      entryIndex: unmatchedEntries.entryIndex,
      amount: unmatchedEntries.amount,
      amountMinor: unmatchedEntries.amountMinor,
      bookingDate: unmatchedEntries.bookingDate,
      endToEndId: unmatchedEntries.endToEndId,
      instructionId: unmatchedEntries.instructionId,
      counterpartyIban: unmatchedEntries.counterpartyIban,
    })
    .from(unmatchedEntries)
    .where(
      and(
        inCompany(unmatchedEntries, scope),
        isNull(unmatchedEntries.matchedDocumentId),
        eq(unmatchedEntries.direction, 'debit'),
        eq(unmatchedEntries.reversal, false),
        eq(unmatchedEntries.currency, near.currency),
      ),
    )
    .orderBy(
      sql`(${unmatchedEntries.endToEndId} IS NOT DISTINCT FROM ${near.endToEndId}) DESC`,
      sql`abs(${unmatchedEntries.amountMinor} - ${near.amountMinor}::bigint)`,
      asc(unmatchedEntries.id),
    )
    .limit(near.limit);
}
