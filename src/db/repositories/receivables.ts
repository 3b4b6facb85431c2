import { and, asc, eq, gt, inArray, isNull, sql } from 'drizzle-orm';
import type { ExpectedPaymentStatus, IncomingPaymentStatus } from '../../domain/lifecycle/index.ts';
import type { CompanyScope, Executor } from '../executor.ts';
import {
  expectedPayments,
  incomingPayments,
  journalDocuments,
  receivableMatches,
  reconciliationSettings,
} from '../schema/index.ts';
import { inCompany, inCompanyByKey } from '../tenant.ts';

/** Receivables store (docs/adr/0069): every query carries its company scope. */
export type ExpectedRow = typeof expectedPayments.$inferSelect;
export type IncomingRow = typeof incomingPayments.$inferSelect;
export type MatchRow = typeof receivableMatches.$inferSelect;

export async function insertExpected(q: Executor, row: typeof expectedPayments.$inferInsert): Promise<ExpectedRow> {
  const [inserted] = await q.insert(expectedPayments).values(row).returning();
  return inserted!;
}

export async function findExpected(q: Executor, scope: CompanyScope, id: string): Promise<ExpectedRow | undefined> {
  const [row] = await q
    .select()
    .from(expectedPayments)
    .where(and(eq(expectedPayments.id, id), inCompanyByKey(expectedPayments, scope)));
  return row;
}

export async function listExpected(
  q: Executor,
  scope: CompanyScope,
  filter: { status?: ExpectedPaymentStatus | undefined; after?: string | undefined; limit: number },
): Promise<ExpectedRow[]> {
  return q
    .select()
    .from(expectedPayments)
    .where(
      and(
        inCompany(expectedPayments, scope),
        filter.status ? eq(expectedPayments.status, filter.status) : undefined,
        filter.after ? gt(expectedPayments.id, filter.after) : undefined,
      ),
    )
    .orderBy(asc(expectedPayments.id))
    .limit(filter.limit);
}

/** A conditional update: only from the status read (two writers cannot both move it). */
export async function updateExpected(
  q: Executor,
  scope: CompanyScope,
  id: string,
  from: ExpectedPaymentStatus,
  set: Partial<typeof expectedPayments.$inferInsert>,
): Promise<ExpectedRow | undefined> {
  const [row] = await q
    .update(expectedPayments)
    .set(set)
    .where(and(eq(expectedPayments.id, id), inCompanyByKey(expectedPayments, scope), eq(expectedPayments.status, from)))
    .returning();
  return row;
}

/**
 * The company's expected payments of one direction that still take a match, of these currencies, locked
 * for the match: credit ones for incoming payments, debit ones for statement debits (docs/adr/0076, 0077).
 */
export async function openExpected(
  q: Executor,
  scope: CompanyScope,
  currencies: string[],
  direction: 'credit' | 'debit' = 'credit',
): Promise<ExpectedRow[]> {
  if (currencies.length === 0) return [];
  return q
    .select()
    .from(expectedPayments)
    .where(
      and(
        inCompany(expectedPayments, scope),
        inArray(expectedPayments.currency, currencies),
        inArray(expectedPayments.status, ['unreconciled', 'partially-reconciled', 'overdue']),
        // A credit is never a debit expected payment's, nor a debit a credit one's (docs/adr/0076).
        eq(expectedPayments.direction, direction),
      ),
    )
    .orderBy(asc(expectedPayments.id))
    .for('update');
}

export async function incomingByIds(q: Executor, scope: CompanyScope, ids: string[]): Promise<IncomingRow[]> {
  if (ids.length === 0) return [];
  return q
    .select()
    .from(incomingPayments)
    .where(and(inArray(incomingPayments.id, ids), inCompanyByKey(incomingPayments, scope)))
    .orderBy(asc(incomingPayments.bookingDate), asc(incomingPayments.id))
    .for('update');
}

export async function findIncoming(q: Executor, scope: CompanyScope, id: string): Promise<IncomingRow | undefined> {
  const [row] = await q
    .select()
    .from(incomingPayments)
    .where(and(eq(incomingPayments.id, id), inCompanyByKey(incomingPayments, scope)));
  return row;
}

export async function listIncoming(
  q: Executor,
  scope: CompanyScope,
  filter: { status?: IncomingPaymentStatus | undefined; after?: string | undefined; limit: number },
): Promise<IncomingRow[]> {
  return q
    .select()
    .from(incomingPayments)
    .where(
      and(
        inCompany(incomingPayments, scope),
        filter.status ? eq(incomingPayments.status, filter.status) : undefined,
        filter.after ? gt(incomingPayments.id, filter.after) : undefined,
      ),
    )
    .orderBy(asc(incomingPayments.id))
    .limit(filter.limit);
}

export async function insertMatches(q: Executor, rows: (typeof receivableMatches.$inferInsert)[]): Promise<void> {
  for (let at = 0; at < rows.length; at += 500) await q.insert(receivableMatches).values(rows.slice(at, at + 500));
}

/**
 * New matched sums and statuses, set-wise (one UPDATE per side): the CHECK constraints refuse a sum
 * over either side's amount, and the status each row gets was asked of its transition function.
 */
