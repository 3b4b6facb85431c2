import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { LineState } from '../../domain/lifecycle/index.ts';
import type { CompanyScope, Executor } from '../executor.ts';
import { journalDocuments, lineMatches, paymentLines, unmatchedEntries } from '../schema/index.ts';
import { inCompany, inCompanyByKey } from '../tenant.ts';

/** Manual matches of statement debits to outbound lines (docs/adr/0076); every query in its company. */
export type LineMatchRow = typeof lineMatches.$inferSelect;
export type EntryRow = typeof unmatchedEntries.$inferSelect;

/** The statement entry `{documentId, entryIndex}`, locked. */
export async function entryAt(
  q: Executor,
  scope: CompanyScope,
  at: { documentId: string; entryIndex: number },
): Promise<EntryRow | undefined> {
  const [row] = await q
    .select()
    .from(unmatchedEntries)
    .where(
      and(
        inCompany(unmatchedEntries, scope),
        eq(unmatchedEntries.documentId, at.documentId),
        eq(unmatchedEntries.entryIndex, at.entryIndex),
      ),
    )
    .for('update');
  return row;
}

export async function entryById(q: Executor, scope: CompanyScope, id: number): Promise<EntryRow | undefined> {
  const [row] = await q
    .select()
    .from(unmatchedEntries)
    .where(and(eq(unmatchedEntries.id, id), inCompanyByKey(unmatchedEntries, scope)))
    .for('update');
  return row;
}

export type MatchLine = {
  documentId: string;
  lineIndex: number;
  state: LineState;
  evidence: Record<string, unknown> | null;
  amount: string;
  amountMinor: bigint;
  currency: string;
  endToEndId: string | null;
  executionDate: string | null;
  openUntil: Date | null;
  direction: string;
  documentStatus: string;
  deliveryMode: string | null;
  journalNo: string;
};

/** These outbound lines of the company, locked (documents first: docs/adr/0012's lock order). */
export async function linesAt(
  q: Executor,
  scope: CompanyScope,
  at: { documentId: string; index: number }[],
): Promise<MatchLine[]> {
  if (at.length === 0) return [];
  const documentIds = [...new Set(at.map((l) => l.documentId))].sort();
  await q
    .select({ id: journalDocuments.id })
    .from(journalDocuments)
    .where(and(inCompanyByKey(journalDocuments, scope), inArray(journalDocuments.id, documentIds)))
    .orderBy(journalDocuments.id)
    .for('update');
  const pairs = JSON.stringify(at.map((l) => ({ doc: l.documentId, idx: l.index })));
  return q
    .select({
      documentId: paymentLines.documentId,
      lineIndex: paymentLines.lineIndex,
      state: paymentLines.state,
      evidence: paymentLines.evidence,
      amount: paymentLines.amount,
      amountMinor: paymentLines.amountMinor,
      currency: paymentLines.currency,
      endToEndId: paymentLines.endToEndId,
      executionDate: paymentLines.executionDate,
      openUntil: paymentLines.openUntil,
      direction: journalDocuments.direction,
      documentStatus: journalDocuments.status,
      deliveryMode: journalDocuments.deliveryMode,
      journalNo: journalDocuments.journalNo,
    })
    .from(paymentLines)
    .innerJoin(journalDocuments, eq(journalDocuments.id, paymentLines.documentId))
    .where(
      and(
        inCompany(paymentLines, scope),
        sql`(${paymentLines.documentId}, ${paymentLines.lineIndex}) IN
            (SELECT r.doc, r.idx FROM jsonb_to_recordset(${pairs}::jsonb) AS r(doc text, idx int))`,
      ),
    )
    .for('update', { of: paymentLines });
}

/** A line's state and evidence, and its answer window (null: settled; a date: back in flight). */
export async function setLine(
  q: Executor,
  scope: CompanyScope,
  line: { documentId: string; index: number },
  set: { state: LineState; evidence: Record<string, unknown> | null; openUntil: Date | null; at: Date },
): Promise<void> {
  await q
    .update(paymentLines)
    .set({ state: set.state, evidence: set.evidence, openUntil: set.openUntil, updatedAt: set.at })
    .where(
      and(
        inCompany(paymentLines, scope),
        eq(paymentLines.documentId, line.documentId),
        eq(paymentLines.lineIndex, line.index),
      ),
    );
}

export async function insertLineMatch(q: Executor, row: typeof lineMatches.$inferInsert): Promise<LineMatchRow> {
  const [inserted] = await q.insert(lineMatches).values(row).returning();
  return inserted!;
}

/** A live match of this entry, if any (the partial unique index allows one). */
export async function liveLineMatchOf(q: Executor, scope: CompanyScope, entryId: number): Promise<boolean> {
  const rows = await q
    .select({ id: lineMatches.id })
    .from(lineMatches)
    .where(
      and(inCompany(lineMatches, scope), eq(lineMatches.unmatchedEntryId, entryId), isNull(lineMatches.unmatchedAt)),
    );
  return rows.length > 0;
}

export async function findLineMatch(q: Executor, scope: CompanyScope, id: string): Promise<LineMatchRow | undefined> {
  const [row] = await q
    .select()
    .from(lineMatches)
    .where(and(eq(lineMatches.id, id), inCompanyByKey(lineMatches, scope)))
    .for('update');
  return row;
}

export async function markLineUnmatched(
  q: Executor,
  scope: CompanyScope,
  id: string,
  by: { actor: string; reason: string; at: Date },
): Promise<LineMatchRow | undefined> {
  const [row] = await q
    .update(lineMatches)
    .set({ unmatchedAt: by.at, unmatchedBy: by.actor, unmatchReason: by.reason })
    .where(and(eq(lineMatches.id, id), inCompanyByKey(lineMatches, scope), isNull(lineMatches.unmatchedAt)))
    .returning();
  return row;
}

/** The entry leaves the unmatched list (matched by a person), or comes back to it (unmatched). */
export async function setEntryMatched(
  q: Executor,
  scope: CompanyScope,
  id: number,
  matched: { documentId: string; at: Date } | null,
): Promise<void> {
  await q
    .update(unmatchedEntries)
    .set({ matchedDocumentId: matched?.documentId ?? null, matchedAt: matched?.at ?? null })
    .where(and(eq(unmatchedEntries.id, id), inCompanyByKey(unmatchedEntries, scope)));
}
