import { transactionWithRetry } from '../../db/conflict-retry.ts';
import type { CompanyScope, Tx } from '../../db/executor.ts';
import {
  type DemoBankDocument,
  lockDemoBankFiles,
  markDemoBankFilesAnswered,
  readDemoBankDocuments,
} from '../../db/repositories/demo-bank.ts';
import { type DeliveredFile, deliveredFileOf, demoCamt053, demoPain002 } from '../../domain/demo-bank/index.ts';
import { type AuditEvent, recordEvents } from '../audit/record.ts';
import { type PreparedHandle, prepareInWorker } from '../bank-files/file-worker.ts';
import { type IncomingBankFile, receiveBankFiles } from '../bank-files/receive.ts';
import type { AppContext } from '../context.ts';
import type { JobPayload } from '../jobs.ts';

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
type ReplyInput = Omit<IncomingBankFile, 'content'>;

/**
 * The demo bank's replies to files it received (DESIGN.md, Sandbox and demo bank): for each file a
 * real pain.002, and for the batch one real camt.053 per account, currency and execution date
 * booking every accepted transaction of its files, fed through the same ingest path as any bank's
 * files, so the payments reconcile as real ones would.
 *
 * A batch is answered in one transaction: the bank's inbox rows of its files are locked first (a
 * file already answered is skipped, so a batch run again after a crash adds nothing), the pain.002
 * files of each company are journaled set-wise (docs/adr/0051), each statement is ingested, and the
 * files answered are marked so with their statement. When a file fails, the batch is answered again
 * with each pain.002 and statement in a savepoint of its own (one that fails rolls back alone and
 * its files are answered `false`: their jobs run again). Replies go in company and document order and the batch's audit events are
 * recorded last, so batches and the other pipeline writers take their locks in one order
 * (docs/adr/0012, 0013). One commit per batch, one statement ingest per batch and account.
 */
export async function replyAsDemoBankBatch(ctx: AppContext, jobs: DemoBankReplyJob[]): Promise<boolean[]> {
  const done = jobs.map(() => true);
  const { replies, later } = await prepareAll(ctx, jobs);
  if (later.length > 0) {
    // The bank answers a file only once the service has recorded its delivery: its evidence for a
    // document not known to be delivered would be ignored (docs/adr/0012). Asked again shortly.
    await ctx.jobs.sendMany('demoBankReply', later, { startAfter: new Date(ctx.clock.now().getTime() + RECHECK_MS) });
  }
  if (replies.length === 0) return done;
  const byCompany = new Map<string, Reply[]>();
  for (const r of replies.sort((a, b) => order(a.job.documentId, b.job.documentId))) {
    byCompany.set(r.scope.companyId, [...(byCompany.get(r.scope.companyId) ?? []), r]);
  }
  // Every file of the batch is parsed and sealed in the file worker before the transaction opens:
  // from its first report to its commit the transaction holds the company's inbound journal counter,
  // and every other reply batch of the company (of this process or another) waits for it meanwhile.
  const files = await prepareFiles(ctx, byCompany);
  try {
    // First without a savepoint per file (two round trips each); when a file fails, the batch is
    // rolled back whole and answered again with each file in a savepoint of its own, so that only
    // the failing file's job runs again.
    let answered: Map<number, boolean>;
    try {
      answered = await answerBatch(ctx, byCompany, files, false);
    } catch (err) {
      if (!(err instanceof FileFailed)) throw err;
      // Said at warn: a batch that always fails set-wise still answers, but at the cost of a file at a time.
      ctx.logger.warn({ err: err.cause, files: replies.length }, 'demo bank reply batch answered again file by file');
      answered = await answerBatch(ctx, byCompany, files, true);
    }
    for (const [index, ok] of answered) done[index] = ok;
    return done;
  } finally {
    for (const handle of files.all) handle.release();
  }
}

/** A file of a batch answered without savepoints failed: the batch is answered again, isolated. */
class FileFailed extends Error {}

