import { metaRowOf } from '../../db/repositories/journal-pages.ts';
import type { DocumentFilter, DocumentMetaRow, PageKey } from '../../db/repositories/journal-reads.ts';
import { compareDecimal, type Decimal, parsePlainDecimal } from '../../domain/money/decimal.ts';
import type { AppContext } from '../context.ts';
import { badRequest } from '../errors.ts';
import { companyScope } from '../identity/company-scope.ts';
import type { Principal } from '../identity/principal.ts';
import { decodeCursor, encodeCursor } from '../pagination.ts';
import { documentView, pageItemView } from './document-view.ts';
import { documentsPage } from './read-page.ts';

/** GET /journal/documents page size (the contract leaves it open; docs/journal-reads.md). */
export const DOCUMENTS_DEFAULT_LIMIT = 50;
export const DOCUMENTS_MAX_LIMIT = 1000;

export type DocumentsQuery = {
  companyId: string;
  direction?: string | undefined;
  type?: string | undefined;
  collected?: boolean | undefined;
  q?: string | undefined;
  status?: string | undefined;
  amountMin?: string | undefined;
  amountMax?: string | undefined;
  dateFrom?: string | undefined;
  dateTo?: string | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
};

const SORT_KEY = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** Journal page cursors: the last row's created_at (microseconds, UTC) and id. */
export function encodePageCursor(row: { sortKey: string; id: string }): string {
  return encodeCursor(`${row.sortKey}|${row.id}`);
}

export function decodePageCursor(cursor: string | undefined): PageKey | undefined {
  const key = decodeCursor(cursor);
  if (key === undefined) return undefined;
  const bar = key.indexOf('|');
  const sortKey = key.slice(0, bar);
  const id = key.slice(bar + 1);
  if (bar < 0 || !SORT_KEY.test(sortKey) || id === '') throw badRequest('invalid cursor');
  return { sortKey, id };
}

/** A calendar date as the UTC midnight that starts it; 400 when it is not a real YYYY-MM-DD date. */
function utcDay(value: string, field: string): Date {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const date = m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : undefined;
  if (!date || date.toISOString().slice(0, 10) !== value)
    throw badRequest(`${field} must be a date YYYY-MM-DD`, { field });
  return date;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Filters shared by the list routes, from query text; bad dates are 400. */
export function documentFilter(query: DocumentsQuery): DocumentFilter {
  const statuses = query.status
    ?.split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  return {
    direction: query.direction,
    type: query.type,
    collected: query.collected,
    text: query.q,
    statuses: statuses && statuses.length > 0 ? statuses : undefined,
    from: query.dateFrom === undefined ? undefined : utcDay(query.dateFrom, 'dateFrom'),
    until: query.dateTo === undefined ? undefined : new Date(utcDay(query.dateTo, 'dateTo').getTime() + DAY_MS),
  };
}

/** A decimal string, or undefined when it is not one (amountMin/amountMax: ignored without error). */
function bound(text: string | undefined): Decimal | undefined {
  return text === undefined ? undefined : parsePlainDecimal(text.trim());
}

/**
 * amountMin/amountMax keep a document when one of its totals lies within the bounds (inclusive). A
 * total is compared exactly as a decimal, so "10.5" and "10.50" EUR are the same amount.
 */
export function amountFilter(min: string | undefined, max: string | undefined) {
  const low = bound(min);
  const high = bound(max);
  if (!low && !high) return undefined;
  return (row: DocumentMetaRow): boolean =>
    row.totals.some((t) => {
      const amount = bound(t.amount);
      if (!amount) return false;
      return (!low || compareDecimal(amount, low) >= 0) && (!high || compareDecimal(amount, high) <= 0);
    });
}

/** A list summary: the document's metadata, never its payload or file. */
export function summaryView(row: DocumentMetaRow) {
  return documentView(row);
}

/**
 * GET /journal/documents: newest first on (created_at desc, id desc). The keyset cursor is the last
 * row's position, so documents inserted while a client pages (always newer, hence before the
 * cursor) neither repeat nor push others out of the walk. amountMin/amountMax filter the fetched
 * page only (contract, Limits): a page may hold fewer items than `limit` while nextCursor goes on.
 */
export async function listDocuments(ctx: AppContext, principal: Principal, query: DocumentsQuery) {
  const scope = await companyScope(ctx, principal, query.companyId);
  const filter = documentFilter(query);
  const key = decodePageCursor(query.cursor);
  const limit = Math.min(query.limit ?? DOCUMENTS_DEFAULT_LIMIT, DOCUMENTS_MAX_LIMIT);
  const { rows, more, total } = await documentsPage(ctx, scope, filter, key, limit);
  const keep = amountFilter(query.amountMin, query.amountMax);
  const last = rows[rows.length - 1];
  return {
    // Without amount bounds the rows go to the view directly (no Date objects between).
    items: keep ? rows.map(metaRowOf).filter(keep).map(summaryView) : rows.map(pageItemView),
    nextCursor: more && last ? encodePageCursor({ sortKey: last.sort_key, id: last.id }) : null,
    total: total.count,
    totalExact: total.exact,
  };
}
