import { and, eq, isNull, sql } from 'drizzle-orm';
import type { CompanyScope, Executor } from '../executor.ts';
import { incomingPayments, type ReturnEvidence, unmatchedEntries } from '../schema/index.ts';
import { inCompany, inCompanyByKey } from '../tenant.ts';
import type { IncomingRow } from './receivables.ts';

/** A statement debit that reverses or returns an earlier booking (docs/adr/0076), as recorded unmatched. */
export type DebitReversal = {
  id: number;
  documentId: string;
  entryIndex: number | null;
  amount: string;
  amountMinor: bigint;
  currency: string;
  bookingDate: string | null;
  bankRef: string | null;
  endToEndId: string | null;
  counterpartyIban: string | null;
  returnReason: string | null;
};

/**
 * This statement's open debit reversals: the entries docs/adr/0070 matches to no outbound line (a
 * reversal debits the account when it undoes a credit). A reversal a later statement repeats is not
 * recorded again (unmatched_entries' entry key), so each is read once, by the statement that brought it.
 */
export async function debitReversalsOf(q: Executor, scope: CompanyScope, documentId: string): Promise<DebitReversal[]> {
  return q
    .select({
      id: unmatchedEntries.id,
      documentId: unmatchedEntries.documentId,
      entryIndex: unmatchedEntries.entryIndex,
      amount: unmatchedEntries.amount,
      amountMinor: unmatchedEntries.amountMinor,
      currency: unmatchedEntries.currency,
      bookingDate: unmatchedEntries.bookingDate,
      bankRef: unmatchedEntries.bankRef,
      endToEndId: unmatchedEntries.endToEndId,
      counterpartyIban: unmatchedEntries.counterpartyIban,
      returnReason: unmatchedEntries.returnReason,
    })
    .from(unmatchedEntries)
    .where(
      and(
        inCompany(unmatchedEntries, scope),
        eq(unmatchedEntries.documentId, documentId),
        eq(unmatchedEntries.direction, 'debit'),
        eq(unmatchedEntries.reversal, true),
        isNull(unmatchedEntries.matchedDocumentId),
      ),
    )
    .orderBy(unmatchedEntries.id);
}

/**
 * The credits a reversal may undo, locked: by end-to-end id when it names one (any date: the identifier
 * says which), else the same amount, currency and counterparty account booked from `days` before the
 * reversal up to its day. Returned credits are final and never candidates. At most 2 (more is ambiguous).
 */
export async function creditsReversedBy(
  q: Executor,
  scope: CompanyScope,
  r: DebitReversal,
  by: { endToEndId: string | null; days: number },
): Promise<IncomingRow[]> {
  const open = sql`${incomingPayments.status} <> 'returned'`;
  const where = by.endToEndId
    ? and(eq(incomingPayments.endToEndId, by.endToEndId), eq(incomingPayments.currency, r.currency))
    : r.counterpartyIban === null || r.bookingDate === null
      ? sql`false`
      : and(
          eq(incomingPayments.currency, r.currency),
          eq(incomingPayments.amountMinor, r.amountMinor),
          eq(incomingPayments.counterpartyIban, r.counterpartyIban),
          sql`${incomingPayments.bookingDate} BETWEEN ${r.bookingDate}::date - ${by.days}::int AND ${r.bookingDate}::date`,
        );
  return q
    .select()
    .from(incomingPayments)
    .where(and(inCompany(incomingPayments, scope), open, where))
    .orderBy(incomingPayments.id)
    .limit(2)
    .for('update');
}

/** The reversal's entry leaves the unmatched list: it is explained (its note says by what). */
export async function resolveReversal(
  q: Executor,
  scope: CompanyScope,
  id: number,
  by: { note: string; documentId: string | null; at: Date },
): Promise<void> {
  await q
    .update(unmatchedEntries)
    .set(
      by.documentId === null
        ? { note: by.note }
        : { note: by.note, matchedDocumentId: by.documentId, matchedAt: by.at },
    )
    .where(and(eq(unmatchedEntries.id, id), inCompany(unmatchedEntries, scope)));
}

/** The credit is returned: its sum down to what archived expected payments keep (the rest was released). */
export async function markReturned(
  q: Executor,
  scope: CompanyScope,
  id: string,
  from: string,
  evidence: ReturnEvidence,
  keptMinor: bigint,
): Promise<boolean> {
  const rows = await q
    .update(incomingPayments)
    .set({ status: 'returned', matchedMinor: keptMinor, reviewNote: null, returnEvidence: evidence })
    .where(and(eq(incomingPayments.id, id), inCompanyByKey(incomingPayments, scope), eq(incomingPayments.status, from)))
    .returning({ id: incomingPayments.id });
  return rows.length > 0;
}
