import { transactionWithRetry } from '../../db/conflict-retry.ts';
import type { Tx } from '../../db/executor.ts';
import { type AuditEvent, recordEvents } from '../audit/record.ts';
import type { AppContext } from '../context.ts';

/**
 * A caller's transaction that ingests several bank files together (the demo bank's replies, a
 * batch at a time): each file's audit events join `audit`, which the caller records last, after
 * every document row (docs/adr/0012).
 */
export type IngestWithin = { tx: Tx; audit: AuditEvent[] };

/**
 * Runs one file's ingest in the caller's transaction when given one, else in a transaction of its
 * own (run again on a deadlock or serialization failure) that records the file's audit events last.
 */
export function inIngestTransaction<T>(
  ctx: AppContext,
  label: string,
  within: IngestWithin | undefined,
  work: (tx: Tx, audit: AuditEvent[]) => Promise<T>,
): Promise<T> {
  if (within) return work(within.tx, within.audit);
  return transactionWithRetry(ctx.db, label, async (tx) => {
    const audit: AuditEvent[] = [];
    const result = await work(tx, audit);
    await recordEvents(ctx, tx, audit);
    return result;
  });
}
