import type { Executor } from '../executor.ts';
import { outboxEvents } from '../schema/index.ts';

export async function insertOutboxEvent(tx: Executor, row: typeof outboxEvents.$inferInsert): Promise<void> {
  await tx.insert(outboxEvents).values(row);
}
