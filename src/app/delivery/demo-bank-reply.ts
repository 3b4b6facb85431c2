import { transactionWithRetry } from '../../db/conflict-retry.ts';
import type { CompanyScope } from '../../db/executor.ts';
import { findDocument } from '../../db/repositories/journal-documents.ts';
import { deliveredFileOf, demoCamt053, demoPain002 } from '../../domain/demo-bank/index.ts';
import { type AuditEvent, recordEvents } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import type { JobPayload } from '../jobs.ts';
import { ingestForCompany } from '../journal/ingest.ts';

export type DemoBankReplyJob = JobPayload<'demoBankReply'>;

type Reply = { job: DemoBankReplyJob; index: number; scope: CompanyScope; files: string[]; input: ReplyInput };
type ReplyInput = {
  companyId: string;
  bankKey: string | undefined;
  environment: 'test' | 'production';
  importSource: string;
};

/**
 * The demo bank's replies to files it received (DESIGN.md, Sandbox and demo bank): for each, a real
 * pain.002 and a real camt.053, fed through the same ingest path as any bank's files, so the payment
 * reconciles as a real one would. Ids and times derive from the document and the reply time fixed at
 * receipt, so a re-run after a crash writes the same bytes and ingest's content digest makes it a
 * no-op.
 *
 * A batch is ingested in one transaction (one commit, and the company's journal counter, bank
 * account and chain head taken once, not once per file), each reply in a savepoint of its own: a
 * reply that fails rolls back alone and is answered `false` (its job runs again). Replies go in
 * company and document order, and the audit events of the batch are recorded last, so two batches
 * and the other pipeline writers take their locks in one order (docs/adr/0012, 0013).
 */
export async function replyAsDemoBankBatch(ctx: AppContext, jobs: DemoBankReplyJob[]): Promise<boolean[]> {
  const done = jobs.map(() => true);
  const replies: Reply[] = [];
  for (const [index, job] of jobs.entries()) {
    const reply = await prepare(ctx, job, index);
    if (reply === 'later') {
      // The bank answers a file only once the service has recorded its delivery: its evidence for a
      // document not known to be delivered would be ignored (docs/adr/0012). Asked again shortly,
      // with the same reply time, so the files stay byte-identical.
      await ctx.jobs.send('demoBankReply', job, { startAfter: new Date(ctx.clock.now().getTime() + RECHECK_MS) });
    } else if (reply) replies.push(reply);
  }
  if (replies.length === 0) return done;
  replies.sort((a, b) =>
    a.scope.companyId !== b.scope.companyId
      ? a.scope.companyId < b.scope.companyId
        ? -1
        : 1
      : a.job.documentId < b.job.documentId
        ? -1
        : 1,
  );
  const ingested = await transactionWithRetry(ctx.db, 'demo bank replies', async (tx) => {
    const audit: AuditEvent[] = [];
    const ok = new Map<number, boolean>();
    for (const reply of replies) {
      try {
        const events: AuditEvent[] = [];
        await tx.transaction(async (savepoint) => {
          for (const content of reply.files) {
            await ingestForCompany(ctx, reply.scope, { ...reply.input, content }, { tx: savepoint, audit: events });
          }
        });
        audit.push(...events);
        ok.set(reply.index, true);
      } catch (err) {
        ctx.logger.warn({ err, documentId: reply.job.documentId }, 'demo bank reply failed; it is tried again');
        ok.set(reply.index, false);
      }
    }
    await recordEvents(ctx, tx, audit);
    return ok;
  });
  for (const [index, ok] of ingested) done[index] = ok;
  return done;
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
  const sequence = Number(doc.journalNo.replace(/\D/g, '')) || 1;
  return {
    job,
    index,
    scope,
    input: {
      companyId: job.companyId,
      bankKey: doc.bankKey ?? undefined,
      environment: doc.environment === 'test' ? 'test' : 'production',
      importSource: 'demo-bank',
    },
    files: [
      demoPain002(file, `DEMO-STS-${doc.id}`, job.replyAt),
      demoCamt053(file, { messageId: `DEMO-STM-${doc.id}`, statementId: `DEMO-${doc.id}`, sequence }, job.replyAt),
    ],
  };
}