export async function applyExpectedSums(
  q: Executor,
  scope: CompanyScope,
  rows: { id: string; from: string; status: string; matchedMinor: bigint; settled: boolean }[],
  now: Date,
): Promise<void> {
  if (rows.length === 0) return;
  const json = JSON.stringify(rows.map((r) => ({ ...r, matchedMinor: String(r.matchedMinor) })));
  await q.execute(sql`
    UPDATE expected_payments e
       SET status = r.status, matched_minor = r."matchedMinor", settled = r.settled, updated_at = ${now}::timestamptz
      FROM jsonb_to_recordset(${json}::jsonb) AS r(id text, "from" text, status text, "matchedMinor" bigint, settled boolean)
     WHERE e.id = r.id AND e.platform_id = ${scope.platformId} AND e.company_id = ${scope.companyId}
       AND e.status = r."from"`);
}

export async function applyIncomingSums(
  q: Executor,
  scope: CompanyScope,
  rows: { id: string; from: string; status: string; matchedMinor: bigint }[],
): Promise<void> {
  if (rows.length === 0) return;
  const json = JSON.stringify(rows.map((r) => ({ ...r, matchedMinor: String(r.matchedMinor) })));
  await q.execute(sql`
    UPDATE incoming_payments p
       SET status = r.status, matched_minor = r."matchedMinor", review_note = NULL
      FROM jsonb_to_recordset(${json}::jsonb) AS r(id text, "from" text, status text, "matchedMinor" bigint)
     WHERE p.id = r.id AND p.platform_id = ${scope.platformId} AND p.company_id = ${scope.companyId}
       AND p.status = r."from"`);
}

/** The live (not unmatched) matches of these expected or incoming payments or statement entries, oldest first. */
export async function liveMatches(
  q: Executor,
  scope: CompanyScope,
  of: { expectedIds?: string[]; incomingIds?: string[]; entryIds?: number[] },
): Promise<MatchRow[]> {
  const byExpected = of.expectedIds?.length ? inArray(receivableMatches.expectedPaymentId, of.expectedIds) : undefined;
  const byIncoming = of.incomingIds?.length ? inArray(receivableMatches.incomingPaymentId, of.incomingIds) : undefined;
  const byEntry = of.entryIds?.length ? inArray(receivableMatches.unmatchedEntryId, of.entryIds) : undefined;
  if (!byExpected && !byIncoming && !byEntry) return [];
  return q
    .select()
    .from(receivableMatches)
    .where(
      and(
        byExpected,
        byIncoming,
        byEntry,
        inCompanyByKey(receivableMatches, scope),
        isNull(receivableMatches.unmatchedAt),
      ),
    )
    .orderBy(asc(receivableMatches.createdAt), asc(receivableMatches.id));
}

export type SettingsRow = { toleranceAmount: string; tolerancePercent: string; windowDays: number };

export async function findSettings(q: Executor, scope: CompanyScope): Promise<SettingsRow | undefined> {
  const [row] = await q
    .select({
      toleranceAmount: reconciliationSettings.toleranceAmount,
      tolerancePercent: reconciliationSettings.tolerancePercent,
      windowDays: reconciliationSettings.windowDays,
    })
    .from(reconciliationSettings)
    .where(
      and(
        eq(reconciliationSettings.companyId, scope.companyId),
        eq(reconciliationSettings.platformId, scope.platformId),
      ),
    );
  return row;
}

export async function putSettings(q: Executor, scope: CompanyScope, s: SettingsRow, now: Date): Promise<void> {
  await q
    .insert(reconciliationSettings)
    .values({ ...scope, ...s, updatedAt: now })
    .onConflictDoUpdate({ target: reconciliationSettings.companyId, set: { ...s, updatedAt: now } });
}

/** Whether the company has any expected payment of a direction that still takes a match (expected_payments_open_idx). */
export async function hasOpenExpected(
  q: Executor,
  scope: CompanyScope,
  direction: 'credit' | 'debit' = 'credit',
): Promise<boolean> {
  const rows = await q
    .select({ id: expectedPayments.id })
    .from(expectedPayments)
    .where(
      and(
        inCompany(expectedPayments, scope),
        inArray(expectedPayments.status, ['unreconciled', 'partially-reconciled', 'overdue']),
        eq(expectedPayments.direction, direction),
      ),
    )
    .limit(1);
  return rows.length > 0;
}

/** Why the matcher left these credits for a person (ambiguous candidate sets), one UPDATE. */
export async function setReviewNotes(
  q: Executor,
  scope: CompanyScope,
  rows: { id: string; note: string }[],
): Promise<void> {
  if (rows.length === 0) return;
  await q.execute(sql`
    UPDATE incoming_payments p SET review_note = r.note
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS r(id text, note text)
     WHERE p.id = r.id AND p.platform_id = ${scope.platformId} AND p.company_id = ${scope.companyId}`);
}

