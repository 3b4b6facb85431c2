import { choosePlan, pageRows } from '../../db/repositories/journal-pages.ts';
import type { AppContext } from '../context.ts';
import { companyScope } from '../identity/company-scope.ts';
import type { Principal } from '../identity/principal.ts';
import { decodePageCursor, encodePageCursor } from './read-documents.ts';
import { companyCounts, countOf } from './read-page.ts';

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
 * direction/type matches are not collected yet; both exact, from the company's kept counts. The
 * items are the driver's rows with the timestamps already in ISO form (no ORM mapping, no Date).
 */
export async function journalList(ctx: AppContext, principal: Principal, query: ListQuery) {
  const scope = await companyScope(ctx, principal, query.companyId);
  const limit = Math.min(query.limit ?? LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT);
  const key = decodePageCursor(query.cursor);
  const base = { direction: query.direction, type: query.type };
  const filter = query.uncollectedOnly ? { ...base, collected: false } : base;
  const keys = await companyCounts(ctx, scope);
  const rows = await pageRows(ctx.db, scope, choosePlan(keys, filter, limit + 1), filter, key, limit + 1);
  const more = rows.length > limit;
  const items = more ? rows.slice(0, limit) : rows;
  const last = items[items.length - 1];
  return {
    total: countOf(keys, filter),
    uncollected: countOf(keys, { ...base, collected: false }),
    countsExact: true,
    nextCursor: more && last ? encodePageCursor({ sortKey: last.sort_key, id: last.id }) : null,
    items: items.map((r) => ({
      journalNo: r.journal_no,
      direction: r.direction,
      type: r.type,
      sourceFormat: r.source_format,
      bankKey: r.bank_key,
      summary: r.summary,
      status: r.status,
      collected: r.collected,
      collectedAt: r.collected_at,
      createdAt: r.created_at,
      expiresAt: r.expires_at,
    })),
  };
}
