import {
  type CountBy,
  oldestPendingLineSeconds,
  type QueueStat,
  queueStats,
  reconLinesByState,
  webhookEndpointsByStatus,
} from '../../db/repositories/operations-stats.ts';
import type { AppContext } from '../context.ts';

/** What GET /metrics reports about the database as a whole (queues, reconciliation, webhooks). */
export type OperationsSnapshot = {
  queues: QueueStat[];
  reconLines: CountBy[];
  oldestPendingLineSeconds: number;
  webhookEndpoints: CountBy[];
};

/**
 * The snapshot, read at most once per `maxAgeMs`: Prometheus may scrape every few seconds from
 * several servers, and each read is a handful of aggregate queries. Concurrent scrapes share one
 * read in flight.
 */
export function operationsSnapshot(ctx: AppContext, maxAgeMs = 10_000): () => Promise<OperationsSnapshot> {
  let cached: { at: number; value: Promise<OperationsSnapshot> } | undefined;
  const read = async (): Promise<OperationsSnapshot> => {
    const [queues, reconLines, oldest, webhookEndpoints] = await Promise.all([
      queueStats(ctx.db),
      reconLinesByState(ctx.db),
      oldestPendingLineSeconds(ctx.db),
      webhookEndpointsByStatus(ctx.db),
    ]);
    return { queues, reconLines, oldestPendingLineSeconds: oldest, webhookEndpoints };
  };
  return () => {
    const now = ctx.clock.now().getTime();
    if (!cached || now - cached.at >= maxAgeMs) {
      const value = read();
      cached = { at: now, value };
      // A failed read is not kept: the next scrape tries again.
      value.catch(() => {
        if (cached?.value === value) cached = undefined;
      });
    }
    return cached.value;
  };
}