/** One match, locked (unmatch). */
export async function findMatch(q: Executor, scope: CompanyScope, id: string): Promise<MatchRow | undefined> {
  const [row] = await q
    .select()
    .from(receivableMatches)
    .where(and(eq(receivableMatches.id, id), inCompanyByKey(receivableMatches, scope)))
    .for('update');
  return row;
}

export async function markUnmatched(
  q: Executor,
  scope: CompanyScope,
  id: string,
  by: { actor: string; reason: string; at: Date },
): Promise<MatchRow | undefined> {
  const [row] = await q
    .update(receivableMatches)
    .set({ unmatchedAt: by.at, unmatchedBy: by.actor, unmatchReason: by.reason })
    .where(
      and(
        eq(receivableMatches.id, id),
        inCompanyByKey(receivableMatches, scope),
        isNull(receivableMatches.unmatchedAt),
      ),
    )
    .returning();
  return row;
}

/** Expected payments by id, locked (manual match, unmatch). */
export async function expectedByIds(q: Executor, scope: CompanyScope, ids: string[]): Promise<ExpectedRow[]> {
  if (ids.length === 0) return [];
  return q
    .select()
    .from(expectedPayments)
    .where(and(inArray(expectedPayments.id, ids), inCompanyByKey(expectedPayments, scope)))
    .orderBy(asc(expectedPayments.id))
    .for('update');
}

/** The exceptions queue's credits: unmatched or partly matched, oldest first after `after`. */
export async function openIncoming(
  q: Executor,
  scope: CompanyScope,
  filter: { ambiguous: boolean | null; after?: string | undefined; limit: number },
): Promise<IncomingRow[]> {
  return q
    .select()
    .from(incomingPayments)
    .where(
      and(
        inCompany(incomingPayments, scope),
        inArray(incomingPayments.status, ['unmatched', 'partially-matched']),
        filter.ambiguous === true ? sql`${incomingPayments.reviewNote} IS NOT NULL` : undefined,
        filter.ambiguous === false ? isNull(incomingPayments.reviewNote) : undefined,
        filter.after ? gt(incomingPayments.id, filter.after) : undefined,
      ),
    )
    .orderBy(asc(incomingPayments.id))
    .limit(filter.limit);
}

/** The exceptions queue's overdue expected payments, oldest first after `after`. */
export async function overdueExpected(
  q: Executor,
  scope: CompanyScope,
  filter: { after?: string | undefined; limit: number },
): Promise<ExpectedRow[]> {
  return q
    .select()
    .from(expectedPayments)
    .where(
      and(
        inCompany(expectedPayments, scope),
        eq(expectedPayments.status, 'overdue'),
        filter.after ? gt(expectedPayments.id, filter.after) : undefined,
      ),
    )
    .orderBy(asc(expectedPayments.id))
    .limit(filter.limit);
}

/** Open credit expected payments of a currency nearest to an amount (candidates for a credit). */
export async function nearestExpected(
  q: Executor,
  scope: CompanyScope,
  near: { currency: string; amountMinor: bigint; reference: string | null; limit: number },
): Promise<ExpectedRow[]> {
  return q
    .select()
    .from(expectedPayments)
    .where(
      and(
        inCompany(expectedPayments, scope),
        eq(expectedPayments.currency, near.currency),
        inArray(expectedPayments.status, ['unreconciled', 'partially-reconciled', 'overdue']),
        eq(expectedPayments.direction, 'credit'),
      ),
    )
    .orderBy(
      sql`(${expectedPayments.referenceValue} IS NOT DISTINCT FROM ${near.reference}) DESC`,
      sql`abs(${expectedPayments.amountMinMinor} - ${expectedPayments.matchedMinor} - ${near.amountMinor}::bigint)`,
      asc(expectedPayments.id),
    )
    .limit(near.limit);
}

/** Open credits of a currency nearest to an amount (candidates for an expected payment). */
export async function nearestIncoming(
  q: Executor,
  scope: CompanyScope,
  near: { currency: string; amountMinor: bigint; limit: number },
): Promise<IncomingRow[]> {
  return q
    .select()
    .from(incomingPayments)
    .where(
      and(
        inCompany(incomingPayments, scope),
        eq(incomingPayments.currency, near.currency),
        inArray(incomingPayments.status, ['unmatched', 'partially-matched']),
      ),
    )
    .orderBy(
      sql`abs(${incomingPayments.amountMinor} - ${incomingPayments.matchedMinor} - ${near.amountMinor}::bigint)`,
      asc(incomingPayments.id),
    )
    .limit(near.limit);
}

/** The bank and environment of these statements (what an incoming payment's events name for the filter). */
export async function statementBanks(
  q: Executor,
  scope: CompanyScope,
  documentIds: string[],
): Promise<Map<string, { bankKey: string | null; environment: string }>> {
  if (documentIds.length === 0) return new Map();
  const rows = await q
    .select({ id: journalDocuments.id, bankKey: journalDocuments.bankKey, environment: journalDocuments.environment })
    .from(journalDocuments)
    .where(and(inArray(journalDocuments.id, documentIds), inCompanyByKey(journalDocuments, scope)));
  return new Map(rows.map((r) => [r.id, { bankKey: r.bankKey, environment: r.environment }]));
}
