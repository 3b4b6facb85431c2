import type { CompanyScope } from '../../db/executor.ts';
import { findDocument } from '../../db/repositories/journal-documents.ts';
import { deliveredFileOf, demoCamt053, demoPain002 } from '../../domain/demo-bank/index.ts';
import type { AppContext } from '../context.ts';
import type { JobPayload } from '../jobs.ts';
import { ingestForCompany } from '../journal/ingest.ts';

export type DemoBankReplyJob = JobPayload<'demoBankReply'>;

/**
 * The demo bank's reply to a file it received (DESIGN.md, Sandbox and demo bank): a real pain.002
 * and a real camt.053, fed through the same ingest path as any bank's files, so the payment
 * reconciles as a real one would. Ids and times derive from the document and the reply time fixed
 * at receipt, so a re-run after a crash writes the same bytes and ingest's content digest makes it
 * a no-op.
 */
export async function replyAsDemoBank(ctx: AppContext, job: DemoBankReplyJob): Promise<void> {
  const scope: CompanyScope = { platformId: job.platformId, companyId: job.companyId };
  const doc = await findDocument(ctx.db, scope, job.documentId);
  if (!doc?.payloadSealed || doc.status === 'cancelled') return;
  const file = deliveredFileOf(JSON.parse(ctx.encryptor.decrypt(doc.payloadSealed)), doc.sourceFormat);
  const sequence = Number(doc.journalNo.replace(/\D/g, '')) || 1;
  const common = {
    companyId: job.companyId,
    bankKey: doc.bankKey ?? undefined,
    environment: doc.environment === 'test' ? ('test' as const) : ('production' as const),
    importSource: 'demo-bank',
  };
  await ingestForCompany(ctx, scope, { ...common, content: demoPain002(file, `DEMO-STS-${doc.id}`, job.replyAt) });
  await ingestForCompany(ctx, scope, {
    ...common,
    content: demoCamt053(
      file,
      { messageId: `DEMO-STM-${doc.id}`, statementId: `DEMO-${doc.id}`, sequence },
      job.replyAt,
    ),
  });
}
