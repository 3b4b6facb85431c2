import { listConnections } from '../../db/repositories/connections.ts';
import { readDemoBankDocuments } from '../../db/repositories/demo-bank.ts';
import { getProfile } from '../../domain/conversion/index.ts';
import type { JobPayload } from '../../workers/jobs.ts';
import type { AppContext } from '../context.ts';
import { pickUpFrom } from './pickup.ts';

/** The demo bank's notice that its answers to a file it received are due (src/main/demo-bank.ts). */
export type DemoBankReplyJob = JobPayload<'demoBankReply'>;

/** How soon a notice about a file whose delivery is not recorded yet is looked at again. */
const RECHECK_MS = 1000;
/** When a notice's payment is still unanswered after its pickup: once the bank's lease (15 s) ran out. */
const AGAIN_AFTER_MS = 16_000;

/**
 * The demo bank said files await pickup (sandbox): each company's demo connection is picked up
 * at once, through the pickup every bank's files take (pickup.ts, docs/adr/0054), instead of waiting
 * for the minute's sweep. A notice about a document whose delivery is not recorded yet is looked at
 * again shortly (the upload and its record are two steps; the bank's answer would find the document
 * still being delivered). A notice whose payment is still unanswered after the pickup (a file that
 * failed, or files another pickup holds) comes again once the bank hands them out again. Answers, per
 * notice, whether it is settled.
 */
export async function pickUpDemoBankAnswers(ctx: AppContext, jobs: DemoBankReplyJob[]): Promise<boolean[]> {
  const byCompany = new Map<string, DemoBankReplyJob[]>();
  for (const job of jobs) {
    const key = `${job.platformId}\u0000${job.companyId}`;
    byCompany.set(key, [...(byCompany.get(key) ?? []), job]);
  }
  const later: DemoBankReplyJob[] = [];
  const again: DemoBankReplyJob[] = [];
  const settled = new Map<DemoBankReplyJob, boolean>();
  for (const group of byCompany.values()) {
    const scope = { platformId: group[0]!.platformId, companyId: group[0]!.companyId };
    const docs = await readDemoBankDocuments(
      ctx.db,
      scope,
      group.map((j) => j.documentId),
    );
    const ready = group.filter((job) => {
      const doc = docs.get(job.documentId);
      const delivering = doc?.deliveryStatus === 'in-progress' || doc?.deliveryStatus === 'retrying';
      if (delivering) later.push(job);
      return !delivering;
    });
    if (ready.length === 0) continue;
    try {
      await pickUpDemoConnections(ctx, scope);
      // A notice whose payment is still unanswered (its files failed, or another pickup holds them
      // under the bank's lease and may have died with them) comes again once the lease ran out.
      const after = await readDemoBankDocuments(
        ctx.db,
        scope,
        ready.map((j) => j.documentId),
      );
      again.push(...ready.filter((job) => after.get(job.documentId)?.status === 'sent'));
      for (const job of ready) settled.set(job, true);
    } catch (error) {
      ctx.logger.warn({ err: error, companyId: scope.companyId }, 'demo bank pickup failed; it is tried again');
      for (const job of ready) settled.set(job, false);
    }
  }
  const now = ctx.clock.now().getTime();
  if (later.length > 0) await ctx.jobs.sendMany('demoBankReply', later, { startAfter: new Date(now + RECHECK_MS) });
  if (again.length > 0) await ctx.jobs.sendMany('demoBankReply', again, { startAfter: new Date(now + AGAIN_AFTER_MS) });
  return jobs.map((job) => settled.get(job) ?? true);
}

/** Picks up every active demo-bank connection of the company. */
async function pickUpDemoConnections(ctx: AppContext, scope: { platformId: string; companyId: string }) {
  for (const connection of await listConnections(ctx.db, scope)) {
    if (connection.status !== 'active' || getProfile(connection.bankKey)?.channel !== 'DEMO') continue;
    await pickUpFrom(ctx, connection);
  }
}
