import { and, desc, eq, sql } from 'drizzle-orm';
import type { CompanyScope, Executor } from '../executor.ts';
import { journalDocuments, paymentLines } from '../schema/index.ts';
import { inCompany } from '../tenant.ts';

export type JournalDocumentRow = typeof journalDocuments.$inferSelect;
export type NewJournalDocument = typeof journalDocuments.$inferInsert;
export type PaymentLineRow = typeof paymentLines.$inferSelect;

/**
 * The next journal number of a company and direction (OUT-<n>, IN-<n>, from 1), from the
 * next_journal_no() function of migration 0006. The counter row stays locked until the caller's
 * transaction ends, so numbers are unique and gap-free on commit.
 */
export async function nextJournalNo(
  tx: Executor,
  companyId: string,
  direction: 'inbound' | 'outbound',
): Promise<string> {
  const result = await tx.execute<{ no: string }>(sql`SELECT next_journal_no(${companyId}, ${direction}) AS no`);
  return result.rows[0]!.no;
}

/** Inserts a document whose journal number was taken with nextJournalNo in the same transaction. */
export async function insertDocument(tx: Executor, row: NewJournalDocument): Promise<JournalDocumentRow> {
  const [created] = await tx.insert(journalDocuments).values(row).returning();
  return created!;
}

export async function findDocument(
  q: Executor,
  scope: CompanyScope,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<JournalDocumentRow | undefined> {
  const query = q
    .select()
    .from(journalDocuments)
    .where(and(inCompany(journalDocuments, scope), eq(journalDocuments.id, id)))
    .limit(1);
  const rows = options.forUpdate ? await query.for('update') : await query;
  return rows[0];
}

/** The newest outbound document of a company carrying `messageId`. */
export async function findOutboundByMessageId(
  q: Executor,
  scope: CompanyScope,
  messageId: string,
): Promise<JournalDocumentRow | undefined> {
  const rows = await q
    .select()
    .from(journalDocuments)
    .where(
      and(
        inCompany(journalDocuments, scope),
        eq(journalDocuments.direction, 'outbound'),
        eq(journalDocuments.messageId, messageId),
      ),
    )
    .orderBy(desc(journalDocuments.createdAt))
    .limit(1);
  return rows[0];
}

export async function updateDocument(
  q: Executor,
  scope: CompanyScope,
  id: string,
  patch: Partial<
    Pick<NewJournalDocument, 'status' | 'deliveryStatus' | 'details' | 'updatedAt' | 'collected' | 'collectedAt'>
  >,
): Promise<JournalDocumentRow | undefined> {
  const [row] = await q
    .update(journalDocuments)
    .set(patch)
    .where(and(inCompany(journalDocuments, scope), eq(journalDocuments.id, id)))
    .returning();
  return row;
}

export async function insertPaymentLines(tx: Executor, rows: Array<typeof paymentLines.$inferInsert>): Promise<void> {
  // Large batches go in slices: one INSERT has at most 65,535 parameters.
  for (let i = 0; i < rows.length; i += 2000) await tx.insert(paymentLines).values(rows.slice(i, i + 2000));
}

export async function listPaymentLines(
  q: Executor,
  scope: CompanyScope,
  documentId: string,
): Promise<PaymentLineRow[]> {
  return q
    .select()
    .from(paymentLines)
    .where(and(inCompany(paymentLines, scope), eq(paymentLines.documentId, documentId)))
    .orderBy(paymentLines.lineIndex);
}

/**
 * Serialises ingests of the same file content for a company until the caller's transaction ends,
 * so two identical ingests at once journal it once (the second sees the first's documents).
 */
export async function lockInboundContent(tx: Executor, companyId: string, contentDigest: string): Promise<void> {
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${`ingest:${companyId}:${contentDigest}`}, 0))`);
}

/** The inbound documents journaled from one file content, in block order. */
export async function findInboundByDigest(
  q: Executor,
  scope: CompanyScope,
  contentDigest: string,
): Promise<JournalDocumentRow[]> {
  return q
    .select()
    .from(journalDocuments)
    .where(
      and(
        inCompany(journalDocuments, scope),
        eq(journalDocuments.direction, 'inbound'),
        eq(journalDocuments.contentDigest, contentDigest),
      ),
    )
    .orderBy(journalDocuments.blockIndex);
}

/** An inbound statement document already journaled with this statement key (details.statementKey). */
export async function findInboundByStatementKey(
  q: Executor,
  scope: CompanyScope,
  messageId: string,
  statementKey: string,
): Promise<JournalDocumentRow | undefined> {
  const rows = await q
    .select()
    .from(journalDocuments)
    .where(
      and(
        inCompany(journalDocuments, scope),
        eq(journalDocuments.messageId, messageId),
        eq(journalDocuments.direction, 'inbound'),
        sql`${journalDocuments.details}->>'statementKey' = ${statementKey}`,
      ),
    )
    .limit(1);
  return rows[0];
}

/** The document, locked until the caller's transaction ends. */
export async function lockDocument(
  tx: Executor,
  scope: CompanyScope,
  id: string,
): Promise<JournalDocumentRow | undefined> {
  return findDocument(tx, scope, id, { forUpdate: true });
}

/**
 * The outbound document whose payment lines carry the most of these end-to-end ids (newest on a
 * tie), or undefined when none does.
 */
export async function findOutboundByEndToEndIds(
  q: Executor,
  scope: CompanyScope,
  endToEndIds: string[],
): Promise<string | undefined> {
  if (endToEndIds.length === 0) return undefined;
  const rows = await q
    .select({ documentId: paymentLines.documentId, n: sql<number>`count(*)::int` })
    .from(paymentLines)
    .innerJoin(journalDocuments, eq(journalDocuments.id, paymentLines.documentId))
    .where(
      and(
        inCompany(paymentLines, scope),
        sql`${paymentLines.endToEndId} IN ${endToEndIds}`,
        eq(journalDocuments.direction, 'outbound'),
      ),
    )
    .groupBy(paymentLines.documentId, journalDocuments.createdAt)
    .orderBy(sql`count(*) DESC`, desc(journalDocuments.createdAt))
    .limit(1);
  return rows[0]?.documentId;
}

/** Sets state and evidence of several lines of one document in one statement. */
export async function updatePaymentLineStates(
  tx: Executor,
  scope: CompanyScope,
  documentId: string,
  changes: Array<{ index: number; state: string; evidence: Record<string, unknown> }>,
  updatedAt: Date,
): Promise<void> {
  for (let i = 0; i < changes.length; i += 5000) {
    const slice = changes.slice(i, i + 5000).map((c) => ({ idx: c.index, state: c.state, evidence: c.evidence }));
    await tx.execute(sql`
      UPDATE payment_lines AS p
         SET state = u.state, evidence = u.evidence, updated_at = ${updatedAt}
        FROM jsonb_to_recordset(${JSON.stringify(slice)}::jsonb) AS u(idx int, state text, evidence jsonb)
       WHERE p.document_id = ${documentId}
         AND p.platform_id = ${scope.platformId}
         AND p.company_id = ${scope.companyId}
         AND p.line_index = u.idx`);
  }
}

/** Merges keys into a document's details (jsonb `||`). */
export async function mergeDocumentDetails(
  tx: Executor,
  scope: CompanyScope,
  id: string,
  patch: Record<string, unknown>,
): Promise<void> {
  await tx
    .update(journalDocuments)
    .set({ details: sql`coalesce(${journalDocuments.details}, '{}'::jsonb) || ${JSON.stringify(patch)}::jsonb` })
    .where(and(inCompany(journalDocuments, scope), eq(journalDocuments.id, id)));
}
