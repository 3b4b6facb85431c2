import { and, desc, eq, sql } from 'drizzle-orm';
import type { CompanyScope, Executor } from '../executor.ts';
import { journalCounters, journalDocuments, paymentLines } from '../schema/index.ts';

export type JournalDocumentRow = typeof journalDocuments.$inferSelect;
export type NewJournalDocument = typeof journalDocuments.$inferInsert;
export type PaymentLineRow = typeof paymentLines.$inferSelect;

/**
 * The next journal number of a company and direction (OUT-<n>, IN-<n>, from 1). The counter row
 * stays locked until the caller's transaction ends, so numbers are unique and gap-free on commit.
 */
export async function nextJournalNo(
  tx: Executor,
  companyId: string,
  direction: 'inbound' | 'outbound',
): Promise<string> {
  const [row] = await tx
    .insert(journalCounters)
    .values({ companyId, direction, lastNo: 1 })
    .onConflictDoUpdate({
      target: [journalCounters.companyId, journalCounters.direction],
      set: { lastNo: sql`${journalCounters.lastNo} + 1` },
    })
    .returning({ lastNo: journalCounters.lastNo });
  return `${direction === 'outbound' ? 'OUT' : 'IN'}-${row!.lastNo}`;
}

export async function insertDocument(tx: Executor, row: NewJournalDocument): Promise<JournalDocumentRow> {
  const [created] = await tx.insert(journalDocuments).values(row).returning();
  return created!;
}

export async function findDocument(
  q: Executor,
  scope: CompanyScope,
  id: string,
): Promise<JournalDocumentRow | undefined> {
  const rows = await q
    .select()
    .from(journalDocuments)
    .where(
      and(
        eq(journalDocuments.platformId, scope.platformId),
        eq(journalDocuments.companyId, scope.companyId),
        eq(journalDocuments.id, id),
      ),
    )
    .limit(1);
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
        eq(journalDocuments.platformId, scope.platformId),
        eq(journalDocuments.companyId, scope.companyId),
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
    .where(
      and(
        eq(journalDocuments.platformId, scope.platformId),
        eq(journalDocuments.companyId, scope.companyId),
        eq(journalDocuments.id, id),
      ),
    )
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
    .where(
      and(
        eq(paymentLines.platformId, scope.platformId),
        eq(paymentLines.companyId, scope.companyId),
        eq(paymentLines.documentId, documentId),
      ),
    )
    .orderBy(paymentLines.lineIndex);
}
