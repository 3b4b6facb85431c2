import { and, inArray, sql } from 'drizzle-orm';
import type { CompanyScope, Executor } from '../executor.ts';
import { demoBankFiles, journalDocuments } from '../schema/index.ts';
import { inCompany, inCompanyByKey } from '../tenant.ts';

/**
 * Records files the demo bank received, in one statement (distinct file names): a new file name is
 * inserted (`first: true`); a repeat only counts one more receipt and keeps the first reply time, so
 * the bank answers each file once. By file name.
 */
export async function receiveDemoBankFiles(
  tx: Executor,
  rows: Omit<typeof demoBankFiles.$inferInsert, 'receipts'>[],
): Promise<Map<string, { first: boolean; replyAt: Date }>> {
  if (rows.length === 0) return new Map();
  const saved = await tx
    .insert(demoBankFiles)
    .values(rows)
    .onConflictDoUpdate({ target: demoBankFiles.fileName, set: { receipts: sql`${demoBankFiles.receipts} + 1` } })
    .returning({ fileName: demoBankFiles.fileName, receipts: demoBankFiles.receipts, replyAt: demoBankFiles.replyAt });
  return new Map(saved.map((r) => [r.fileName, { first: r.receipts === 1, replyAt: r.replyAt }]));
}

/**
 * Locks the demo bank's inbox rows of these documents (file name order) and answers, per document
 * that has one, whether its reply was written already. A document without a row (a file received
 * before the inbox existed) is absent.
 */
export async function lockDemoBankFiles(
  tx: Executor,
  scope: CompanyScope,
  documentIds: string[],
): Promise<Map<string, boolean>> {
  if (documentIds.length === 0) return new Map();
  const rows = await tx
    .select({ documentId: demoBankFiles.documentId, answeredAt: demoBankFiles.answeredAt })
    .from(demoBankFiles)
    .where(and(inCompany(demoBankFiles, scope), inArray(demoBankFiles.documentId, documentIds)))
    .orderBy(demoBankFiles.fileName)
    .for('update');
  const answered = new Map<string, boolean>();
  for (const r of rows) answered.set(r.documentId, (answered.get(r.documentId) ?? false) || r.answeredAt !== null);
  return answered;
}

/** Marks the files of these documents answered (in the transaction that wrote the reply). */
export async function markDemoBankFilesAnswered(
  tx: Executor,
  scope: CompanyScope,
  documentIds: string[],
  at: Date,
): Promise<void> {
  if (documentIds.length === 0) return;
  await tx
    .update(demoBankFiles)
    .set({ answeredAt: at })
    .where(and(inCompany(demoBankFiles, scope), inArray(demoBankFiles.documentId, documentIds)));
}

/** What the demo bank reads of a document it answers: its sealed payload and where it stands. */
export type DemoBankDocument = Pick<
  typeof journalDocuments.$inferSelect,
  'id' | 'journalNo' | 'status' | 'deliveryStatus' | 'payloadSealed' | 'sourceFormat' | 'bankKey' | 'environment'
>;

/** The documents a batch of replies answers, in one read (no lock: the reply transaction locks). */
export async function readDemoBankDocuments(
  q: Executor,
  scope: CompanyScope,
  documentIds: string[],
): Promise<Map<string, DemoBankDocument>> {
  if (documentIds.length === 0) return new Map();
  const rows = await q
    .select({
      id: journalDocuments.id,
      journalNo: journalDocuments.journalNo,
      status: journalDocuments.status,
      deliveryStatus: journalDocuments.deliveryStatus,
      payloadSealed: journalDocuments.payloadSealed,
      sourceFormat: journalDocuments.sourceFormat,
      bankKey: journalDocuments.bankKey,
      environment: journalDocuments.environment,
    })
    .from(journalDocuments)
    .where(and(inCompanyByKey(journalDocuments, scope), inArray(journalDocuments.id, documentIds)));
  return new Map(rows.map((r) => [r.id, r]));
}
