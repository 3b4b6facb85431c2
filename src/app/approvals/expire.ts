import { dueApprovals, lockApproval } from '../../db/repositories/approvals.ts';
import { lockDocument } from '../../db/repositories/journal-documents.ts';
import { APPROVAL_LIFETIME_DAYS } from '../../domain/approvals/rules.ts';
import { recordEvents } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import { cancelledAudit, closeApproval, emitApprovalEvent, moveDocument, outcomeAudit } from './decide.ts';

const BATCH = 100;

/**
 * The expiry sweep (QUEUES.approvalExpiry): a pending approval whose 14 days have passed becomes
 * `expired` and its document `cancelled` with the reason, with approval.expired to the webhooks and the
 * audit trail. Each one in its own transaction that locks the document, then the approval, and reads
 * them again, as a decision does: a decision that got there first wins and the sweep skips it.
 * Answers how many it expired.
 */
export async function expireApprovals(ctx: AppContext): Promise<number> {
  let expired = 0;
  for (;;) {
    const now = ctx.clock.now();
    const due = await dueApprovals(ctx.db, now, BATCH);
    for (const candidate of due) {
      if (await expireOne(ctx, candidate)) expired++;
    }
    if (due.length < BATCH) break;
  }
  if (expired > 0) ctx.logger.info({ expired }, 'expired pending approvals');
  return expired;
}

async function expireOne(
  ctx: AppContext,
  candidate: { id: string; platformId: string; companyId: string; documentId: string },
): Promise<boolean> {
  const scope = { platformId: candidate.platformId, companyId: candidate.companyId };
  return ctx.db.transaction(async (tx) => {
    const now = ctx.clock.now();
    const doc = await lockDocument(tx, scope, candidate.documentId);
    const row = await lockApproval(tx, scope, candidate.id);
    if (!doc || !row || row.status !== 'pending' || !row.expiresAt || row.expiresAt > now) return false;
    const reason = `no decision within ${APPROVAL_LIFETIME_DAYS} days`;
    await closeApproval(tx, scope, row, 'expired', { closedReason: reason, now });
    await moveDocument(tx, doc, { type: 'approval-closed' }, now);
    await emitApprovalEvent(ctx, tx, 'approval.expired', doc, row, { reason });
    await recordEvents(ctx, tx, [
      outcomeAudit(doc, row, 'approval.expired', null, `${doc.journalNo}: approval expired, ${reason}`),
      cancelledAudit(doc, null, `approval expired (${reason})`),
    ]);
    return true;
  });
}
