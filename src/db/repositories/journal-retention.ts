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

/**
 * Retention of the audit trail without breaking its chains: an expired event is removed only when
 * every earlier event of its chain is expired too, so what remains of a chain is always a suffix
 * and still verifies (the verifier trusts the first kept event's prevHash). A chain mixing
 * environments (test events kept one year, production ten) therefore keeps a test event past its
 * expiry while an older production event is still kept. Removing events from the middle
 * (activity-events.ts deleteExpiredEvents) would leave gaps no verifier can tell from tampering.
 */
export async function deleteExpiredEventPrefixes(q: Executor, now: Date): Promise<number> {
  const result = await q.execute(sql`
    WITH kept AS (
      SELECT chain_id, min(seq) AS first_kept FROM activity_events
      WHERE expires_at IS NULL OR expires_at >= ${now}
      GROUP BY chain_id
    )
    DELETE FROM activity_events e
    WHERE e.expires_at IS NOT NULL AND e.expires_at < ${now}
      AND e.seq < coalesce((SELECT k.first_kept FROM kept k WHERE k.chain_id = e.chain_id), 9223372036854775807)`);
  return result.rowCount ?? 0;
}
