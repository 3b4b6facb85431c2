import { sql } from 'drizzle-orm';
import type { CompanyScope, Executor } from '../executor.ts';

/**
 * Per-company document counts by (direction, type, status, collected), kept by the statement-level
 * triggers of src/db/functions/080_journal_document_counts.sql as signed delta rows in the writing
 * transaction (docs/adr/0035). A read
 * sums them; `fold` replaces a company's rows by one per key.
 */
export type CountKey = { direction: string; type: string; status: string; collected: boolean; n: number };

export type CompanyCounts = { keys: CountKey[]; rows: number };

type KeyRow = { direction: string; type: string; status: string; collected: boolean; n: string; rows: string };

/** The company's keys with a non-zero count, and how many delta rows they were summed from. */
export async function readCompanyCounts(q: Executor, scope: CompanyScope): Promise<CompanyCounts> {
  const result = await q.execute<KeyRow>(sql`
    SELECT direction, type, status, collected, sum(n)::text AS n, count(*)::text AS rows
      FROM journal_document_counts
     WHERE company_id = ${scope.companyId} AND platform_id = ${scope.platformId}
     GROUP BY 1, 2, 3, 4`);
  let rows = 0;
  const keys: CountKey[] = [];
  for (const r of result.rows) {
    rows += Number(r.rows);
    const n = Number(r.n);
    if (n !== 0) keys.push({ direction: r.direction, type: r.type, status: r.status, collected: r.collected, n });
  }
  return { keys, rows };
}

/**
 * Folds the company's delta rows into one row per key (dropping keys at zero). Rows another fold holds
 * are skipped, never waited for, so two folds cannot deadlock; rows written meanwhile stay for the
 * next fold. The sum over the company is the same before and after, at every snapshot.
 */
export async function foldCompanyCounts(q: Executor, scope: CompanyScope): Promise<void> {
  await q.execute(sql`
    WITH taken AS (
      DELETE FROM journal_document_counts
       WHERE ctid IN (SELECT ctid FROM journal_document_counts
                       WHERE company_id = ${scope.companyId} AND platform_id = ${scope.platformId}
                         FOR UPDATE SKIP LOCKED)
      RETURNING platform_id, company_id, direction, type, status, collected, n)
    INSERT INTO journal_document_counts (platform_id, company_id, direction, type, status, collected, n)
    SELECT platform_id, company_id, direction, type, status, collected, sum(n)
      FROM taken GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(n) <> 0`);
}

/**
 * Folds every company's rows and drops those of companies that no longer exist (their documents went
 * with them): the daily sweep, for companies whose counts nobody reads.
 */
export async function foldAllCounts(q: Executor): Promise<void> {
  await q.execute(sql`
    WITH taken AS (
      DELETE FROM journal_document_counts
       WHERE ctid IN (SELECT ctid FROM journal_document_counts FOR UPDATE SKIP LOCKED)
      RETURNING platform_id, company_id, direction, type, status, collected, n)
    INSERT INTO journal_document_counts (platform_id, company_id, direction, type, status, collected, n)
    SELECT platform_id, company_id, direction, type, status, collected, sum(n)
      FROM taken
     WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = taken.company_id)
     GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(n) <> 0`);
}
