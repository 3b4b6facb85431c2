import type { Executor } from '../../db/executor.ts';
import type { JournalDocumentRow } from '../../db/repositories/journal-documents.ts';
import { insertOutboxEvent, insertOutboxEvents } from '../../db/repositories/outbox.ts';
import { type OutboundStatus, paymentEventOf } from '../../domain/lifecycle/index.ts';
import type { AppContext } from '../context.ts';

/** The API version whose event shape the envelope follows (the Service-Version baseline). */
export const EVENT_API_VERSION = '2026-06-01';

/**
 * Writes a webhook event into the outbox in the caller's transaction (DESIGN.md, Events and
 * webhooks): the envelope {id, type, createdAt, apiVersion, platformId, companyId, data}.
 */
export async function emitEvent(ctx: AppContext, tx: Executor, event: OutboxEvent): Promise<string> {
  const row = outboxRow(ctx, event);
  await insertOutboxEvent(tx, row);
  return row.id;
}

export type OutboxEvent = { type: string; platformId: string; companyId: string | null; data: Record<string, unknown> };

function outboxRow(ctx: AppContext, event: OutboxEvent) {
  const id = ctx.ids.next('evt');
  const createdAt = ctx.clock.now();
  return {
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
  };
}

/** A payment event to emit: the document, the status it reached and the line that caused it. */
export type PaymentEvent = {
  doc: JournalDocumentRow;
  status: OutboundStatus;
  cause?: { endToEndId?: string | null; reason?: string | null };
};

/** The outbox event of a payment event, or null for a status that has none. */
function paymentEventRow({ doc, status, cause = {} }: PaymentEvent): OutboxEvent | null {
  const type = paymentEventOf(status);
  if (type === null) return null;
  return {
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
  };
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
  await emitPaymentEvents(ctx, tx, [{ doc, status, cause }]);
}

/** emitPaymentEvent for several documents, in one statement (the event ids in the given order). */
export async function emitPaymentEvents(ctx: AppContext, tx: Executor, events: PaymentEvent[]): Promise<void> {
  const rows = events.flatMap((e) => {
    const event = paymentEventRow(e);
    return event ? [outboxRow(ctx, event)] : [];
  });
  await insertOutboxEvents(tx, rows);
}

/** A line a statement returned (docs/adr/0070): its document, the line, and the return's reason and entry. */
export type ReturnEvent = {
  doc: JournalDocumentRow;
  line: { index: number; endToEndId: string | null; amount: string; currency: string };
  reason: string | null;
  matchedBy: string | null;
  evidenceDocumentId: string;
};

/**
 * `payment.returned` for each returned line, in one statement (DESIGN.md, Receivables, returns and
 * exceptions): the document, the line's end-to-end id, amount and currency (what a webhook's
 * minAmount filter compares), and the return's reason code.
 */
export function emitReturnEvents(ctx: AppContext, tx: Executor, events: ReturnEvent[]): Promise<void> {
  return emitEvents(
    ctx,
    tx,
    events.map(({ doc, line, reason, matchedBy, evidenceDocumentId }) => ({
      type: 'payment.returned',
      platformId: doc.platformId,
      companyId: doc.companyId,
      data: {
        documentId: doc.id,
        journalNo: doc.journalNo,
        messageId: doc.messageId,
        bankKey: doc.bankKey,
        environment: doc.environment,
        lineIndex: line.index,
        endToEndId: line.endToEndId,
        amount: line.amount,
        currency: line.currency,
        reason,
        matchedBy,
        evidenceDocumentId,
      },
    })),
  );
}

/** Several events in one statement (the event ids in the given order). */
export async function emitEvents(ctx: AppContext, tx: Executor, events: OutboxEvent[]): Promise<void> {
  if (events.length > 0)
    await insertOutboxEvents(
      tx,
      events.map((e) => outboxRow(ctx, e)),
    );
}
