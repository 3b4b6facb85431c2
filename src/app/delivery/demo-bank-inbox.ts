import type { DemoBankInbox } from '../../channels/demo.ts';
import type { Db } from '../../db/client.ts';
import { receiveDemoBankFile } from '../../db/repositories/demo-bank.ts';
import type { Clock } from '../../platform/clock.ts';
import type { JobQueue } from '../jobs.ts';

/**
 * The demo bank's side of its channel (sandbox): a received file is recorded in the bank's inbox
 * (`demo_bank_files`) and, the first time only, its reply (pain.002 and camt.053) is scheduled as a
 * durable job for `delayMs` later, in the same transaction, with the reply time fixed now: a re-run
 * of the reply writes byte-identical files that ingest dedupes, and a repeated upload is recognised.
 */
export function demoBankInbox(parts: { db: Db; jobs: JobQueue; clock: Clock; delayMs: number }): DemoBankInbox {
  return {
    receive: (file) =>
      parts.db.transaction(async (tx) => {
        const now = parts.clock.now();
        const received = await receiveDemoBankFile(tx, {
          fileName: file.fileName,
          platformId: file.platformId,
          companyId: file.companyId,
          documentId: file.documentId,
          receivedAt: now,
          replyAt: new Date(now.getTime() + parts.delayMs),
        });
        if (received.first) {
          await parts.jobs.send(
            'demoBankReply',
            {
              documentId: file.documentId,
              platformId: file.platformId,
              companyId: file.companyId,
              replyAt: received.replyAt.toISOString(),
            },
            { tx, startAfter: received.replyAt },
          );
        }
        return { alreadyReceived: !received.first };
      }),
  };
}
