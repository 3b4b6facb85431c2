import { and, asc, eq, inArray, isNull, type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import type { CompanyScope, Executor } from '../executor.ts';
import { unmatchedEntries } from '../schema/index.ts';
import { inCompany, inCompanyByKey } from '../tenant.ts';
import type { EntryRow } from './line-matches.ts';

/**
 * Statement debits as the matched side of debit expected payments (docs/adr/0077): the booked debits
 * no outbound line took (unmatched_entries, docs/adr/0047), reversals excepted (they undo a credit,
 * docs/adr/0076), not matched by a person to outbound lines, with an open amount. Every query in its company.
 */
const openDebit = and(
  eq(unmatchedEntries.direction, 'debit'),
  eq(unmatchedEntries.reversal, false),
  isNull(unmatchedEntries.matchedDocumentId),
  sql`${unmatchedEntries.matchedMinor} < ${unmatchedEntries.amountMinor}`,
);

/** This statement's open debits (the ones it recorded: a later statement's copy is not recorded again). */
export async function openDebitsOf(q: Executor, scope: CompanyScope, documentId: string): Promise<number[]> {
  const rows = await q
    .select({ id: unmatchedEntries.id })
    .from(unmatchedEntries)
    .where(and(inCompany(unmatchedEntries, scope), eq(unmatchedEntries.documentId, documentId), openDebit))
    .orderBy(asc(unmatchedEntries.id));
  return rows.map((r) => r.id);
}

/** These open debits, locked, in booking order (the matcher's order). */
export async function openDebitsByIds(q: Executor, scope: CompanyScope, ids: number[]): Promise<EntryRow[]> {
  if (ids.length === 0) return [];
  return q
    .select()
    .from(unmatchedEntries)
    .where(and(inArray(unmatchedEntries.id, ids), inCompanyByKey(unmatchedEntries, scope), openDebit))
    .orderBy(asc(unmatchedEntries.bookingDate), asc(unmatchedEntries.id))
    .for('update');
}

/** Entries by id, locked, whatever their state (an unmatch). */
export async function entriesByIds(q: Executor, scope: CompanyScope, ids: number[]): Promise<EntryRow[]> {
  if (ids.length === 0) return [];
  return q
    .select()
    .from(unmatchedEntries)
    .where(and(inArray(unmatchedEntries.id, ids), inCompanyByKey(unmatchedEntries, scope)))
    .orderBy(asc(unmatchedEntries.id))
    .for('update');
}

/** The note of a debit matched in full: what matched it (debit expected payments). */
const DEBIT_MATCHED_NOTE = 'debit expected payment';

/**
 * New matched sums of statement debits, set-wise. A debit matched in full leaves the unmatched list
 * (its own statement as `matched_document_id`, as a manual line match does, and a note naming what
 * matched it); one that is no longer matched in full (an unmatch) comes back, its note cleared. The
 * CHECK refuses a sum over the entry's amount.
 */
export async function applyEntrySums(
  q: Executor,
  scope: CompanyScope,
  rows: { id: number; matchedMinor: bigint; expectedIds: string[] }[],
  now: Date,
): Promise<void> {
  if (rows.length === 0) return;
  const json = JSON.stringify(
    rows.map((r) => ({
      id: r.id,
      matchedMinor: String(r.matchedMinor),
      note: `${DEBIT_MATCHED_NOTE} ${r.expectedIds.join(', ')}`,
    })),
  );
  const full = sql`r."matchedMinor" = u.amount_minor`;
  const ours = sql`u.matched_document_id = u.document_id AND u.note LIKE ${`${DEBIT_MATCHED_NOTE}%`}`;
  await q.execute(sql`
    UPDATE unmatched_entries u
       SET matched_minor = r."matchedMinor",
           matched_document_id = CASE WHEN ${full} THEN u.document_id WHEN ${ours} THEN NULL ELSE u.matched_document_id END,
           matched_at = CASE WHEN ${full} THEN ${now}::timestamptz WHEN ${ours} THEN NULL ELSE u.matched_at END,
           note = CASE WHEN ${full} THEN r.note WHEN ${ours} THEN NULL ELSE u.note END
      FROM jsonb_to_recordset(${json}::jsonb) AS r(id bigint, "matchedMinor" bigint, note text)
     WHERE u.id = r.id AND u.platform_id = ${scope.platformId} AND u.company_id = ${scope.companyId}`);
}

/** Why the matcher left these debits for a person (an ambiguous candidate set), one UPDATE. */
export async function setEntryNotes(q: Executor, scope: CompanyScope, rows: { id: number; note: string }[]) {
  if (rows.length === 0) return;
  await q.execute(sql`
    UPDATE unmatched_entries u SET note = r.note
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS r(id bigint, note text)
     WHERE u.id = r.id AND u.platform_id = ${scope.platformId} AND u.company_id = ${scope.companyId}`);
}

/** Letters and digits only, upper case (as incoming-candidates.ts compares a credit's keys). */
const loose = (column: SQLWrapper) => sql`upper(regexp_replace(${column}, '[^[:alnum:]]', '', 'g'))`;

/**
 * The open debits of a currency that could name a new debit expected payment by one of the matcher's
 * rules (creditsNaming's conditions over the debits): its reference or invoice number as their creditor
 * reference or end-to-end id at any date, or in their remittance, or its counterparty account as theirs,
 * booked within the window. A superset; oldest booking first.
 */
export async function debitsNaming(
  q: Executor,
  scope: CompanyScope,
  keys: { currency: string; names: string[]; accounts: string[]; window: { from: string; to: string }; limit: number },
): Promise<number[]> {
  const either: SQL[] = [];
  const windowed: SQL[] = [];
  for (const name of keys.names.filter((k) => k.length > 0)) {
    either.push(sql`${loose(unmatchedEntries.creditorReference)} = ${name}`);
    either.push(sql`${loose(unmatchedEntries.endToEndId)} = ${name}`);
    if (name.length >= 3) windowed.push(sql`${loose(unmatchedEntries.remittance)} LIKE ${`%${name}%`}`);
  }
  const accounts = keys.accounts.filter((k) => k.length > 0);
  if (accounts.length > 0) windowed.push(inArray(loose(unmatchedEntries.counterpartyIban), accounts));
  if (windowed.length > 0) {
    const booked = unmatchedEntries.bookingDate;
    either.push(
      sql`((${booked} IS NULL OR ${booked} BETWEEN ${keys.window.from}::date AND ${keys.window.to}::date) AND (${sql.join(windowed, sql` OR `)}))`,
    );
  }
  if (either.length === 0) return [];
  const rows = await q
    .select({ id: unmatchedEntries.id })
    .from(unmatchedEntries)
    .where(
      and(
        inCompany(unmatchedEntries, scope),
        openDebit,
        eq(unmatchedEntries.currency, keys.currency),
        sql`(${sql.join(either, sql` OR `)})`,
      ),
    )
    .orderBy(asc(unmatchedEntries.bookingDate), asc(unmatchedEntries.id))
    .limit(keys.limit);
  return rows.map((r) => r.id);
}

/** Open debits of a currency nearest to an amount (candidates for an overdue debit expected payment). */
export async function nearestOpenDebits(
  q: Executor,
  scope: CompanyScope,
  near: { currency: string; amountMinor: bigint; reference: string | null; limit: number },
): Promise<EntryRow[]> {
  return q
    .select()
    .from(unmatchedEntries)
    .where(and(inCompany(unmatchedEntries, scope), openDebit, eq(unmatchedEntries.currency, near.currency)))
    .orderBy(
      sql`(${unmatchedEntries.creditorReference} IS NOT DISTINCT FROM ${near.reference}) DESC`,
      sql`abs(${unmatchedEntries.amountMinor} - ${unmatchedEntries.matchedMinor} - ${near.amountMinor}::bigint)`,
      asc(unmatchedEntries.id),
    )
    .limit(near.limit);
}