function answerBatch(
  ctx: AppContext,
  byCompany: Map<string, Reply[]>,
  files: PreparedFiles,
  isolated: boolean,
): Promise<Map<number, boolean>> {
  return transactionWithRetry(ctx.db, 'demo bank replies', async (tx) => {
    const inStep = <T>(work: (q: Tx) => Promise<T>): Promise<T> => (isolated ? tx.transaction(work) : work(tx));
    const failed = (err: unknown) => {
      if (!isolated) throw new FileFailed('a demo bank reply failed', { cause: err });
    };
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
      const unanswered = group.filter((reply) => {
        if (inbox.get(reply.job.documentId) !== true) return true;
        ok.set(reply.index, true);
        return false;
      });
      // The reports set-wise, one statement per table for the batch (docs/adr/0051), through the
      // bank-files entry point in this transaction; in an isolated run each report in a savepoint.
      const step = async (batch: Reply[], q: Tx, events: AuditEvent[]) => {
        const received = await receiveBankFiles(
          ctx,
          scope,
          batch.map((reply) => ({ ...reply.input, content: files.reports.get(reply.index)! })),
          { within: { tx: q, audit: events } },
        );
        const failure = received.find((r) => !r.ok);
        if (failure) throw failure.error;
      };
      if (!isolated) {
        try {
          await step(unanswered, tx, audit);
          reported.push(...unanswered);
        } catch (err) {
          failed(err);
        }
      } else {
        for (const reply of unanswered) {
          const events: AuditEvent[] = [];
          try {
            await tx.transaction((savepoint) => step([reply], savepoint, events));
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
      }
      for (const booked of statementsOf(reported)) {
        const first = booked[0]!;
        const events: AuditEvent[] = [];
        try {
          // Prepared beforehand for the statement as planned; made here when a file of it was
          // answered already or its report failed (the statement books what was reported).
          const handle = files.statements.get(statementKeyOf(booked)) ?? (await prepareStatement(ctx, booked, files));
          await inStep(async (savepoint) => {
            const [received] = await receiveBankFiles(ctx, scope, [{ ...first.input, content: handle }], {
              within: { tx: savepoint, audit: events },
            });
            if (!received!.ok) throw received!.error;
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
          failed(err);
          ctx.logger.warn({ err, documentId: first.job.documentId }, 'demo bank statement failed; it is tried again');
          for (const r of booked) ok.set(r.index, false);
        }
      }
    }
    await recordEvents(ctx, tx, audit);
    return ok;
  });
}

type PreparedFiles = {
  /** Each reply's pain.002, by the reply's index. */
  reports: Map<number, PreparedHandle>;
  /** Each planned statement, by statementKeyOf its replies. */
  statements: Map<string, PreparedHandle>;
  /** Every handle, to release. */
  all: PreparedHandle[];
};

const statementKeyOf = (booked: Reply[]) => booked.map((r) => r.index).join(',');

/** The batch's pain.002 files and the statements it plans, parsed and sealed in the file worker. */
async function prepareFiles(ctx: AppContext, byCompany: Map<string, Reply[]>): Promise<PreparedFiles> {
  const files: PreparedFiles = { reports: new Map(), statements: new Map(), all: [] };
  const key = ctx.encryptor.sealingKey;
  const pending: Promise<void>[] = [];
  for (const group of byCompany.values()) {
    for (const reply of group) {
      pending.push(
        prepareInWorker(reply.pain002, key).then((handle) => {
          files.all.push(handle);
          files.reports.set(reply.index, handle);
        }),
      );
    }
    for (const booked of statementsOf(group)) {
      pending.push(
        prepareInWorker(statementOf(booked), key).then((handle) => {
          files.all.push(handle);
          files.statements.set(statementKeyOf(booked), handle);
        }),
      );
    }
  }
  const results = await Promise.allSettled(pending);
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) {
    for (const handle of files.all) handle.release();
    throw failed.reason;
  }
  return files;
}

async function prepareStatement(ctx: AppContext, booked: Reply[], files: PreparedFiles): Promise<PreparedHandle> {
  const handle = await prepareInWorker(statementOf(booked), ctx.encryptor.sealingKey);
  files.all.push(handle);
  return handle;
}

/** The demo bank's camt.053 booking every accepted transaction of these files. */
function statementOf(booked: Reply[]): string {
  const first = booked[0]!;
  const sequence = Number(first.journalNo.replace(/\D/g, '')) || 1;
  return demoCamt053(
    booked.map((r) => r.file),
    { messageId: `DEMO-STM-${first.job.documentId}`, statementId: `DEMO-${first.job.documentId}`, sequence },
    first.job.replyAt,
  );
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
 * The replies' files, written outside the transaction from one read of the batch's documents per
 * company: none for a document that is gone or cancelled; `later` while its delivery is not
 * recorded (the upload and its record are two steps).
 */
async function prepareAll(
  ctx: AppContext,
  jobs: DemoBankReplyJob[],
): Promise<{ replies: Reply[]; later: DemoBankReplyJob[] }> {
  const replies: Reply[] = [];
  const later: DemoBankReplyJob[] = [];
  const byCompany = new Map<string, { scope: CompanyScope; ids: string[] }>();
  for (const job of jobs) {
    const key = `${job.platformId}\u0000${job.companyId}`;
    const group = byCompany.get(key) ?? { scope: { platformId: job.platformId, companyId: job.companyId }, ids: [] };
    group.ids.push(job.documentId);
    byCompany.set(key, group);
  }
  const docs = new Map<string, DemoBankDocument>();
  for (const { scope, ids } of byCompany.values()) {
    for (const [id, doc] of await readDemoBankDocuments(ctx.db, scope, ids))
      docs.set(`${scope.companyId}\u0000${id}`, doc);
  }
  for (const [index, job] of jobs.entries()) {
    const doc = docs.get(`${job.companyId}\u0000${job.documentId}`);
    if (!doc?.payloadSealed || doc.status === 'cancelled') continue;
    if (doc.deliveryStatus === 'in-progress' || doc.deliveryStatus === 'retrying') {
      later.push(job);
      continue;
    }
    const file = deliveredFileOf(JSON.parse(ctx.encryptor.decrypt(doc.payloadSealed)), doc.sourceFormat);
    replies.push({
      job,
      index,
      scope: { platformId: job.platformId, companyId: job.companyId },
      file,
      pain002: demoPain002(file, `DEMO-STS-${doc.id}`, job.replyAt),
      journalNo: doc.journalNo,
      input: {
        bankKey: doc.bankKey ?? undefined,
        environment: doc.environment === 'test' ? 'test' : 'production',
        source: 'demo-bank',
      },
    });
  }
  return { replies, later };
}
