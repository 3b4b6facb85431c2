import { and, asc, desc, eq, gt, inArray, isNull, lt, ne, or, sql } from 'drizzle-orm';
import { mustMove, type WebhookDeliveryStatus, webhookDeliveryTransition } from '../../domain/lifecycle/index.ts';
import type { CompanyScope, Executor, PlatformScope } from '../executor.ts';
import { outboxEvents, webhookDeliveries, webhookEndpoints } from '../schema/index.ts';
import { inCompany } from '../tenant.ts';

export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;

export async function insertEndpoint(
  q: Executor,
  row: typeof webhookEndpoints.$inferInsert,
): Promise<WebhookEndpointRow> {
  const [created] = await q.insert(webhookEndpoints).values(row).returning();
  return created!;
}

/** A company's endpoints in id order, after the keyset cursor `after`. */
export async function listEndpoints(
  q: Executor,
  scope: CompanyScope,
  page: { after?: string | undefined; limit: number },
): Promise<WebhookEndpointRow[]> {
  return q
    .select()
    .from(webhookEndpoints)
    .where(
      and(
        inCompany(webhookEndpoints, scope),
        page.after !== undefined ? gt(webhookEndpoints.id, page.after) : undefined,
      ),
    )
    .orderBy(asc(webhookEndpoints.id))
    .limit(page.limit);
}

export async function findEndpoint(
  q: Executor,
  scope: PlatformScope,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<WebhookEndpointRow | undefined> {
  const query = q
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.platformId, scope.platformId), eq(webhookEndpoints.id, id)))
    .limit(1);
  const rows = options.forUpdate ? await query.for('update') : await query;
  return rows[0];
}

export async function updateEndpoint(
  q: Executor,
  scope: PlatformScope,
  id: string,
  patch: Partial<typeof webhookEndpoints.$inferInsert>,
): Promise<WebhookEndpointRow | undefined> {
  const [row] = await q
    .update(webhookEndpoints)
    .set(patch)
    .where(and(eq(webhookEndpoints.platformId, scope.platformId), eq(webhookEndpoints.id, id)))
    .returning();
  return row;
}

/**
 * Deliveries first, without the endpoint row locked: a sender holding delivery rows then taking the
 * endpoint row (its failure counter) finishes first instead of deadlocking with the cascade.
 */
export async function deleteEndpoint(q: Executor, scope: PlatformScope, id: string): Promise<boolean> {
  await q
    .delete(webhookDeliveries)
    .where(and(eq(webhookDeliveries.platformId, scope.platformId), eq(webhookDeliveries.endpointId, id)));
  const rows = await q
    .delete(webhookEndpoints)
    .where(and(eq(webhookEndpoints.platformId, scope.platformId), eq(webhookEndpoints.id, id)))
    .returning({ id: webhookEndpoints.id });
  return rows.length > 0;
}

/** Takes `count` sequence numbers of an endpoint (row-locked until commit); returns the first. */
export async function takeSequences(
  q: Executor,
  scope: PlatformScope,
  endpointId: string,
  count: number,
): Promise<number> {
  const [row] = await q
    .update(webhookEndpoints)
    .set({ lastSequence: sql`${webhookEndpoints.lastSequence} + ${count}` })
    .where(and(eq(webhookEndpoints.platformId, scope.platformId), eq(webhookEndpoints.id, endpointId)))
    .returning({ last: webhookEndpoints.lastSequence });
  return Number(row!.last) - count + 1;
}

export async function insertDeliveries(q: Executor, rows: (typeof webhookDeliveries.$inferInsert)[]): Promise<void> {
  if (rows.length > 0) await q.insert(webhookDeliveries).values(rows);
}

// ---- worker side: claims across tenants, each row then handled in its own scope ----

export type PendingOutboxEvent = {
  id: string;
  platformId: string;
  companyId: string | null;
  type: string;
  payload: Record<string, unknown>;
};

/** Undispatched outbox events, oldest first, locked for this transaction (other dispatchers skip them). */
export async function claimOutboxEvents(tx: Executor, limit: number): Promise<PendingOutboxEvent[]> {
  return tx
    .select({
      id: outboxEvents.id,
      platformId: outboxEvents.platformId,
      companyId: outboxEvents.companyId,
      type: outboxEvents.type,
      payload: outboxEvents.payload,
    })
    .from(outboxEvents)
    .where(isNull(outboxEvents.dispatchedAt))
    .orderBy(asc(outboxEvents.dispatchedAt), asc(outboxEvents.createdAt))
    .limit(limit)
    .for('update', { skipLocked: true });
}

export async function markOutboxDispatched(tx: Executor, ids: string[], at: Date): Promise<void> {
  if (ids.length > 0) await tx.update(outboxEvents).set({ dispatchedAt: at }).where(inArray(outboxEvents.id, ids));
}

