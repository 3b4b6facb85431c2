import { and, desc, eq, inArray, isNull, lt, sql } from 'drizzle-orm';
import type { UnmatchedEntryRecord } from '../../domain/recon/unmatched-entries.ts';
import type { CompanyScope, Executor } from '../executor.ts';
import { journalDocuments, unmatchedEntries } from '../schema/index.ts';
import { inCompany } from '../tenant.ts';

/**
 * Rows per INSERT. Small on purpose: the query builder's garbage for 1,000 rows a statement pushed the
 * 50 MB ingest's peak RSS over 400 MB (test/journal/large-ingest.test.ts); 100 keeps it under.
 */
const INSERT_CHUNK = 100;

/**
 * Records a statement's unmatched entries; an entry some earlier statement already recorded (same
 * company and entry key) is left as it is. Returns how many were new.
 */
export async function insertUnmatchedEntries(
  q: Executor,
  scope: CompanyScope,
  statement: { documentId: string; accountKey: string },
  records: readonly UnmatchedEntryRecord[],
  now: Date,
): Promise<number> {
  let inserted = 0;
  for (let at = 0; at < records.length; at += INSERT_CHUNK) {
    const rows = records.slice(at, at + INSERT_CHUNK).map((r) => ({
      platformId: scope.platformId,
      companyId: scope.companyId,
      documentId: statement.documentId,
      accountKey: statement.accountKey,
      entryKey: r.entryKey,
      direction: r.direction,
      reversal: r.reversal,
      amount: r.amount,
      amountMinor: r.amountMinor,
      currency: r.currency,
      bookingDate: r.bookingDate,
      bankRef: r.bankRef,
      endToEndId: r.endToEndId,
      instructionId: r.instructionId,
      reference: r.reference,
      counterpartyName: r.counterpartyName,
      counterpartyIban: r.counterpartyIban,
      remittance: r.remittance,
      note: r.note,
      createdAt: now,
    }));
    const done = await q
      .insert(unmatchedEntries)
      .values(rows)
      .onConflictDoNothing({ target: [unmatchedEntries.companyId, unmatchedEntries.entryKey] })
      .returning({ id: unmatchedEntries.id });
    inserted += done.length;
  }
  return inserted;
}

/** Whether any entry of this account is still unmatched (through unmatched_entries_account_idx). */
export async function hasOpenUnmatched(q: Executor, scope: CompanyScope, accountKey: string): Promise<boolean> {
  const rows = await q
    .select({ id: unmatchedEntries.id })
    .from(unmatchedEntries)
    .where(
      and(
        inCompany(unmatchedEntries, scope),
        eq(unmatchedEntries.accountKey, accountKey),
        isNull(unmatchedEntries.matchedDocumentId),
      ),
    )
    .limit(1);
  return rows.length > 0;
}

/** Marks the open entries with these keys matched by a later statement's copy. Returns how many. */
export async function resolveUnmatched(
  q: Executor,
  scope: CompanyScope,
  entryKeys: readonly string[],
  matchedDocumentId: string,
  now: Date,
): Promise<number> {
  let resolved = 0;
  for (let at = 0; at < entryKeys.length; at += INSERT_CHUNK) {
    const done = await q
      .update(unmatchedEntries)
      .set({ matchedDocumentId, matchedAt: now })
      .where(
        and(
          inCompany(unmatchedEntries, scope),
          inArray(unmatchedEntries.entryKey, entryKeys.slice(at, at + INSERT_CHUNK)),
          isNull(unmatchedEntries.matchedDocumentId),
        ),
      )
      .returning({ id: unmatchedEntries.id });
    resolved += done.length;
  }
  return resolved;
}

export type UnmatchedEntryRow = Omit<UnmatchedEntryRecord, 'entryKey' | 'amountMinor'> & {
  id: number;
  documentId: string;
  journalNo: string;
  createdAt: Date;
};

/** A company's open unmatched entries, newest recorded first, after the id `before` (keyset). */
export async function listUnmatchedEntries(
  q: Executor,
  scope: CompanyScope,
  before: number | undefined,
  limit: number,
): Promise<UnmatchedEntryRow[]> {
  const rows = await q
    .select({
      id: unmatchedEntries.id,
      documentId: unmatchedEntries.documentId,
      journalNo: journalDocuments.journalNo,
      direction: unmatchedEntries.direction,
      reversal: unmatchedEntries.reversal,
      amount: unmatchedEntries.amount,
      currency: unmatchedEntries.currency,
      bookingDate: unmatchedEntries.bookingDate,
      bankRef: unmatchedEntries.bankRef,
      endToEndId: unmatchedEntries.endToEndId,
      instructionId: unmatchedEntries.instructionId,
      reference: unmatchedEntries.reference,
      counterpartyName: unmatchedEntries.counterpartyName,
      counterpartyIban: unmatchedEntries.counterpartyIban,
      remittance: unmatchedEntries.remittance,
      note: unmatchedEntries.note,
      createdAt: unmatchedEntries.createdAt,
    })
    .from(unmatchedEntries)
    .innerJoin(journalDocuments, eq(journalDocuments.id, unmatchedEntries.documentId))
    .where(
      and(
        inCompany(unmatchedEntries, scope),
        isNull(unmatchedEntries.matchedDocumentId),
        before !== undefined ? lt(unmatchedEntries.id, before) : undefined,
      ),
    )
    .orderBy(desc(unmatchedEntries.id))
    .limit(limit);
  return rows.map((r) => ({ ...r, direction: r.direction as 'debit' | 'credit' }));
}

/** How many entries of the company are unmatched (the page's heading). */
export async function countUnmatchedEntries(q: Executor, scope: CompanyScope): Promise<number> {
  const [row] = await q
    .select({ n: sql<string>`count(*)::text` })
    .from(unmatchedEntries)
    .where(and(inCompany(unmatchedEntries, scope), isNull(unmatchedEntries.matchedDocumentId)));
  return Number(row?.n ?? 0);
}
