import { type SQL, sql } from 'drizzle-orm';
import type { CompanyScope, Executor } from '../executor.ts';
import type { Totals } from '../schema/journal.ts';
import type { CountKey } from './journal-counts.ts';
import { type DocumentFilter, type DocumentMetaRow, likePattern, NOT_LISTED, type PageKey } from './journal-reads.ts';

/**
 * Keyset pages of a company's journal, newest first on (created_at desc, id desc), by one of three
 * access paths (docs/adr/0034), each a single statement whose cost depends on the page, not on the
 * company:
 * - walk: journal_documents_page_idx from the cursor on. Its entries carry direction, type, status,
 *   collected and the searched text, so filters are tested in the index and only the page's rows are
 *   read from the heap;
 * - merge: journal_documents_filter_idx, one ordered range per (direction, type, status, collected)
 *   key the filter names, merged (a selective filter, where the walk would pass many entries by);
 * - text search: a walk of at most SEARCH_WALK entries, then the trigram index for rarer text.
 * Rows are mapped here from the driver's rows, not by the ORM's row mapper (it was most of the
 * 500-row pages' CPU time).
 */

/** One statement per page; the list and reconciliation routes read the same columns. */
export const PAGE_COLUMNS = `d.id, d.platform_id, d.company_id, d.journal_no, d.direction, d.type, d.source_format,
  d.bank_key, d.environment, d.status, d.message_id, d.import_source, d.transaction_count, d.totals,
  d.payment_type, d.idempotency_key, d.delivery_mode, d.delivery_status, d.summary, d.account_iban,
  d.account_currency, d.collected,
  to_char(d.collected_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS collected_at,
  to_char(d.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at,
  to_char(d.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS updated_at,
  to_char(d.expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS expires_at,
  to_char(d.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS sort_key`;
const columns = sql.raw(PAGE_COLUMNS);

/** Page order, exactly the indexes' (DESC NULLS LAST: a plain DESC would make PostgreSQL sort). */
const ORDER = sql.raw('created_at DESC NULLS LAST, id DESC NULLS LAST');
export const PAGE_ORDER = 'd.created_at DESC NULLS LAST, d.id DESC NULLS LAST';
const D_ORDER = sql.raw(PAGE_ORDER);

export type PageRow = {
  id: string;
  platform_id: string;
  company_id: string;
  journal_no: string;
  direction: string;
  type: string;
  source_format: string;
  bank_key: string | null;
  environment: string;
  status: DocumentMetaRow['status'];
  message_id: string | null;
  import_source: string;
  transaction_count: number;
  totals: Totals;
  payment_type: string | null;
  idempotency_key: string | null;
  delivery_mode: DocumentMetaRow['deliveryMode'];
  delivery_status: DocumentMetaRow['deliveryStatus'];
  summary: string;
  account_iban: string | null;
  account_currency: string | null;
  collected: boolean;
  collected_at: string | null;
  created_at: string;
  updated_at: string;
  expires_at: string | null;
  sort_key: string;
};

/** The metadata row the document views take (sealed columns and digests empty). */
export function metaRowOf(r: PageRow): DocumentMetaRow {
  return {
    id: r.id,
    platformId: r.platform_id,
    companyId: r.company_id,
    journalNo: r.journal_no,
    direction: r.direction,
    type: r.type,
    sourceFormat: r.source_format,
    bankKey: r.bank_key,
    environment: r.environment,
    status: r.status,
    messageId: r.message_id,
    importSource: r.import_source,
    transactionCount: r.transaction_count,
    totals: r.totals,
    paymentType: r.payment_type,
    idempotencyKey: r.idempotency_key,
    deliveryMode: r.delivery_mode,
    deliveryStatus: r.delivery_status,
    summary: r.summary,
    accountIban: r.account_iban,
    accountCurrency: r.account_currency,
    collected: r.collected,
    collectedAt: r.collected_at === null ? null : new Date(r.collected_at),
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
    expiresAt: r.expires_at === null ? null : new Date(r.expires_at),
    sortKey: r.sort_key,
    ...NOT_LISTED,
  };
}

