import type { CompanyScope } from '../../db/executor.ts';
import { type CountKey, foldCompanyCounts, readCompanyCounts } from '../../db/repositories/journal-counts.ts';
import {
  choosePlan,
  countInRanges,
  entriesAfter,
  hasKeyFilter,
  keysMatching,
  type PagePlan,
  type PageRow,
  pageRows,
  SEARCH_WALK,
  sampleShare,
  searchIndexed,
  searchTail,
  searchWalk,
} from '../../db/repositories/journal-pages.ts';
import { type Count, countDocuments, type DocumentFilter, type PageKey } from '../../db/repositories/journal-reads.ts';
import { walkPageWithTotal } from '../../db/repositories/journal-walk-page.ts';
import type { AppContext } from '../context.ts';
import { EXACT_COUNT_UP_TO, matchCount } from './read-count.ts';

/**
 * One page of a company's journal and its `total`, for GET /journal/documents (docs/adr/0034, 0035):
 * - without text or dates, `total` is the exact sum of the company's kept counts;
 * - with dates, a selective filter's key ranges counted in the dates, else the count of
 *   read-count.ts (exact up to 10,000, else at most 30 s old);
 * - with text, exact when every match was seen (trigram index, a small company, the whole first
 *   page walked), else an estimate (`exact: false`): the matching share of a time-spread sample of
 *   the company's index entries times the entries (of the dates, or the company).
 */

/** A company's counts beyond this many delta rows per key are folded (after the read, not in it). */
const FOLD_AFTER_ROWS_PER_KEY = 4;
const folding = new Set<string>();

/** The company's kept counts; folds its delta rows in the background once they pile up. */
export async function companyCounts(ctx: AppContext, scope: CompanyScope): Promise<CountKey[]> {
  const counts = await readCompanyCounts(ctx.db, scope);
  foldWhenPiled(ctx, scope, counts.rows, counts.keys.length);
  return counts.keys;
}

/** Folds the company's count rows in the background once they pile up (one fold at a time). */
export function foldWhenPiled(ctx: AppContext, scope: CompanyScope, rows: number, keys: number): void {
  const id = `${scope.platformId}/${scope.companyId}`;
  if (rows > 16 + FOLD_AFTER_ROWS_PER_KEY * keys && !folding.has(id)) {
    folding.add(id);
    foldCompanyCounts(ctx.db, scope)
      .catch((error: unknown) => ctx.logger.warn({ err: error }, 'folding journal counts failed'))
      .finally(() => folding.delete(id));
  }
}

/** How many of the company's documents the filter's direction, type, statuses and collected keep. */
export function countOf(keys: readonly CountKey[], filter: DocumentFilter): number {
  return keysMatching(keys, filter).reduce((s, k) => s + k.n, 0);
}

export type DocumentsPage = { rows: PageRow[]; more: boolean; total: Count };

function cut(rows: PageRow[], limit: number) {
  return { rows: rows.length > limit ? rows.slice(0, limit) : rows, more: rows.length > limit };
}

export async function documentsPage(
  ctx: AppContext,
  scope: CompanyScope,
  filter: DocumentFilter,
  key: PageKey | undefined,
  limit: number,
): Promise<DocumentsPage> {
  const dated = filter.from !== undefined || filter.until !== undefined;
  if (filter.text !== undefined && filter.text !== '') return searchPage(ctx, scope, filter, filter.text, key, limit);
  if (isUnfiltered(filter)) {
    // The hot path (the first page and the pages after it): counts and page in one named statement.
    const page = await walkPageWithTotal(ctx.db, scope, key, limit + 1);
    foldWhenPiled(ctx, scope, page.countRows, page.countKeys);
    return { ...cut(page.rows, limit), total: exactly(page.total) };
  }
  // Without a key filter the plan is known before the counts: both in parallel.
  const [keys, plan, rows] = hasKeyFilter(filter)
    ? await companyCounts(ctx, scope).then(async (k) => {
        const chosen = choosePlan(k, filter, limit + 1);
        return [k, chosen, await pageRows(ctx.db, scope, chosen, filter, key, limit + 1)] as const;
      })
    : await Promise.all([
        companyCounts(ctx, scope),
        { kind: 'walk' } as const,
        pageRows(ctx.db, scope, { kind: 'walk' }, filter, key, limit + 1),
      ]);
  const total = dated ? await datedTotal(ctx, scope, plan, filter) : exactly(countOf(keys, filter));
  return { ...cut(rows, limit), total };
}

