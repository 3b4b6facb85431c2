import type { CompanyScope } from '../../db/executor.ts';
import {
  claimOutboxEvents,
  endpointsOfCompanies,
  insertDeliveries,
  markOutboxDispatched,
  type PendingOutboxEvent,
  takeSequences,
  type WebhookEndpointRow,
} from '../../db/repositories/webhooks.ts';
import { endpointTakes, isEnvelope } from '../../domain/webhooks/index.ts';
import type { AppContext } from '../context.ts';

/**
 * Fans undispatched outbox events out to the endpoints of their company: one pending delivery per
 * matching endpoint (event types, filter), each with the endpoint's next X-Delivery-Sequence, and
 * marks the events dispatched, all in one transaction. Disabled endpoints get their deliveries too;
 * the sender holds them until the endpoint is enabled again. Events are claimed with SKIP LOCKED,
 * and sequence rows are locked in endpoint-id order, so dispatchers in several processes neither
 * take the same event nor deadlock. Answers how many events were dispatched.
 */
export async function dispatchOutbox(ctx: AppContext, limit = 200): Promise<number> {
  return ctx.db.transaction(async (tx) => {
    const events = await claimOutboxEvents(tx, limit);
    if (events.length === 0) return 0;
    const scopes = new Map<string, CompanyScope>();
    for (const event of events) {
      if (event.companyId !== null) {
        scopes.set(`${event.platformId}/${event.companyId}`, {
          platformId: event.platformId,
          companyId: event.companyId,
        });
      }
    }
    const endpoints = await endpointsOfCompanies(tx, [...scopes.values()]);
    const groups = new Map<string, { endpoint: WebhookEndpointRow; events: PendingOutboxEvent[] }>();
    for (const event of events) {
      if (event.companyId === null || !isEnvelope(event.payload)) continue;
      for (const endpoint of endpoints) {
        if (endpoint.platformId !== event.platformId || endpoint.companyId !== event.companyId) continue;
        const takes = endpointTakes(
          { eventTypes: endpoint.eventTypes ?? null, filter: endpoint.filterPredicate ?? null },
          { type: event.type, data: event.payload.data },
        );
        if (!takes) continue;
        const group = groups.get(endpoint.id) ?? { endpoint, events: [] };
        group.events.push(event);
        groups.set(endpoint.id, group);
      }
    }
    const now = ctx.clock.now();
    const rows: Parameters<typeof insertDeliveries>[1] = [];
    for (const id of [...groups.keys()].sort()) {
      const { endpoint, events: taken } = groups.get(id)!;
      const first = await takeSequences(tx, { platformId: endpoint.platformId }, endpoint.id, taken.length);
      taken.forEach((event, i) => {
        rows.push({
          id: ctx.ids.next('del'),
          platformId: endpoint.platformId,
          companyId: endpoint.companyId,
          endpointId: endpoint.id,
          eventId: event.id,
          eventType: event.type,
          sequence: first + i,
          attempt: 0,
          status: 'pending',
          createdAt: now,
          nextAttemptAt: now,
        });
      });
    }
    await insertDeliveries(tx, rows);
    await markOutboxDispatched(
      tx,
      events.map((e) => e.id),
      now,
    );
    return events.length;
  });
}
