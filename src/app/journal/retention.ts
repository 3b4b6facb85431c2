import { foldAllCounts } from '../../db/repositories/journal-counts.ts';
import { deleteExpiredDocuments, deleteExpiredEventPrefixes } from '../../db/repositories/journal-retention.ts';
import type { AppContext } from '../context.ts';

/**
 * The daily journal-retention job (QUEUES.journalRetention): removes journal documents (their
 * payment lines and approvals cascade) and activity events whose expiresAt has passed
 * (src/app/audit/retention-policy.ts). Events go only as a chain's expired prefix, so a chain whose
 * start was removed still verifies: the verifier trusts the first kept event's prevHash
 * (docs/adr/0006-journal-and-audit.md). Then it folds every company's kept document counts (and drops
 * those of removed companies), for companies nobody reads the counts of (docs/adr/0035).
 */
export async function removeExpiredJournal(ctx: AppContext): Promise<{ documents: number; events: number }> {
  const now = ctx.clock.now();
  const documents = await deleteExpiredDocuments(ctx.db, now);
  const events = await deleteExpiredEventPrefixes(ctx.db, now);
  await foldAllCounts(ctx.db);
  if (documents > 0 || events > 0) ctx.logger.info({ documents, events }, 'removed expired journal records');
  return { documents, events };
}