/** No text, dates or key filter: the page is the walk of the whole company. */
export function isUnfiltered(filter: DocumentFilter): boolean {
  const text = filter.text !== undefined && filter.text !== '';
  return !text && filter.from === undefined && filter.until === undefined && !hasKeyFilter(filter);
}

function exactly(count: number): Count {
  return { count, exact: true };
}

/**
 * A total with dates: a selective filter counts its key ranges in the dates (each at most
 * EXACT_COUNT_UP_TO + 1 entries); anything else is counted by read-count.ts (exact up to
 * EXACT_COUNT_UP_TO, else at most 30 s old).
 */
async function datedTotal(ctx: AppContext, scope: CompanyScope, plan: PagePlan, filter: DocumentFilter) {
  if (plan.kind === 'empty') return exactly(0);
  if (plan.kind === 'merge') {
    const n = await countInRanges(ctx.db, scope, plan.keys, filter, EXACT_COUNT_UP_TO);
    if (n <= EXACT_COUNT_UP_TO) return exactly(n);
  }
  return matchCount(ctx, scope, filter);
}

/** Four digits in a row and more than the tail the trigram index is given. */
function looksLikeIdentifier(text: string): boolean {
  return /\d{4}/.test(text) && searchTail(text) !== undefined;
}

async function searchPage(
  ctx: AppContext,
  scope: CompanyScope,
  filter: DocumentFilter,
  text: string,
  key: PageKey | undefined,
  limit: number,
): Promise<DocumentsPage> {
  // The entries left to walk: on a first page without dates, the company's documents (its kept
  // counts); otherwise counted alongside the walk (an index-only count of at most SEARCH_WALK, as
  // costly as half the walk: rare text's request is the walk, this count and the trigram index).
  const dated = filter.from !== undefined || filter.until !== undefined;
  // Text that looks like an identifier (a run of digits, a tail for the trigram index: message ids,
  // journal numbers, amounts) is rare: its trigram search runs alongside the walk, and whichever
  // answers first usable is taken (docs/adr/0050): the trigram search's answer is every match, exact,
  // so it stands alone; the walk's stands only when it filled the page.
  const eager = looksLikeIdentifier(text) ? searchIndexed(ctx.db, scope, filter, text, key, limit + 1) : undefined;
  const walking = Promise.all([
    searchWalk(ctx.db, scope, filter, text, key, limit + 1),
    companyCounts(ctx, scope),
    key === undefined && !dated ? undefined : entriesAfter(ctx.db, scope, filter, key, SEARCH_WALK),
  ]);
  if (eager !== undefined) {
    // The one not taken goes on to its end unawaited: its failure is nobody's.
    eager.catch(() => {});
    walking.catch(() => {});
    const indexedFirst = await Promise.race([eager, walking.then(() => undefined)]);
    if (indexedFirst !== undefined)
      return { ...cut(indexedFirst.rows, limit), total: { count: indexedFirst.total, exact: true } };
  }
  const [found, keys, counted] = await walking;
  const entries = counted ?? countOf(keys, {});
  const full = found.length > limit;
  // Fewer matches than asked for: the walk either reached the company's end (it saw every match
  // after the cursor) or its budget (rarer text: the trigram index finds the matches instead).
  if (!full && entries >= SEARCH_WALK) {
    const indexed = await (eager ?? searchIndexed(ctx.db, scope, filter, text, key, limit + 1));
    return { ...cut(indexed.rows, limit), total: { count: indexed.total, exact: true } };
  }
  if (key === undefined && !full) return { ...cut(found, limit), total: { count: found.length, exact: true } };
  // The matching share of a time-spread sample of the company's entries, times those entries.
  const base = dated
    ? (await matchCount(ctx, scope, { from: filter.from, until: filter.until })).count
    : countOf(keys, {});
  // A small company (or date range) is counted outright: at most EXACT_COUNT_UP_TO index entries.
  if (base <= EXACT_COUNT_UP_TO)
    return { ...cut(found, limit), total: await countDocuments(ctx.db, scope, filter, base) };
  const share = await sampleShare(ctx.db, scope, filter, text);
  const estimate = Math.max(found.length, Math.round(base * share));
  return { ...cut(found, limit), total: { count: estimate, exact: false } };
}
