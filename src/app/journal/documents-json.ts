import { walkPageWithTotal } from '../../db/repositories/journal-walk-page.ts';
import { recentCachePer } from '../../platform/recent-cache.ts';
import type { AppContext } from '../context.ts';
import { companyScope } from '../identity/company-scope.ts';
import type { Principal } from '../identity/principal.ts';
import { pageItemView } from './document-view.ts';
import {
  amountFilter,
  DOCUMENTS_DEFAULT_LIMIT,
  DOCUMENTS_MAX_LIMIT,
  type DocumentsQuery,
  decodePageCursor,
  documentFilter,
  encodePageCursor,
  listDocuments,
} from './read-documents.ts';
import { foldWhenPiled, isUnfiltered } from './read-page.ts';

/**
 * GET /journal/documents as the JSON text sent (docs/adr/0053). The unfiltered first page, the one
 * dashboards and ERP syncs poll, keeps its items' JSON per process with the page's version; every
 * request still reads the company's counts and the page's version in one statement, in the snapshot
 * of the request, and takes the kept JSON only when the version is unchanged (the same rows, none
 * inserted, updated or deleted). A document submitted is in the next answer; `total` is always read.
 */

type KeptPage = { version: string; items: string; nextCursor: string };

/** Pages kept per process: first pages of at most KEPT_UP_TO documents (38 KB of JSON for 50). */
const keptPages = recentCachePer<KeptPage>(256);
const KEPT_UP_TO = 100;

export async function documentsJson(ctx: AppContext, principal: Principal, query: DocumentsQuery): Promise<string> {
  // Checked in listDocuments' order, so a request answers the same error either way.
  const scope = await companyScope(ctx, principal, query.companyId);
  const filter = documentFilter(query);
  const limit = Math.min(query.limit ?? DOCUMENTS_DEFAULT_LIMIT, DOCUMENTS_MAX_LIMIT);
  const firstPage =
    limit <= KEPT_UP_TO &&
    decodePageCursor(query.cursor) === undefined &&
    amountFilter(query.amountMin, query.amountMax) === undefined &&
    isUnfiltered(filter);
  if (!firstPage) return JSON.stringify(await listDocuments(ctx, principal, query));
  const kept = keptPages(ctx.db);
  const id = `${scope.platformId}/${scope.companyId}/${limit}`;
  const known = kept.get(id);
  const page = await walkPageWithTotal(ctx.db, scope, undefined, limit + 1, known?.version);
  foldWhenPiled(ctx, scope, page.countRows, page.countKeys);
  let answer = known;
  if (!page.unchanged || answer === undefined) {
    const rows = page.rows.slice(0, limit);
    const last = rows[rows.length - 1];
    const nextCursor =
      page.rows.length > limit && last ? encodePageCursor({ sortKey: last.sort_key, id: last.id }) : null;
    answer = {
      version: page.version,
      items: JSON.stringify(rows.map(pageItemView)),
      nextCursor: JSON.stringify(nextCursor),
    };
    kept.set(id, answer);
  }
  // The keys in listDocuments' order: the same text JSON.stringify makes of its answer.
  return `{"items":${answer.items},"nextCursor":${answer.nextCursor},"total":${page.total},"totalExact":true}`;
}
