import { sql } from 'drizzle-orm';
import type { Executor } from '../executor.ts';

/**
 * Deployment-wide counts for GET /metrics. These are the only queries that read across tenants, and
 * on purpose: they answer aggregates by code words (queue, state, status) and never a tenant id or
 * anything a customer wrote.
 */
export type QueueStat = { queue: string; queued: number; active: number; oldestQueuedSeconds: number };
export type CountBy = { key: string; count: number };

const num = (v: unknown) => (v === null || v === undefined ? 0 : Number(v));

type QueueRow = { queue: string; queued: unknown; active: unknown; oldest: unknown };

/**
 * Work waiting per kind: every pg-boss queue (jobs due now, and running), the delivery relay's
 * outbox (`delivery-requests`), webhook events not yet fanned out (`webhook-outbox`) and webhook
 * deliveries due to enabled endpoints (`webhook-deliveries`). Age: of the oldest item due.
 */
export async function queueStats(q: Executor): Promise<QueueStat[]> {
  const result = await q.execute<QueueRow>(sql`
    SELECT name AS queue,
           count(*) FILTER (WHERE state IN ('created', 'retry') AND start_after <= now()) AS queued,
           count(*) FILTER (WHERE state = 'active') AS active,
           extract(epoch FROM now() - min(start_after) FILTER (WHERE state IN ('created', 'retry') AND start_after <= now())) AS oldest
      FROM pgboss.job WHERE state IN ('created', 'retry', 'active') GROUP BY name
    UNION ALL
    SELECT 'delivery-requests', count(*), 0, extract(epoch FROM now() - min(created_at)) FROM delivery_requests
    UNION ALL
    SELECT 'webhook-outbox', count(*), 0, extract(epoch FROM now() - min(created_at))
      FROM outbox_events WHERE dispatched_at IS NULL
    UNION ALL
    SELECT 'webhook-deliveries', count(*), 0, extract(epoch FROM now() - min(d.next_attempt_at))
      FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
     WHERE d.status = 'pending' AND d.next_attempt_at <= now() AND e.status = 'enabled'`);
  return result.rows.map((r) => ({
    queue: r.queue,
    queued: num(r.queued),
    active: num(r.active),
    oldestQueuedSeconds: Math.max(0, num(r.oldest)),
  }));
}

/** Payment lines by reconciliation state (pending, cleared, rejected). */
export async function reconLinesByState(q: Executor): Promise<CountBy[]> {
  const result = await q.execute<{ key: string; count: unknown }>(
    sql`SELECT state AS key, count(*) AS count FROM payment_lines GROUP BY state`,
  );
  return result.rows.map((r) => ({ key: r.key, count: num(r.count) }));
}

/**
 * Seconds since the oldest still-pending line was journaled, among documents the bank has or may
 * have (converted, sent, executed in part); 0 when none is pending.
 */
export async function oldestPendingLineSeconds(q: Executor): Promise<number> {
  const result = await q.execute<{ age: unknown }>(sql`
    SELECT extract(epoch FROM now() - min(d.created_at)) AS age
      FROM payment_lines l JOIN journal_documents d ON d.id = l.document_id
     WHERE l.state = 'pending' AND d.status IN ('converted', 'sent', 'executed')`);
  return Math.max(0, num(result.rows[0]?.age));
}

/** Webhook endpoints by status (enabled, disabled, auto-disabled). */
export async function webhookEndpointsByStatus(q: Executor): Promise<CountBy[]> {
  const result = await q.execute<{ key: string; count: unknown }>(
    sql`SELECT status AS key, count(*) AS count FROM webhook_endpoints GROUP BY status`,
  );
  return result.rows.map((r) => ({ key: r.key, count: num(r.count) }));
}
