import { transactionWithRetry } from '../../db/conflict-retry.ts';
import type { CompanyScope } from '../../db/executor.ts';
import { lockDemoBankFiles, markDemoBankFilesAnswered } from '../../db/repositories/demo-bank.ts';
import { findDocument } from '../../db/repositories/journal-documents.ts';
import { type DeliveredFile, deliveredFileOf, demoCamt053, demoPain002 } from '../../domain/demo-bank/index.ts';
import { type AuditEvent, recordEvents } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import type { JobPayload } from '../jobs.ts';
import { ingestForCompany } from '../journal/ingest.ts';

export type DemoBankReplyJob = JobPayload<'demoBankReply'>;

type Reply = {
  job: DemoBankReplyJob;
  index: number;
  scope: CompanyScope;
  file: DeliveredFile;
  pain002: string;
  journalNo: string;
  input: ReplyInput;
};
type ReplyInput = {
  companyId: string;
  bankKey: string | undefined;
  environment: 'test' | 'production';
  importSource: string;
};

/**
 * The demo bank's replies to files it received (DESIGN.md, Sandbox and demo bank): for each file a
 * real pain.002, and for the batch one real camt.053 per account, currency and execution date
 * booking every accepted transaction of its files, fed through the same ingest path as any bank's
 * files, so the payments reconcile as real ones would.
 *
 * A batch is answered in one transaction: the bank's inbox rows of its files are locked first (a
 * file already answered is skipped, so a batch run again after a crash adds nothing), each pain.002
 * and each statement is ingested in a savepoint of its own (one that fails rolls back alone and its
 * files are answered `false`: their jobs run again), and the files answered are marked so in the
 * statement's savepoint. Replies go in company and document order and the batch's audit events are
 * recorded last, so batches and the other pipeline writers take their locks in one order
 * (docs/adr/0012, 0013). One commit per batch, one statement ingest per batch and account.
 */
export async function replyAsDemoBankBatch(ctx: AppContext, jobs: DemoBankReplyJob[]): Promise<boolean[]> {
  const done = jobs.map(() => true);
  const replies: Reply[] = [];
  for (const [index, job] of jobs.entries()) {
    const reply = await prepare(ctx, job, index);
    if (reply === 'later') {
      // The bank answers a file only once the service has recorded its delivery: its evidence for a
      // document not known to be delivered would be ignored (docs/adr/0012). Asked again shortly.
      await ctx.jobs.send('demoBankReply', job, { startAfter: new Date(ctx.clock.now().getTime() + RECHECK_MS) });
    } else if (reply) replies.push(reply);
  }
  if (replies.length === 0) return done;
  const byCompany = new Map<string, Reply[]>();
  for (const r of replies.sort((a, b) => order(a.job.documentId, b.job.documentId))) {
    byCompany.set(r.scope.companyId, [...(byCompany.get(r.scope.companyId) ?? []), r]);
  }
  const answered = await transactionWithRetry(ctx.db, 'demo bank replies', async (tx) => {
    const audit: AuditEvent[] = [];
    const ok = new Map<number, boolean>();
    for (const companyId of [...byCompany.keys()].sort(order)) {
      const group = byCompany.get(companyId)!;
      const scope = group[0]!.scope;
      const inbox = await lockDemoBankFiles(
        tx,
        scope,
        group.map((r) => r.job.documentId),
      );
      const reported: Reply[] = [];
      for (const reply of group) {
        if (inbox.get(reply.job.documentId) === true) {
          ok.set(reply.index, true);
          continue;
        }
        const events: AuditEvent[] = [];
        try {
          await tx.transaction((savepoint) =>
            ingestForCompany(ctx, scope, { ...reply.input, content: reply.pain002 }, { tx: savepoint, audit: events }),
          );
          audit.push(...events);
          reported.push(reply);
        } catch (err) {
          ctx.logger.warn(
            { err, documentId: reply.job.documentId },
            'demo bank status report failed; it is tried again',
          );
          ok.set(reply.index, false);
        }
      }
      for (const booked of statementsOf(reported)) {
        const first = booked[0]!;
        const events: AuditEvent[] = [];
        try {
          const sequence = Number(first.journalNo.replace(/\D/g, '')) || 1;
          const content = demoCamt053(
            booked.map((r) => r.file),
            { messageId: `DEMO-STM-${first.job.documentId}`, statementId: `DEMO-${first.job.documentId}`, sequence },
            first.job.replyAt,
          );
          await tx.transaction(async (savepoint) => {
            await ingestForCompany(ctx, scope, { ...first.input, content }, { tx: savepoint, audit: events });
            await markDemoBankFilesAnswered(
              savepoint,
              scope,
              booked.map((r) => r.job.documentId),
              ctx.clock.now(),
            );
          });
          audit.push(...events);
          for (const r of booked) ok.set(r.index, true);
        } catch (err) {
          ctx.logger.warn({ err, documentId: first.job.documentId }, 'demo bank statement failed; it is tried again');
          for (const r of booked) ok.set(r.index, false);
        }
      }
    }
    await recordEvents(ctx, tx, audit);
    return ok;
  });
  for (const [index, ok] of answered) done[index] = ok;
  return done;
}

function order(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The demo bank's statements for a batch: one per account, currency and execution date. */
function statementsOf(replies: Reply[]): Reply[][] {
  const groups = new Map<string, Reply[]>();
  for (const r of replies) {
    const currency = r.file.payments[0]?.transactions[0]?.currency ?? '';
    const key = `${r.input.environment}|${r.input.bankKey}|${r.file.debtorIban}|${currency}|${r.file.executionDate}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  return [...groups.values()];
}

/** One reply alone (tests, tools): throws when it failed. */
export async function replyAsDemoBank(ctx: AppContext, job: DemoBankReplyJob): Promise<void> {
  const [ok] = await replyAsDemoBankBatch(ctx, [job]);
  if (!ok) throw new Error(`the demo bank's reply to ${job.documentId} failed`);
}

/** How soon a reply whose delivery is not recorded yet is looked at again. */
const RECHECK_MS = 1000;

/**
 * The reply's files, written outside the transaction; none for a document that is gone or
 * cancelled; `later` while its delivery is not recorded (the upload and its record are two steps).
 */
async function prepare(ctx: AppContext, job: DemoBankReplyJob, index: number): Promise<Reply | 'later' | undefined> {
  const scope: CompanyScope = { platformId: job.platformId, companyId: job.companyId };
  const doc = await findDocument(ctx.db, scope, job.documentId);
  if (!doc?.payloadSealed || doc.status === 'cancelled') return undefined;
  if (doc.deliveryStatus === 'in-progress' || doc.deliveryStatus === 'retrying') return 'later';
  const file = deliveredFileOf(JSON.parse(ctx.encryptor.decrypt(doc.payloadSealed)), doc.sourceFormat);
  return {
    job,
    index,
    scope,
    file,
    pain002: demoPain002(file, `DEMO-STS-${doc.id}`, job.replyAt),
    journalNo: doc.journalNo,
    input: {
      companyId: job.companyId,
      bankKey: doc.bankKey ?? undefined,
      environment: doc.environment === 'test' ? 'test' : 'production',
      importSource: 'demo-bank',
    },
  };
}