/** One event of the scope marked dispatched at once (the test route's event goes to one endpoint). */
export async function markEventDispatched(tx: Executor, scope: CompanyScope, id: string, at: Date): Promise<void> {
  await tx
    .update(outboxEvents)
    .set({ dispatchedAt: at })
    .where(and(inCompany(outboxEvents, scope), eq(outboxEvents.id, id)));
}

/** The endpoints of these companies (every status: disabled ones keep their deliveries). */
export async function endpointsOfCompanies(tx: Executor, scopes: CompanyScope[]): Promise<WebhookEndpointRow[]> {
  if (scopes.length === 0) return [];
  return tx
    .select()
    .from(webhookEndpoints)
    .where(
      or(
        ...scopes.map((s) =>
          and(eq(webhookEndpoints.platformId, s.platformId), eq(webhookEndpoints.companyId, s.companyId)),
        ),
      ),
    )
    .orderBy(asc(webhookEndpoints.id));
}

export type ClaimedDelivery = {
  id: string;
  platformId: string;
  companyId: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  sequence: number;
  attempt: number;
  url: string;
  urlSealed: string | null;
  transport: string;
  emailTo: string | null;
  secretSealed: string;
  previousSecretSealed: string | null;
  previousSecretUntil: Date | null;
  payload: Record<string, unknown> | null;
};

/**
 * Leases up to `limit` due deliveries of enabled endpoints, in one short statement: the rows are
 * picked FOR UPDATE SKIP LOCKED and their `next_attempt_at` moved to `leaseUntil`, so no other
 * sender takes them until the lease runs out, and the transaction ends before anything is sent. A
 * sender that dies mid-send leaves them due again when the lease expires (at-least-once). The
 * lease (`attempt`, `leaseUntil`) is the token the outcome is recorded against.
 */
export async function leaseDueDeliveries(
  tx: Executor,
  now: Date,
  leaseUntil: Date,
  limit: number,
): Promise<ClaimedDelivery[]> {
  const result = await tx.execute(sql`
    WITH due AS (
      SELECT d.id
        FROM webhook_deliveries d
        JOIN webhook_endpoints e ON e.id = d.endpoint_id
       WHERE d.status = 'pending' AND d.next_attempt_at <= ${now.toISOString()}::timestamptz AND e.status = 'enabled'
       ORDER BY d.next_attempt_at
       LIMIT ${limit}
         FOR UPDATE OF d SKIP LOCKED),
    leased AS (
      UPDATE webhook_deliveries d SET next_attempt_at = ${leaseUntil.toISOString()}::timestamptz
        FROM due WHERE d.id = due.id
      RETURNING d.id, d.platform_id, d.company_id, d.endpoint_id, d.event_id, d.event_type, d.sequence, d.attempt)
    SELECT l.*, e.url, e.url_sealed, e.transport, e.email_to, e.secret_sealed, e.previous_secret_sealed, e.previous_secret_until,
           o.payload
      FROM leased l
      JOIN webhook_endpoints e ON e.id = l.endpoint_id
      LEFT JOIN outbox_events o ON o.id = l.event_id`);
  return (result.rows as Record<string, unknown>[]).map((r) => ({
    id: r.id as string,
    platformId: r.platform_id as string,
    companyId: r.company_id as string,
    endpointId: r.endpoint_id as string,
    eventId: r.event_id as string,
    eventType: r.event_type as string,
    sequence: Number(r.sequence),
    attempt: Number(r.attempt),
    url: r.url as string,
    urlSealed: (r.url_sealed as string | null) ?? null,
    transport: r.transport as string,
    emailTo: (r.email_to as string | null) ?? null,
    secretSealed: r.secret_sealed as string,
    previousSecretSealed: (r.previous_secret_sealed as string | null) ?? null,
    previousSecretUntil: r.previous_secret_until ? new Date(r.previous_secret_until as string) : null,
    payload: (r.payload as Record<string, unknown> | null) ?? null,
  }));
}

/**
 * Records the outcome of a leased attempt (the delivery stays `pending` for a retry, or ends
 * `succeeded` or `failed`), only while the lease still holds (same attempt, same
 * lease time, still pending): a sender whose lease ran out and was taken over records nothing.
 * Answers whether it recorded.
 */
