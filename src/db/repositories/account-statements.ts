import { and, asc, eq } from 'drizzle-orm';
import type { CompanyScope, Executor } from '../executor.ts';
import { accountStatements, journalDocuments } from '../schema/index.ts';
import { inCompany } from '../tenant.ts';

export type AccountStatementRow = typeof accountStatements.$inferSelect;

export async function insertAccountStatement(tx: Executor, row: typeof accountStatements.$inferInsert): Promise<void> {
  await tx.insert(accountStatements).values(row);
}

/**
 * An account's statement summaries with the journal order of their documents (block order inside a
 * file, ingestion order across files), oldest period first.
 */
export async function listAccountStatements(
  q: Executor,
  scope: CompanyScope,
  accountId: string,
): Promise<Array<AccountStatementRow & { journalNo: string; blockIndex: number | null }>> {
  const rows = await q
    .select({
      statement: accountStatements,
      journalNo: journalDocuments.journalNo,
      blockIndex: journalDocuments.blockIndex,
    })
    .from(accountStatements)
    .innerJoin(journalDocuments, eq(journalDocuments.id, accountStatements.documentId))
    .where(
      and(
        eq(accountStatements.companyId, scope.companyId),
        eq(accountStatements.accountId, accountId),
        inCompany(journalDocuments, scope),
      ),
    )
    .orderBy(asc(accountStatements.toDate), asc(accountStatements.createdAt));
  return rows.map((r) => ({ ...r.statement, journalNo: r.journalNo, blockIndex: r.blockIndex }));
}
