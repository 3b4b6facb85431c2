import type { Tx } from '../../db/executor.ts';
import type { WebhookEndpointRow } from '../../db/repositories/webhooks.ts';
import {
  failedDeliveriesSince,
  findDelivery,
  insertDeliveries,
  listDeliveries,
  markEventDispatched,
  takeSequences,
} from '../../db/repositories/webhooks.ts';
import { recordEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import { badRequest, notFound } from '../errors.ts';
import { emitEvent } from '../events/outbox.ts';
import type { Principal } from '../identity/principal.ts';
import { decodeCursor, encodeCursor } from '../pagination.ts';
import { actorOf, endpointFor } from './access.ts';
import { deliveryView } from './views.ts';

/**
 * POST /webhooks/{id}/test: a webhook.test event written to the outbox (already dispatched, to this
 * endpoint only) with a pending delivery that the sender signs and sends like any other.
 */
export async function sendTestEvent(ctx: AppContext, principal: Principal, id: string, companyId?: string) {
  const endpoint = await endpointFor(ctx, principal, id, companyId);
  return ctx.db.transaction(async (tx) => {
    const scope = { platformId: endpoint.platformId, companyId: endpoint.companyId };
    const eventId = await emitEvent(ctx, tx, {
      type: 'webhook.test',
      platformId: endpoint.platformId,
      companyId: endpoint.companyId,
      data: { endpointId: endpoint.id, message: 'This is a test event from POST /webhooks/{id}/test.' },
    });
    const now = ctx.clock.now();
    await markEventDispatched(tx, scope, eventId, now);
    const sequence = await takeSequences(tx, { platformId: endpoint.platformId }, endpoint.id, 1);
    const deliveryId = await newDelivery(ctx, tx, endpoint, { eventId, eventType: 'webhook.test', sequence });
    await recordEvent(ctx, tx, {
      platformId: endpoint.platformId,
      companyId: endpoint.companyId,
      type: 'webhook.test-requested',
      message: `test event ${eventId} queued for webhook endpoint ${endpoint.id}`,
      actorUserId: actorOf(principal),
      metadata: { endpointId: endpoint.id, eventId, deliveryId },
    });
    return { deliveryId, eventId };
  });
}

async function newDelivery(
  ctx: AppContext,
  tx: Tx,
  endpoint: WebhookEndpointRow,
  of: { eventId: string; eventType: string; sequence: number; redeliveryOf?: string },
): Promise<string> {
  const id = ctx.ids.next('del');
  const now = ctx.clock.now();
  await insertDeliveries(tx, [
    {
      id,
      platformId: endpoint.platformId,
      companyId: endpoint.companyId,
      endpointId: endpoint.id,
      eventId: of.eventId,
      eventType: of.eventType,
      sequence: of.sequence,
      attempt: 0,
      status: 'pending',
      redeliveryOf: of.redeliveryOf ?? null,
      createdAt: now,
      nextAttemptAt: now,
    },
  ]);
  return id;
}

/** Cursor: `<createdAt ISO>|<id>` of the last item, opaque base64url. */
export async function listEndpointDeliveries(
  ctx: AppContext,
  principal: Principal,
  id: string,
  query: { cursor?: string | undefined; limit?: number | undefined; companyId?: string | undefined },
) {
  const endpoint = await endpointFor(ctx, principal, id, query.companyId);
  const key = decodeCursor(query.cursor);
  let before: { createdAt: Date; id: string } | undefined;
  if (key !== undefined) {
    const [iso, lastId] = key.split('|');
    const at = new Date(iso ?? '');
    if (!lastId || Number.isNaN(at.getTime())) throw badRequest('invalid cursor');
    before = { createdAt: at, id: lastId };
  }
  const limit = query.limit ?? 100;
  const rows = await listDeliveries(ctx.db, { platformId: endpoint.platformId }, endpoint.id, {
    before,
    limit: limit + 1,
  });
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return {
    items: items.map(deliveryView),
    nextCursor: rows.length > limit && last ? encodeCursor(`${last.createdAt.toISOString()}|${last.id}`) : null,
  };
}

/** Replays one delivery as a new delivery of the same event and sequence (attempts from 1 again). */
export async function redeliver(
  ctx: AppContext,
  principal: Principal,
  id: string,
  deliveryId: string,
  companyId?: string,
) {
  const endpoint = await endpointFor(ctx, principal, id, companyId);
  const original = await findDelivery(ctx.db, { platformId: endpoint.platformId }, endpoint.id, deliveryId);
  if (!original) throw notFound('delivery');
  return ctx.db.transaction(async (tx) => {
    const newId = await newDelivery(ctx, tx, endpoint, {
      eventId: original.eventId,
      eventType: original.eventType,
      sequence: Number(original.sequence),
      redeliveryOf: original.id,
    });
    await recordEvent(ctx, tx, {
      platformId: endpoint.platformId,
      companyId: endpoint.companyId,
      type: 'webhook.redelivery-requested',
      message: `delivery ${original.id} of event ${original.eventId} replayed as ${newId}`,
      actorUserId: actorOf(principal),
      metadata: { endpointId: endpoint.id, deliveryId: newId, redeliveryOf: original.id, eventId: original.eventId },
    });
    return { deliveryId: newId, eventId: original.eventId };
  });
}

/** Replays every event whose latest delivery to this endpoint failed and was created since `since`. */
export async function redeliverFailed(
  ctx: AppContext,
  principal: Principal,
  id: string,
  sinceText: string | undefined,
  companyId?: string,
) {
  if (sinceText === undefined || sinceText === '') throw badRequest('since (an ISO timestamp) is required');
  const since = new Date(sinceText);
  if (Number.isNaN(since.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(sinceText)) {
    throw badRequest('since must be an ISO 8601 timestamp');
  }
  const endpoint = await endpointFor(ctx, principal, id, companyId);
  return ctx.db.transaction(async (tx) => {
    const failed = await failedDeliveriesSince(tx, { platformId: endpoint.platformId }, endpoint.id, since);
    for (const original of failed) {
      await newDelivery(ctx, tx, endpoint, {
        eventId: original.eventId,
        eventType: original.eventType,
        sequence: Number(original.sequence),
        redeliveryOf: original.id,
      });
    }
    if (failed.length > 0) {
      await recordEvent(ctx, tx, {
        platformId: endpoint.platformId,
        companyId: endpoint.companyId,
        type: 'webhook.redelivery-requested',
        message: `${failed.length} failed deliveries since ${since.toISOString()} replayed`,
        actorUserId: actorOf(principal),
        metadata: { endpointId: endpoint.id, count: failed.length, since: since.toISOString() },
      });
    }
    return { count: failed.length };
  });
}
