import type { Executor } from '../../db/executor.ts';
import type { JournalDocumentRow } from '../../db/repositories/journal-documents.ts';
import { insertOutboxEvent } from '../../db/repositories/outbox.ts';
import { type OutboundStatus, paymentEventOf } from '../../domain/lifecycle/index.ts';
import type { AppContext } from '../context.ts';

/** The API version whose event shape the envelope follows (the Service-Version baseline). */
export const EVENT_API_VERSION = '2026-06-01';

/**
 * Writes a webhook event into the outbox in the caller's transaction (DESIGN.md, Events and
 * webhooks): the envelope {id, type, createdAt, apiVersion, platformId, companyId, data}.
 */
export async function emitEvent(
  ctx: AppContext,
  tx: Executor,
  event: { type: string; platformId: string; companyId: string | null; data: Record<string, unknown> },
): Promise<string> {
  const id = ctx.ids.next('evt');
  const createdAt = ctx.clock.now();
  await insertOutboxEvent(tx, {
    id,
    platformId: event.platformId,
    companyId: event.companyId,
    type: event.type,
    payload: {
      id,
      type: event.type,
      createdAt: createdAt.toISOString(),
      apiVersion: EVENT_API_VERSION,
      platformId: event.platformId,
      companyId: event.companyId,
      data: event.data,
    },
    createdAt,
  });
  return id;
}

/**
 * The payment event of a document that reached `status` (sent, executed, rejected); nothing for other
 * statuses. `cause` names the line that caused it, when one did.
 */
export async function emitPaymentEvent(
  ctx: AppContext,
  tx: Executor,
  doc: JournalDocumentRow,
  status: OutboundStatus,
  cause: { endToEndId?: string | null; reason?: string | null } = {},
): Promise<void> {
  const type = paymentEventOf(status);
  if (type === null) return;
  await emitEvent(ctx, tx, {
    type,
    platformId: doc.platformId,
    companyId: doc.companyId,
    data: {
      documentId: doc.id,
      journalNo: doc.journalNo,
      messageId: doc.messageId,
      bankKey: doc.bankKey,
      environment: doc.environment,
      status,
      totals: doc.totals,
      ...(cause.endToEndId ? { endToEndId: cause.endToEndId } : {}),
      ...(cause.reason ? { reason: cause.reason } : {}),
    },
  });
}
