import type { DemoBankPort } from '../channels/demo.ts';
import type { Db } from '../db/client.ts';
import {
  claimDemoBankAnswers,
  demoBankFilesIssuedAs,
  markDemoBankFilesAnswered,
  receiveDemoBankFiles,
} from '../db/repositories/demo-bank.ts';
import type { Clock } from '../platform/clock.ts';
import { createDemoBank } from '../simulators/demo-bank/bank.ts';
import type { DemoBankStore } from '../simulators/demo-bank/store.ts';
import type { JobQueue } from '../workers/jobs.ts';

/**
 * The demo bank wired to its store in the database (`demo_bank_files`) and to the service's job
 * queue: a file's first receipt and the bank's notice that its answers are due (a `demoBankReply`
 * job at the reply time, which starts the pickup of the demo channel: the bank's "files ready"
 * notification) are one commit (docs/adr/0054).
 */
export function demoBank(parts: { db: Db; jobs: JobQueue; clock: Clock; delayMs: number }): DemoBankPort {
  const scope = (c: { platformId: string; companyId: string }) => ({
    platformId: c.platformId,
    companyId: c.companyId,
  });
  const store: DemoBankStore = {
    receive: (customer, rows, at) =>
      parts.db.transaction(async (tx) => {
        // One row per file name: a name twice in one statement cannot be upserted twice.
        const distinct = [...new Map(rows.map((r) => [r.fileName, r])).values()];
        const received = await receiveDemoBankFiles(
          tx,
          distinct.map((r) => ({
            ...r,
            ...scope(customer),
            bankKey: customer.bankKey,
            environment: customer.environment,
            receivedAt: at.now,
            replyAt: at.replyAt,
          })),
        );
        const first = distinct.filter((r) => received.get(r.fileName)?.first === true);
        await parts.jobs.sendMany(
          'demoBankReply',
          first.map((r) => ({ documentId: r.documentId, ...scope(customer), replyAt: at.replyAt.toISOString() })),
          { tx, startAfter: at.replyAt },
        );
        return new Map([...received].map(([name, r]) => [name, r.first]));
      }),
    claim: (customer, at, issue) =>
      parts.db.transaction((tx) => claimDemoBankAnswers(tx, scope(customer), customer, at, issue)),
    issuedAs: (customer, statements) => demoBankFilesIssuedAs(parts.db, scope(customer), statements),
    answered: (customer, collected, at) => markDemoBankFilesAnswered(parts.db, scope(customer), collected, at),
  };
  return createDemoBank({ store, now: () => parts.clock.now(), delayMs: parts.delayMs });
}
