import { sql } from 'drizzle-orm';
import type { Executor } from '../executor.ts';

/** Rows deleted per statement, so one retention run never holds a huge delete in one transaction. */
const BATCH = 5000;

/**
 * Retention across every tenant (the daily job's own scope): removes journal documents whose expiry
 * has passed, in batches through journal_documents_expiry_idx; payment lines and approvals cascade.
 */
export async function deleteExpiredDocuments(q: Executor, now: Date): Promise<number> {
  let total = 0;
  for (;;) {
    const result = await q.execute(sql`DELETE FROM journal_documents WHERE id IN (
      SELECT id FROM journal_documents WHERE expires_at IS NOT NULL AND expires_at < ${now} LIMIT ${BATCH})`);
    const n = result.rowCount ?? 0;
    total += n;
    if (n < BATCH) return total;
  }
}
