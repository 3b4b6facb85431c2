import { and, eq, inArray, isNull, lt, lte, or, sql } from 'drizzle-orm';
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

/** A file whose answers the demo bank hands out: what it read of it, and the statement booking it. */
export type DemoBankAnswerRow = {
  fileName: string;
  documentId: string;
  replyAt: Date;
  delivered: unknown;
  issuedAs: string | null;
  /** Handed out before (its statement was fixed then). */
  reissued: boolean;
};

const answerColumns = {
  fileName: demoBankFiles.fileName,
  documentId: demoBankFiles.documentId,
  replyAt: demoBankFiles.replyAt,
  delivered: demoBankFiles.delivered,
  issuedAs: demoBankFiles.issuedAs,
};

/**
 * Hands out the answers due by `now` of one company's connection that nobody holds, under a lease
 * until `leaseUntil` (SKIP LOCKED and the lease: two pickups at once take different files), in file
 * name order, at most `limit`. `issue` names the statement of each file handed out for the first
 * time (kept in `issued_as`: a file handed out again books in the same statement, byte for byte).
 */
export async function claimDemoBankAnswers(
  tx: Executor,
  scope: CompanyScope,
  channel: { bankKey: string; environment: string },
  at: { now: Date; leaseUntil: Date; limit: number },
  issue: (fresh: Omit<DemoBankAnswerRow, 'reissued'>[]) => Map<string, string>,
): Promise<DemoBankAnswerRow[]> {
  const rows = await tx
    .select(answerColumns)
    .from(demoBankFiles)
    .where(
      and(
        inCompany(demoBankFiles, scope),
        eq(demoBankFiles.bankKey, channel.bankKey),
        eq(demoBankFiles.environment, channel.environment),
        isNull(demoBankFiles.answeredAt),
        lte(demoBankFiles.replyAt, at.now),
        or(isNull(demoBankFiles.claimedUntil), lt(demoBankFiles.claimedUntil, at.now)),
      ),
    )
    .orderBy(demoBankFiles.fileName)
    .limit(at.limit)
    .for('update', { skipLocked: true });
  if (rows.length === 0) return [];
  const issued = issue(rows.filter((r) => r.issuedAs === null));
  const names = rows.map((r) => r.fileName);
  const issues = rows.map((r) => r.issuedAs ?? issued.get(r.fileName) ?? null);
  await tx.execute(sql`
    UPDATE demo_bank_files AS f SET claimed_until = ${at.leaseUntil}, issued_as = COALESCE(f.issued_as, v.issued_as)
      FROM (SELECT unnest(${sql.param(names)}::text[]) AS file_name, unnest(${sql.param(issues)}::text[]) AS issued_as) AS v
     WHERE f.file_name = v.file_name`);
  return rows.map((r, i) => ({ ...r, issuedAs: issues[i] ?? null, reissued: r.issuedAs !== null }));
}

/**
 * The service collected the answers of these documents' files (their pain.002 and the statement that
 * books them): never handed out again.
 */
export async function markDemoBankFilesAnswered(
  tx: Executor,
  scope: CompanyScope,
  collected: { documentIds: string[]; statements: string[] },
  at: Date,
): Promise<void> {
  if (collected.documentIds.length === 0) return;
  await tx
    .update(demoBankFiles)
    .set({ answeredAt: at, claimedUntil: null })
    .where(
      and(
        inCompany(demoBankFiles, scope),
        inArray(demoBankFiles.documentId, collected.documentIds),
        or(isNull(demoBankFiles.issuedAs), inArray(demoBankFiles.issuedAs, collected.statements)),
        isNull(demoBankFiles.answeredAt),
      ),
    );
}

/**
 * The statement a file's answers were booked in, for files whose answers are collected: a file the
 * bank issued in a statement with others answers with the same statement (the others' files too).
 */
export async function demoBankFilesIssuedAs(
  tx: Executor,
  scope: CompanyScope,
  issues: string[],
): Promise<DemoBankAnswerRow[]> {
  if (issues.length === 0) return [];
  const rows = await tx
    .select(answerColumns)
    .from(demoBankFiles)
    .where(and(inCompany(demoBankFiles, scope), inArray(demoBankFiles.issuedAs, issues)))
    .orderBy(demoBankFiles.fileName);
  return rows.map((r) => ({ ...r, reissued: true }));
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
