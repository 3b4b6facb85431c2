import { and, desc, eq, inArray, isNull, lt, sql } from 'drizzle-orm';
import type { UnmatchedEntryRecord, UnmatchedPage } from '../../domain/recon/unmatched-entries.ts';
import type { CompanyScope, Executor } from '../executor.ts';
import { journalDocuments, unmatchedEntries } from '../schema/index.ts';
import { inCompany } from '../tenant.ts';

/** Keys per UPDATE when resolving (an `IN` list of parameters). */
const RESOLVE_CHUNK = 100;

/**
 * Records a statement's unmatched entries (a page of them from the file worker, unmatchedPage); an
 * entry some earlier statement already recorded (same company and entry key) is left as it is.
 * Returns how many were new. One statement whatever the page's size: the records go as one JSON
 * parameter (jsonb_to_recordset), not as 20 parameters a row through the query builder, whose
 * garbage for a 50 MB statement's 28,000 records (100 rows a statement) was most of what the ingest's
 * thread grew by while writing them (docs/adr/0029).
 */
export async function insertUnmatchedEntries(
  q: Executor,
  scope: CompanyScope,
  statement: { documentId: string; accountKey: string },
  page: UnmatchedPage,
  now: Date,
): Promise<number> {
  if (page.count === 0) return 0;
  const { rows } = await q.execute<{ n: number }>(sql`
    WITH inserted AS (
      INSERT INTO unmatched_entries (platform_id, company_id, document_id, account_key, entry_key, direction,
             reversal, amount, amount_minor, currency, booking_date, bank_ref, end_to_end_id, instruction_id,
             reference, counterparty_name, counterparty_iban, remittance, note, entry_index, return_reason, creditor_reference,
             created_at)
      SELECT ${scope.platformId}::text, ${scope.companyId}::text, ${statement.documentId}::text,
             ${statement.accountKey}::text, r."entryKey",
             r.direction, r.reversal, r.amount, r."amountMinor", r.currency, r."bookingDate", r."bankRef",
             r."endToEndId", r."instructionId", r.reference, r."counterpartyName", r."counterpartyIban",
             r.remittance, r.note, r."entryIndex", r."returnReason", r."creditorReference", ${now}::timestamptz
        -- In the page's order (ids: a statement's entries are recorded in its order).
        FROM ROWS FROM (jsonb_to_recordset(${page.json}::jsonb) AS ("entryKey" text, direction text,
             reversal boolean, amount text, "amountMinor" bigint, currency text, "bookingDate" date,
             "bankRef" text, "endToEndId" text, "instructionId" text, reference text, "counterpartyName" text,
             "counterpartyIban" text, remittance text, note text, "entryIndex" integer, "returnReason" text,
             "creditorReference" text))
             WITH ORDINALITY AS r("entryKey", direction, reversal, amount, "amountMinor", currency, "bookingDate",
             "bankRef", "endToEndId", "instructionId", reference, "counterpartyName", "counterpartyIban",
             remittance, note, "entryIndex", "returnReason", "creditorReference", at)
       ORDER BY r.at
      ON CONFLICT (company_id, entry_key) DO NOTHING
      RETURNING 1
    )
    SELECT count(*)::int AS n FROM inserted`);
  return rows[0]?.n ?? 0;
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
  for (let at = 0; at < entryKeys.length; at += RESOLVE_CHUNK) {
    const done = await q
      .update(unmatchedEntries)
      .set({ matchedDocumentId, matchedAt: now })
      .where(
        and(
          inCompany(unmatchedEntries, scope),
          inArray(unmatchedEntries.entryKey, entryKeys.slice(at, at + RESOLVE_CHUNK)),
          isNull(unmatchedEntries.matchedDocumentId),
        ),
      )
      .returning({ id: unmatchedEntries.id });
    resolved += done.length;
  }
  return resolved;
}

export type UnmatchedEntryRow = Omit<
  UnmatchedEntryRecord,
  'entryKey' | 'amountMinor' | 'entryIndex' | 'returnReason' | 'creditorReference'
> & {
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
