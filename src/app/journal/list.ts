import { listDocumentPage } from '../../db/repositories/journal-reads.ts';
import type { AppContext } from '../context.ts';
import { companyScope } from '../identity/company-scope.ts';
import type { Principal } from '../identity/principal.ts';
import { matchCount } from './read-count.ts';
import { decodePageCursor, encodePageCursor } from './read-documents.ts';

/** GET /journal/list page size (contract, Limits). */
export const LIST_DEFAULT_LIMIT = 500;
export const LIST_MAX_LIMIT = 1000;

export type ListQuery = {
  companyId: string;
  cursor?: string | undefined;
  limit?: number | undefined;
  direction?: string | undefined;
  type?: string | undefined;
  uncollectedOnly?: boolean | undefined;
};

/**
 * GET /journal/list: the collection view, newest first, metadata only. `total` counts what this
 * listing walks (direction, type and uncollectedOnly applied), `uncollected` how many of the
 * direction/type matches are not collected yet. Both are exact up to EXACT_COUNT_UP_TO matches and
 * at most LARGE_COUNT_TTL_MS old above it (`countsExact: false`; see read-count.ts).
 */
export async function journalList(ctx: AppContext, principal: Principal, query: ListQuery) {
  const scope = await companyScope(ctx, principal, query.companyId);
  const limit = Math.min(query.limit ?? LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT);
  const key = decodePageCursor(query.cursor);
  const base = { direction: query.direction, type: query.type };
  const filter = query.uncollectedOnly ? { ...base, collected: false } : base;
  const [rows, total, uncollected] = await Promise.all([
    listDocumentPage(ctx.db, scope, filter, key, limit + 1),
    matchCount(ctx, scope, filter),
    query.uncollectedOnly ? undefined : matchCount(ctx, scope, { ...base, collected: false }),
  ]);
  const uncollectedCount = uncollected ?? total;
  const more = rows.length > limit;
  const items = more ? rows.slice(0, limit) : rows;
  const last = items[items.length - 1];
  return {
    total: total.count,
    uncollected: uncollectedCount.count,
    countsExact: total.exact && uncollectedCount.exact,
    nextCursor: more && last ? encodePageCursor(last) : null,
    items: items.map((r) => ({
      journalNo: r.journalNo,
      direction: r.direction,
      type: r.type,
      sourceFormat: r.sourceFormat,
      bankKey: r.bankKey,
      summary: r.summary,
      status: r.status,
      collected: r.collected,
      collectedAt: r.collectedAt?.toISOString() ?? null,
      createdAt: r.createdAt.toISOString(),
      expiresAt: r.expiresAt?.toISOString() ?? null,
    })),
  };
}