export type PagePlan = { kind: 'walk' } | { kind: 'merge'; keys: CountKey[] } | { kind: 'empty' };

/**
 * Plan costs in index entries passed: a walk passes about limit × (documents / matches) entries; a
 * merge about `limit` per range, plus the start of each range (a descent, worth about RANGE_START
 * entries).
 */
const RANGE_START = 100;
const MAX_MERGED_RANGES = 32;

/** The count keys an equality filter keeps. */
export function keysMatching(keys: readonly CountKey[], filter: DocumentFilter): CountKey[] {
  const statuses = filter.statuses && filter.statuses.length > 0 ? new Set(filter.statuses) : undefined;
  return keys.filter(
    (k) =>
      (filter.direction === undefined || k.direction === filter.direction) &&
      (filter.type === undefined || k.type === filter.type) &&
      (filter.collected === undefined || k.collected === filter.collected) &&
      (statuses === undefined || statuses.has(k.status)),
  );
}

export function hasKeyFilter(filter: DocumentFilter): boolean {
  return (
    filter.direction !== undefined ||
    filter.type !== undefined ||
    filter.collected !== undefined ||
    (filter.statuses !== undefined && filter.statuses.length > 0)
  );
}

/** Walk or merge, whichever passes fewer entries by the company's exact counts. */
export function choosePlan(keys: readonly CountKey[], filter: DocumentFilter, limit: number): PagePlan {
  if (!hasKeyFilter(filter)) return { kind: 'walk' };
  const matching = keysMatching(keys, filter);
  const matches = matching.reduce((s, k) => s + k.n, 0);
  if (matches <= 0) return { kind: 'empty' };
  const all = keys.reduce((s, k) => s + k.n, 0);
  const walk = (limit * all) / matches;
  const merge = matching.length * (Math.min(limit, matches) + RANGE_START);
  return walk <= merge || matching.length > MAX_MERGED_RANGES ? { kind: 'walk' } : { kind: 'merge', keys: matching };
}

function keyConditions(filter: DocumentFilter): SQL[] {
  const out: SQL[] = [];
  if (filter.direction !== undefined) out.push(sql`direction = ${filter.direction}`);
  if (filter.type !== undefined) out.push(sql`type = ${filter.type}`);
  if (filter.collected !== undefined) out.push(sql`collected = ${filter.collected}`);
  if (filter.statuses !== undefined && filter.statuses.length > 0)
    out.push(sql`status = ANY(${textArray(filter.statuses)}::text[])`);
  return out;
}

/** Dates and the cursor, on the columns of `alias` (or unqualified). */
function rangeConditions(filter: DocumentFilter, key: PageKey | undefined, alias = ''): SQL[] {
  const at = sql.raw(`${alias}created_at`);
  const id = sql.raw(`${alias}id`);
  const out: SQL[] = [];
  if (filter.from !== undefined) out.push(sql`${at} >= ${filter.from.toISOString()}::timestamptz`);
  if (filter.until !== undefined) out.push(sql`${at} < ${filter.until.toISOString()}::timestamptz`);
  // A row comparison on the indexes' own columns: PostgreSQL starts the index range there.
  if (key !== undefined) out.push(sql`(${at}, ${id}) < (${key.sortKey}::timestamptz, ${key.id})`);
  return out;
}

/** A text[] literal of the values, each quoted. */
function textArray(values: readonly string[]): string {
  return `{${values.map((v) => `"${v.replace(/["\\]/g, (c) => `\\${c}`)}"`).join(',')}}`;
}

function all(conditions: SQL[]): SQL {
  return conditions.length === 0 ? sql`TRUE` : sql.join(conditions, sql` AND `);
}

async function rowsOf(q: Executor, query: SQL): Promise<PageRow[]> {
  return (await q.execute<PageRow>(query)).rows;
}

