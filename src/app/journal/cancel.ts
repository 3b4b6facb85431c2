import { cancelPendingApprovals } from '../../db/repositories/approvals.ts';
import { findDocument, outboundOf } from '../../db/repositories/journal-documents.ts';
import { cancelOutboundDocument } from '../../db/repositories/journal-submit.ts';
import { documentTransition, outboundStatusOf } from '../../domain/lifecycle/index.ts';
import { recordEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import { AppError, notFound } from '../errors.ts';
import { requireCompanyAdmin } from '../identity/access.ts';
import type { Principal } from '../identity/principal.ts';
import { documentView } from './document-view.ts';
import { companySubmitContext } from './submit-request.ts';

/**
 * POST /journal/documents/{id}/cancel (DESIGN.md lifecycle): a `converted` or `pending-approval`
 * outbound document becomes `cancelled` before delivery. A host-to-host document whose delivery has
 * started (delivery status past `queued`) cannot be: 409 conflict. Cancelling an already cancelled
 * document answers it unchanged (a retried cancel is safe) and records nothing.
 * The change, the closing of its pending approval and the audit event commit together. The
 * delivery job, if queued, stays: the delivery worker skips a document that is no longer
 * `converted` with delivery `queued`.
 */
export async function cancelDocument(ctx: AppContext, principal: Principal, input: { companyId: string; id: string }) {
  // The API route takes an API key; the dashboard cancels for a company admin's browser session.
  if (principal.kind === 'token') throw new AppError('forbidden', 'this route takes an API key');
  if (principal.kind === 'session') requireCompanyAdmin(principal, principal.platformId, input.companyId);
  const { platformId } = principal;
  const actorUserId = principal.kind === 'session' ? principal.user.id : null;
  const scope = { platformId, companyId: input.companyId };
  const cancelled = await ctx.db.transaction(async (tx) => {
    const now = ctx.clock.now();
    const row = await cancelOutboundDocument(tx, scope, input.id, now);
    if (!row) return undefined;
    await cancelPendingApprovals(tx, scope, row.id, now);
    await recordEvent(ctx, tx, {
      platformId,
      companyId: input.companyId,
      type: 'payment.cancelled',
      message: `${row.journalNo} cancelled before delivery`,
      actorUserId,
      metadata: { documentId: row.id, journalNo: row.journalNo, messageId: row.messageId, status: row.status },
      bankKey: row.bankKey,
      environment: row.environment,
    });
    return row;
  });
  if (cancelled) return documentView(cancelled);

  // Not cancelled: say why, after checking the scope (403 another platform, 404 unknown).
  await companySubmitContext(ctx, platformId, { companyId: input.companyId, bankKey: '', environment: 'test' });
  const doc = await findDocument(ctx.db, scope, input.id);
  if (doc?.direction !== 'outbound') throw notFound('document');
  const status = outboundStatusOf(doc.status);
  if (status === 'cancelled') return documentView(doc);
  const refusal = documentTransition(outboundOf(doc), { type: 'cancel' });
  throw new AppError(
    'conflict',
    refusal.ok
      ? `${doc.journalNo} cannot be cancelled: its delivery has started (${doc.deliveryStatus})`
      : `${doc.journalNo} cannot be cancelled in status ${status}`,
    { status, deliveryStatus: doc.deliveryStatus },
  );
}
