import type pg from 'pg';
import type { AppContext } from '../app/context.ts';
import { operationsSnapshot } from '../app/system/operations-snapshot.ts';
import { listProfiles } from '../domain/conversion/index.ts';
import type { Metrics } from '../platform/metrics.ts';
import { createPrometheusMetrics, gaugeFromSnapshot, type PrometheusMetrics } from '../platform/prometheus.ts';

/** The process's Prometheus registry, with every bank profile key allowed as a bank label. */
export function processMetrics(options: { version: string; role: string }): PrometheusMetrics {
  return createPrometheusMetrics({ bankKeys: listProfiles().map((p) => p.key), ...options });
}

/** The metrics port, with each polling-loop cycle also counted as that loop's heartbeat for /ready. */
export function withHeartbeat(metrics: Metrics, beat: (loop: string) => void): Metrics {
  return {
    ...metrics,
    workerCycle(loop) {
      metrics.workerCycle(loop);
      beat(loop);
    },
  };
}

/**
 * The gauges read at scrape time: queue depth and age per kind of work, reconciliation lines by
 * state and the age of the oldest pending one, webhook endpoints by status (one cached snapshot of
 * the database, src/app/system/operations-snapshot.ts), and this process's connection pool.
 */
export function registerOperationsGauges(prom: PrometheusMetrics, ctx: AppContext, pool: pg.Pool): void {
  const snapshot = operationsSnapshot(ctx);
  const { registry } = prom;
  gaugeFromSnapshot(
    registry,
    {
      name: 'payops_queue_depth',
      help: 'Work waiting per kind (pg-boss queue or outbox), due now.',
      labelNames: ['queue'],
    },
    async () => (await snapshot()).queues.map((q) => ({ labels: { queue: q.queue }, value: q.queued })),
  );
  gaugeFromSnapshot(
    registry,
    { name: 'payops_queue_active', help: 'Jobs being worked on per pg-boss queue.', labelNames: ['queue'] },
    async () => (await snapshot()).queues.map((q) => ({ labels: { queue: q.queue }, value: q.active })),
  );
  gaugeFromSnapshot(
    registry,
    {
      name: 'payops_queue_oldest_age_seconds',
      help: 'Age of the oldest item due per kind of work (0 when none waits).',
      labelNames: ['queue'],
    },
    async () => (await snapshot()).queues.map((q) => ({ labels: { queue: q.queue }, value: q.oldestQueuedSeconds })),
  );
  gaugeFromSnapshot(
    registry,
    { name: 'payops_recon_lines', help: 'Payment lines by reconciliation state.', labelNames: ['state'] },
    async () => (await snapshot()).reconLines.map((r) => ({ labels: { state: r.key }, value: r.count })),
  );
  gaugeFromSnapshot(
    registry,
    {
      name: 'payops_recon_oldest_pending_line_age_seconds',
      help: 'Age of the oldest pending payment line of a converted or sent document (0 when none).',
    },
    async () => [{ value: (await snapshot()).oldestPendingLineSeconds }],
  );
  gaugeFromSnapshot(
    registry,
    {
      name: 'payops_webhook_endpoints',
      help: 'Webhook endpoints by status (enabled, disabled, auto-disabled).',
      labelNames: ['status'],
    },
    async () => (await snapshot()).webhookEndpoints.map((r) => ({ labels: { status: r.key }, value: r.count })),
  );
  gaugeFromSnapshot(
    registry,
    {
      name: 'payops_db_pool_connections',
      help: "This process's PostgreSQL pool: connections by state (in-use, idle) and callers waiting.",
      labelNames: ['state'],
    },
    async () => [
      { labels: { state: 'in-use' }, value: pool.totalCount - pool.idleCount },
      { labels: { state: 'idle' }, value: pool.idleCount },
      { labels: { state: 'waiting' }, value: pool.waitingCount },
      { labels: { state: 'max' }, value: pool.options.max ?? 10 },
    ],
  );
}
