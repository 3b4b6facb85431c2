import type { AppContext } from '../../app/context.ts';
import { hit } from '../../app/rate-limits.ts';

type Callback = (error: Error | null, result?: { current: number; ttl: number }) => void;
// What @fastify/rate-limit passes to child(): the route's merged limit options with the route under routeInfo.
type RouteLimitOptions = { routeInfo?: { method?: unknown; url?: unknown } };

/**
 * A @fastify/rate-limit store whose counters live in PostgreSQL (src/app/rate-limits.ts), so a limit
 * such as the production submit limit holds across every API process on the database, not per
 * process (DESIGN.md, Identity; docs/adr/0016). Each route gets its own key space.
 */
export function sharedRateLimitStore(ctx: AppContext) {
  return class SharedRateLimitStore {
    readonly prefix: string;

    constructor(_options?: unknown, prefix = 'route:') {
      this.prefix = prefix;
    }

    incr(key: string, callback: Callback, timeWindow: number): void {
      hit(ctx, `${this.prefix}${key}`, timeWindow).then(
        (count) =>
          callback(null, {
            current: count.hits,
            ttl: Math.max(0, count.resetAt.getTime() - ctx.clock.now().getTime()),
          }),
        (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
      );
    }

    child(routeOptions: object): SharedRateLimitStore {
      const route = (routeOptions as RouteLimitOptions).routeInfo;
      return new SharedRateLimitStore(undefined, `route:${String(route?.method ?? '')} ${String(route?.url ?? '')}:`);
    }
  };
}
