import type { WebhookDeliveryRow, WebhookEndpointRow } from '../../db/repositories/webhooks.ts';
import { maskedDestination } from '../../domain/webhooks/index.ts';

/**
 * The endpoint body of DESIGN.md (Route bodies); never the signing secret, and the destination with its
 * secret parts masked (masked again here for a row written before destinations were sealed).
 */
export function endpointView(row: WebhookEndpointRow) {
  const filter = row.filterPredicate;
  return {
    id: row.id,
    companyId: row.companyId,
    url: maskedDestination(row.url, row.transport),
    eventTypes: row.eventTypes ?? null,
    enabled: row.status === 'enabled',
    status: row.status,
    transport: row.transport,
    emailTo: row.emailTo ?? null,
    filterPredicate: filter
      ? {
          ...(filter.bankKey !== undefined ? { bankKey: filter.bankKey } : {}),
          ...(filter.minAmount !== undefined ? { minAmount: Number(filter.minAmount) } : {}),
        }
      : null,
    consecutiveFailures: row.consecutiveFailures,
    createdAt: row.createdAt.toISOString(),
  };
}

export function deliveryView(row: WebhookDeliveryRow) {
  return {
    id: row.id,
    eventId: row.eventId,
    eventType: row.eventType,
    sequence: Number(row.sequence),
    attempt: row.attempt,
    status: row.status,
    responseStatus: row.responseStatus ?? null,
    error: row.error ?? null,
    durationMs: row.durationMs ?? null,
    createdAt: row.createdAt.toISOString(),
    nextAttemptAt: row.nextAttemptAt ? row.nextAttemptAt.toISOString() : null,
  };
}
