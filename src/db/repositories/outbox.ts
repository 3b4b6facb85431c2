import type { Executor } from '../executor.ts';
import { outboxEvents } from '../schema/index.ts';

export async function insertOutboxEvent(tx: Executor, row: typeof outboxEvents.$inferInsert): Promise<void> {
  await tx.insert(outboxEvents).values(row);
}

/** Several events in one statement (slices of 1,000 rows). */
export async function insertOutboxEvents(tx: Executor, rows: Array<typeof outboxEvents.$inferInsert>): Promise<void> {
  for (let i = 0; i < rows.length; i += 1000) await tx.insert(outboxEvents).values(rows.slice(i, i + 1000));
}
