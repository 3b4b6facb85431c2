import type { CompanyScope } from '../../db/executor.ts';
import { type Count, countDocuments, type DocumentFilter } from '../../db/repositories/journal-reads.ts';
import type { AppContext } from '../context.ts';

/**
 * `total` of the journal list routes without counting a large company on every request.
 *
 * - Up to EXACT_COUNT_UP_TO matches the count is exact on every request: a count that stops after
 *   cap + 1 index entries (a fraction of a millisecond).
 * - Above it, the figure is an exact count taken at most LARGE_COUNT_TTL_MS ago (`exact: false`),
 *   kept per process per tenant and filter; once expired it is still served while one refresh
 *   runs in the background. While a large count is fresh, no count query runs at all.
 *
 * So a company with 100,000 documents pays one full count (tens of ms) per filter per process every
 * 30 seconds instead of one per page request, and its total lags inserts by at most that long.
 */
export const EXACT_COUNT_UP_TO = 10_000;
export const LARGE_COUNT_TTL_MS = 30_000;
const MAX_ENTRIES = 2000;

type Entry = { count: number; at: number; refreshing: Promise<number> | undefined };
const large = new Map<string, Entry>();

function keyOf(scope: CompanyScope, filter: DocumentFilter): string {
  return JSON.stringify([scope.platformId, scope.companyId, filter]);
}

function remember(key: string, count: number, at: number): void {
  if (large.size >= MAX_ENTRIES && !large.has(key)) large.delete(large.keys().next().value as string);
  large.set(key, { count, at, refreshing: undefined });
}

async function fullCount(ctx: AppContext, scope: CompanyScope, filter: DocumentFilter): Promise<number> {
  return (await countDocuments(ctx.db, scope, filter, Number.MAX_SAFE_INTEGER)).count;
}

export async function matchCount(ctx: AppContext, scope: CompanyScope, filter: DocumentFilter): Promise<Count> {
  const key = keyOf(scope, filter);
  const now = ctx.clock.now().getTime();
  const cached = large.get(key);
  if (cached) {
    if (now - cached.at > LARGE_COUNT_TTL_MS && !cached.refreshing) {
      cached.refreshing = fullCount(ctx, scope, filter).then(
        (count) => {
          if (count > EXACT_COUNT_UP_TO) remember(key, count, ctx.clock.now().getTime());
          else large.delete(key);
          return count;
        },
        (error: unknown) => {
          cached.refreshing = undefined;
          ctx.logger.warn({ err: error }, 'journal count refresh failed');
          return cached.count;
        },
      );
    }
    return { count: cached.count, exact: false };
  }
  const capped = await countDocuments(ctx.db, scope, filter, EXACT_COUNT_UP_TO);
  if (capped.count <= EXACT_COUNT_UP_TO) return { count: capped.count, exact: true };
  const count = await fullCount(ctx, scope, filter);
  remember(key, count, ctx.clock.now().getTime());
  return { count, exact: count <= EXACT_COUNT_UP_TO };
}