/** Up to `limit` documents after `key` matching `filter` (no text), by the plan given. */
export async function pageRows(
  q: Executor,
  scope: CompanyScope,
  plan: PagePlan,
  filter: DocumentFilter,
  key: PageKey | undefined,
  limit: number,
): Promise<PageRow[]> {
  if (plan.kind === 'empty') return [];
  const company = sql`company_id = ${scope.companyId}`;
  const range = rangeConditions(filter, key);
  if (plan.kind === 'merge') {
    // Each range gives at most `limit` entries of its own (index only), newest first; the newest
    // `limit` of them all are read from the heap.
    const branches = plan.keys.map(
      (k) => sql`(SELECT id, created_at FROM journal_documents
        WHERE ${company} AND direction = ${k.direction} AND type = ${k.type} AND status = ${k.status}
          AND collected = ${k.collected} AND ${all(range)}
        ORDER BY ${ORDER} LIMIT ${limit})`,
    );
    return rowsOf(
      q,
      sql`SELECT ${columns} FROM (
          SELECT id, created_at FROM (${sql.join(branches, sql` UNION ALL `)}) AS ranges
          ORDER BY ${ORDER} LIMIT ${limit}) AS page
        JOIN journal_documents d ON d.id = page.id
        WHERE d.platform_id = ${scope.platformId}
        ORDER BY ${D_ORDER}`,
    );
  }
  const tests = keyConditions(filter);
  if (tests.length === 0) {
    return rowsOf(
      q,
      sql`SELECT ${columns} FROM journal_documents d
        WHERE d.company_id = ${scope.companyId} AND d.platform_id = ${scope.platformId}
          AND ${all(rangeConditions(filter, key, 'd.'))}
        ORDER BY ${D_ORDER} LIMIT ${limit}`,
    );
  }
  // The page's ids from the index alone (every column tested is in it), then their rows.
  return rowsOf(
    q,
    sql`SELECT ${columns} FROM (
        SELECT id FROM journal_documents WHERE ${company} AND ${all([...tests, ...range])}
        ORDER BY ${ORDER} LIMIT ${limit}) AS page
      JOIN journal_documents d ON d.id = page.id
      WHERE d.platform_id = ${scope.platformId}
      ORDER BY ${D_ORDER}`,
  );
}

/**
 * How many documents of the merge plan's key ranges lie in the filter's dates, counting each range no
 * further than cap + 1 entries (index only): a dated total for a selective filter.
 */
export async function countInRanges(
  q: Executor,
  scope: CompanyScope,
  keys: readonly CountKey[],
  filter: DocumentFilter,
  cap: number,
): Promise<number> {
  if (keys.length === 0) return 0;
  const range = all(rangeConditions(filter, undefined));
  const branches = keys.map(
    (k) => sql`(SELECT 1 FROM journal_documents
      WHERE company_id = ${scope.companyId} AND direction = ${k.direction} AND type = ${k.type}
        AND status = ${k.status} AND collected = ${k.collected} AND ${range} LIMIT ${cap + 1})`,
  );
  const result = await q.execute<{ n: number }>(
    sql`SELECT count(*)::int AS n FROM (${sql.join(branches, sql` UNION ALL `)}) AS entries`,
  );
  return Number(result.rows[0]?.n ?? 0);
}

/** How many index entries a text search walks before it asks the trigram index instead. */
export const SEARCH_WALK = 20_000;

/**
 * Text search, first try: newest first from the cursor over at most SEARCH_WALK index entries,
 * testing the searched text and the filters in the index, until `limit` rows match. Frequent text
 * (a supplier, a status, a currency) fills a page within a few thousand entries.
 */
export async function searchWalk(
  q: Executor,
  scope: CompanyScope,
  filter: DocumentFilter,
  text: string,
  key: PageKey | undefined,
  limit: number,
): Promise<PageRow[]> {
  const hit = all([sql`search_text LIKE lower(${likePattern(text)}) ESCAPE '\\'`, ...keyConditions(filter)]);
  return rowsOf(
    q,
    sql`SELECT ${columns} FROM (
        SELECT id FROM (
          SELECT id, created_at, direction, type, status, collected, search_text FROM journal_documents
           WHERE company_id = ${scope.companyId} AND ${all(rangeConditions(filter, key))}
           ORDER BY ${ORDER} LIMIT ${SEARCH_WALK}) AS walked
         WHERE ${hit}
         ORDER BY ${ORDER} LIMIT ${limit}) AS page
      JOIN journal_documents d ON d.id = page.id
      WHERE d.platform_id = ${scope.platformId}
      ORDER BY ${D_ORDER}`,
  );
}

