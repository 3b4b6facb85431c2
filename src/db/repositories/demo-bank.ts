import { sql } from 'drizzle-orm';
import type { Executor } from '../executor.ts';
import { demoBankFiles } from '../schema/index.ts';

/**
 * Records a file the demo bank received: a new file name is inserted (`first: true`); a repeat only
 * counts one more receipt and keeps the first reply time, so the bank answers each file once.
 */
export async function receiveDemoBankFile(
  tx: Executor,
  row: Omit<typeof demoBankFiles.$inferInsert, 'receipts'>,
): Promise<{ first: boolean; replyAt: Date }> {
  const [saved] = await tx
    .insert(demoBankFiles)
    .values(row)
    .onConflictDoUpdate({ target: demoBankFiles.fileName, set: { receipts: sql`${demoBankFiles.receipts} + 1` } })
    .returning({ receipts: demoBankFiles.receipts, replyAt: demoBankFiles.replyAt });
  return { first: saved!.receipts === 1, replyAt: saved!.replyAt };
}
