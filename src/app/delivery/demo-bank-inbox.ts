import type { DemoBankInbox, ReceivedFile } from '../../channels/demo.ts';
import type { Db } from '../../db/client.ts';
import { receiveDemoBankFiles } from '../../db/repositories/demo-bank.ts';
import type { Clock } from '../../platform/clock.ts';
import type { JobQueue } from '../jobs.ts';

/**
 * The demo bank's side of its channel (sandbox): a received file is recorded in the bank's inbox
 * (`demo_bank_files`) and, the first time only, its reply (pain.002 and camt.053) is scheduled as a
 * durable job for `delayMs` later, in the same transaction, with the reply time fixed now: a re-run
 * of the reply writes byte-identical files that ingest dedupes, and a repeated upload is recognised.
 * A delivery batch is received in one transaction (one commit, not one per file: docs/adr/0051):
 * one statement records the files, one schedules their replies.
 */
export function demoBankInbox(parts: { db: Db; jobs: JobQueue; clock: Clock; delayMs: number }): DemoBankInbox {
  const receiveMany = (files: ReceivedFile[]) =>
    parts.db.transaction(async (tx) => {
      const now = parts.clock.now();
      const replyAt = new Date(now.getTime() + parts.delayMs);
      // One row per file name: a name twice in one statement cannot be upserted twice.
      const distinct = [...new Map(files.map((f) => [f.fileName, f])).values()];
      const received = await receiveDemoBankFiles(
        tx,
        distinct.map((file) => ({
          fileName: file.fileName,
          platformId: file.platformId,
          companyId: file.companyId,
          documentId: file.documentId,
          receivedAt: now,
          replyAt,
        })),
      );
      const first = distinct.filter((f) => received.get(f.fileName)?.first === true);
      await parts.jobs.sendMany(
        'demoBankReply',
        first.map((file) => ({
          documentId: file.documentId,
          platformId: file.platformId,
          companyId: file.companyId,
          replyAt: replyAt.toISOString(),
        })),
        { tx, startAfter: replyAt },
      );
      // A name repeated within the batch: its second copy is a repeat.
      const seen = new Set<string>();
      return files.map((f) => {
        const again = seen.has(f.fileName) || received.get(f.fileName)?.first !== true;
        seen.add(f.fileName);
        return { alreadyReceived: again };
      });
    });
  return {
    receive: async (file) => (await receiveMany([file]))[0]!,
    receiveMany,
  };
}