/**
 * How many index entries lie in the dates from the cursor on, counting no further than `cap`: whether
 * a text search walk stopped at its budget or at the company's end.
 */
export async function entriesAfter(
  q: Executor,
  scope: CompanyScope,
  filter: DocumentFilter,
  key: PageKey | undefined,
  cap: number,
): Promise<number> {
  const result = await q.execute<{ n: number }>(sql`
    SELECT count(*)::int AS n FROM (
      SELECT 1 FROM journal_documents
       WHERE company_id = ${scope.companyId} AND ${all(rangeConditions(filter, key))}
       ORDER BY ${ORDER} LIMIT ${cap}) AS entries`);
  return Number(result.rows[0]?.n ?? 0);
}

const STRATA = 16;
const PER_STRATUM = 200;

/**
 * The share of the company's documents (within the dates) that match the text and filters, from
 * STRATA runs of PER_STRATUM index entries spread evenly over the time the documents span: for the
 * estimated `total` of frequent text. A sample of the newest documents alone would be biased (the
 * newest are the ones still in flight).
 */
export async function sampleShare(
  q: Executor,
  scope: CompanyScope,
  filter: DocumentFilter,
  text: string,
): Promise<number> {
  const hit = all([sql`search_text LIKE lower(${likePattern(text)}) ESCAPE '\\'`, ...keyConditions(filter)]);
  const dates = all(rangeConditions(filter, undefined));
  const result = await q.execute<{ hits: number; seen: number }>(sql`
    WITH span AS (
      SELECT (SELECT min(created_at) FROM journal_documents WHERE company_id = ${scope.companyId} AND ${dates}) AS lo,
             (SELECT max(created_at) FROM journal_documents WHERE company_id = ${scope.companyId} AND ${dates}) AS hi)
    SELECT coalesce(sum(s.hits), 0)::int AS hits, coalesce(sum(s.seen), 0)::int AS seen
      FROM span, generate_series(0, ${STRATA - 1}) AS g,
           LATERAL (SELECT count(*) FILTER (WHERE e.hit) AS hits, count(*) AS seen FROM (
             SELECT coalesce(${hit}, FALSE) AS hit FROM journal_documents
              WHERE company_id = ${scope.companyId} AND ${dates}
                AND created_at <= span.lo + (span.hi - span.lo) * ((g + 1)::float8 / ${STRATA})
              ORDER BY ${ORDER} LIMIT ${PER_STRATUM}) AS e) AS s`);
  const row = result.rows[0];
  return row && row.seen > 0 ? row.hits / row.seen : 0;
}

/**
 * How much of rare text the trigram index is given: its tail, from its TAIL_CHARACTERS-th letter or
 * digit from the end on. The index reads the whole posting list of every trigram it is given, and an
 * identifier's head is made of trigrams nearly every document has (`msg`, `202`, `025`… of
 * `MSG-20251127-400000`: about 3,000 index pages at a million documents), while its tail (`-400000`)
 * already narrows it to a few hundred candidates (about 700 pages). docs/adr/0050.
 */
const TAIL_CHARACTERS = 8;
/** Candidates of the tail beyond which the whole text is given to the index instead. */
export const TAIL_CANDIDATES = 1000;

/** The tail of `text` the index is given, or undefined when that is the whole text. */
export function searchTail(text: string): string | undefined {
  const chars = Array.from(text);
  let seen = 0;
  for (let i = chars.length - 1; i > 0; i--) {
    if (/[\p{L}\p{N}]/u.test(chars[i]!) && ++seen === TAIL_CHARACTERS) return chars.slice(i).join('');
  }
  return undefined;
}

/**
 * Text search for rarer text: every match of the company through the trigram index (an exact
 * count), and the page after the cursor among them. Longer text gives the index its tail only and
 * tests the whole text on the candidates; when the tail has more than TAIL_CANDIDATES of them, the
 * statement's other branch gives the index the whole text (a one-time filter: one of the two runs).
 */