export async function recordLeasedAttempt(
  tx: Executor,
  scope: PlatformScope,
  lease: { id: string; attempt: number; leaseUntil: Date },
  patch: Omit<Partial<typeof webhookDeliveries.$inferInsert>, 'status'> & { status: WebhookDeliveryStatus },
): Promise<boolean> {
  // A leased attempt is pending by the WHERE below; its outcome is a move the delivery transition allows.
  const status = mustMove(webhookDeliveryTransition, 'pending', patch.status);
  const rows = await tx
    .update(webhookDeliveries)
    .set({ ...patch, status })
    .where(
      and(
        eq(webhookDeliveries.platformId, scope.platformId),
        eq(webhookDeliveries.id, lease.id),
        eq(webhookDeliveries.status, 'pending'),
        eq(webhookDeliveries.attempt, lease.attempt),
        eq(webhookDeliveries.nextAttemptAt, lease.leaseUntil),
      ),
    )
    .returning({ id: webhookDeliveries.id });
  return rows.length > 0;
}

/**
 * After an event's final outcome: success resets the failure counter, a failed event adds one and
 * answers the endpoint as it now is. A success on an endpoint without failures writes nothing (most
 * outcomes are that one: a new row version of the endpoint for each would be WAL and a lock for nothing).
 */
export async function recordEndpointOutcome(
  tx: Executor,
  scope: PlatformScope,
  endpointId: string,
  succeeded: boolean,
): Promise<WebhookEndpointRow | undefined> {
  const endpoint = and(eq(webhookEndpoints.platformId, scope.platformId), eq(webhookEndpoints.id, endpointId));
  if (succeeded) {
    await tx
      .update(webhookEndpoints)
      .set({ consecutiveFailures: 0 })
      .where(and(endpoint, ne(webhookEndpoints.consecutiveFailures, 0)));
    return undefined;
  }
  const [row] = await tx
    .update(webhookEndpoints)
    .set({ consecutiveFailures: sql`${webhookEndpoints.consecutiveFailures} + 1` })
    .where(endpoint)
    .returning();
  return row;
}

// ---- delivery reads ----

/** Newest first: (created_at, id) descending, after the cursor's (createdAt, id). */
export async function listDeliveries(
  q: Executor,
  scope: PlatformScope,
  endpointId: string,
  page: { before?: { createdAt: Date; id: string } | undefined; limit: number },
): Promise<WebhookDeliveryRow[]> {
  const before = page.before;
  return q
    .select()
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.platformId, scope.platformId),
        eq(webhookDeliveries.endpointId, endpointId),
        before
          ? or(
              lt(webhookDeliveries.createdAt, before.createdAt),
              and(eq(webhookDeliveries.createdAt, before.createdAt), lt(webhookDeliveries.id, before.id)),
            )
          : undefined,
      ),
    )
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(page.limit);
}

export async function findDelivery(
  q: Executor,
  scope: PlatformScope,
  endpointId: string,
  id: string,
): Promise<WebhookDeliveryRow | undefined> {
  const rows = await q
    .select()
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.platformId, scope.platformId),
        eq(webhookDeliveries.endpointId, endpointId),
        eq(webhookDeliveries.id, id),
      ),
    )
    .limit(1);
  return rows[0];
}

/** Per event, the endpoint's latest delivery, when that one failed and was created since `since`. */
export async function failedDeliveriesSince(
  q: Executor,
  scope: PlatformScope,
  endpointId: string,
  since: Date,
): Promise<WebhookDeliveryRow[]> {
  const result = await q.execute(sql`
    SELECT id FROM (
      SELECT DISTINCT ON (event_id) id, status, created_at
        FROM webhook_deliveries
       WHERE platform_id = ${scope.platformId} AND endpoint_id = ${endpointId}
       ORDER BY event_id, created_at DESC, id DESC
    ) latest
    WHERE status = 'failed' AND created_at >= ${since.toISOString()}::timestamptz`);
  const ids = (result.rows as { id: string }[]).map((r) => r.id);
  if (ids.length === 0) return [];
  return q
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.platformId, scope.platformId), inArray(webhookDeliveries.id, ids)))
    .orderBy(asc(webhookDeliveries.sequence));
}

/**
 * Endpoints whose destination is not sealed yet (written before migration 0018). Deployment-wide on
 * purpose, like rekey: the start-up pass that seals them touches only these two columns.
 */
export async function unsealedDestinations(
  q: Executor,
  limit: number,
): Promise<{ id: string; url: string; transport: string }[]> {
  const result = await q.execute<{ id: string; url: string; transport: string }>(
    sql`SELECT id, url, transport FROM webhook_endpoints WHERE url_sealed IS NULL ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED`,
  );
  return result.rows;
}

/** Seals one destination and keeps only its masked form in the plain column. */
export async function sealDestination(q: Executor, id: string, masked: string, sealed: string): Promise<void> {
  await q.execute(sql`UPDATE webhook_endpoints SET url = ${masked}, url_sealed = ${sealed} WHERE id = ${id}`);
}