export async function searchIndexed(
  q: Executor,
  scope: CompanyScope,
  filter: DocumentFilter,
  text: string,
  key: PageKey | undefined,
  limit: number,
): Promise<{ rows: PageRow[]; total: number }> {
  const whole = sql`search_text LIKE lower(${likePattern(text)}) ESCAPE '\\'`;
  const tenant = [sql`company_id = ${scope.companyId}`, sql`platform_id = ${scope.platformId}`];
  const dates = rangeConditions(filter, undefined);
  const match = all([...tenant, whole, ...keyConditions(filter), ...dates]);
  const tail = searchTail(text);
  // The candidates are materialised first, so the whole text is tested on them, not given to the index.
  const matches =
    tail === undefined
      ? sql`m AS MATERIALIZED (SELECT id, created_at FROM journal_documents WHERE ${match})`
      : sql`c AS MATERIALIZED (
          SELECT id, created_at, direction, type, status, collected, search_text FROM journal_documents
           WHERE ${all([...tenant, sql`search_text LIKE lower(${likePattern(tail)}) ESCAPE '\\'`, ...dates])}
           LIMIT ${TAIL_CANDIDATES + 1}),
         m AS MATERIALIZED (
          SELECT id, created_at FROM c
           WHERE ${all([whole, ...keyConditions(filter)])} AND (SELECT count(*) FROM c) <= ${TAIL_CANDIDATES}
          UNION ALL
          SELECT id, created_at FROM journal_documents
           WHERE ${match} AND (SELECT count(*) FROM c) > ${TAIL_CANDIDATES})`;
  const after = all(rangeConditions({}, key));
  const result = await q.execute<PageRow & { total: string }>(sql`
    WITH ${matches},
         page AS (SELECT id FROM m WHERE ${after} ORDER BY ${ORDER} LIMIT ${limit})
    SELECT ${columns}, t.n::text AS total
      FROM (SELECT count(*) AS n FROM m) AS t
      LEFT JOIN (page JOIN journal_documents d ON d.id = page.id) ON TRUE
     ORDER BY ${D_ORDER}`);
  const total = Number(result.rows[0]?.total ?? 0);
  return { rows: result.rows.filter((r) => r.id !== null), total };
}

export type ReconRow = PageRow & {
  line_count: number;
  cleared_count: number;
  rejected_count: number;
  latest_evidence: Record<string, unknown> | null;
};

/** A page of outbound documents with their lines' states counted and the newest line evidence. */
export async function reconciliationRows(
  q: Executor,
  scope: CompanyScope,
  plan: PagePlan,
  key: PageKey | undefined,
  limit: number,
): Promise<ReconRow[]> {
  const page = await pageRows(q, scope, plan, { direction: 'outbound' }, key, limit);
  if (page.length === 0) return [];
  // One pass over each document's lines (its primary key range), for the page's documents only.
  const lines = await q.execute<{
    document_id: string;
    line_count: number;
    cleared_count: number;
    rejected_count: number;
    latest_evidence: Record<string, unknown> | null;
  }>(sql`
    SELECT l.document_id, count(*)::int AS line_count,
           (count(*) FILTER (WHERE l.state = 'cleared'))::int AS cleared_count,
           (count(*) FILTER (WHERE l.state = 'rejected'))::int AS rejected_count,
           (array_agg(l.evidence ORDER BY l.updated_at DESC, l.line_index DESC)
              FILTER (WHERE l.evidence IS NOT NULL))[1] AS latest_evidence
      FROM payment_lines l
     WHERE l.document_id = ANY(${textArray(page.map((r) => r.id))}::text[])
       AND l.company_id = ${scope.companyId} AND l.platform_id = ${scope.platformId}
     GROUP BY l.document_id`);
  const byDocument = new Map(lines.rows.map((l) => [l.document_id, l]));
  return page.map((r) => {
    const l = byDocument.get(r.id);
    return {
      ...r,
      line_count: l?.line_count ?? 0,
      cleared_count: l?.cleared_count ?? 0,
      rejected_count: l?.rejected_count ?? 0,
      latest_evidence: l?.latest_evidence ?? null,
    };
  });
}
