import type { Db } from '../client.ts';
import type { CompanyScope } from '../executor.ts';
import { PAGE_COLUMNS, PAGE_ORDER, type PageRow } from './journal-pages.ts';
import type { PageKey } from './journal-reads.ts';

/**
 * The unfiltered page of GET /journal/documents (the first page and the pages after it) and its
 * `total`, in one named statement (docs/adr/0053): the company's kept counts summed (docs/adr/0035),
 * the walk of journal_documents_page_idx from the cursor on, and the page's version, a digest of its
 * rows' ids and row versions (`xmin`: every insert, update or delete of a row on the page changes it).
 * Given the version of a page the caller already has, the statement answers the page's rows only
 * when that version is no longer the page's, so an unchanged page costs the index walk and no row
 * output. It is the route's hot path (issue 29: 1,500 requests/s at 32 connections on two cores
 * shared with PostgreSQL and the load generator).
 *
 * Named statements are parsed and planned once per connection, and the page size is written into the
 * text (one statement per size): a LIMIT parameter would make PostgreSQL's generic plan assume a
 * tenth of the table and keep planning every request.
 */

/** Counts summed per key first, so `count_keys` (non-zero keys) and `count_rows` tell when to fold. */
const TOTALS = `SELECT coalesce(sum(k.n), 0)::text AS total, coalesce(sum(k.r), 0)::int AS count_rows,
         (count(*) FILTER (WHERE k.n <> 0))::int AS count_keys
    FROM (SELECT sum(n) AS n, count(*) AS r FROM journal_document_counts
           WHERE company_id = (SELECT $1::text) AND platform_id = (SELECT $2::text)
           GROUP BY direction, type, status, collected) AS k`;

/**
 * The cursor condition is a row comparison on the index's own columns, so the index range starts
 * there; a page without a cursor has its own statement (an `IS NULL OR` would hide the range). The
 * page's rows are read only when the version differs from $3 (a one-time filter of the lateral join).
 */
export function walkStatementText(limit: number, cursor: boolean): string {
  const after = cursor ? 'AND (d.created_at, d.id) < ($4::timestamptz, $5)' : '';
  return `WITH t AS (${TOTALS}),
    p AS MATERIALIZED (
      SELECT d.id, d.xmin::text AS xmin FROM journal_documents d
       WHERE d.company_id = (SELECT $1::text) AND d.platform_id = (SELECT $2::text) ${after}
       ORDER BY ${PAGE_ORDER} LIMIT ${limit}),
    v AS (SELECT coalesce(md5(string_agg(p.id || '/' || p.xmin, ',' ORDER BY p.id)), '') AS version FROM p)
  SELECT t.total, t.count_rows, t.count_keys, v.version, r.*
    FROM t CROSS JOIN v
    LEFT JOIN LATERAL (
      SELECT ${PAGE_COLUMNS} FROM p JOIN journal_documents d ON d.id = p.id
       WHERE v.version IS DISTINCT FROM $3::text
       ORDER BY ${PAGE_ORDER}) AS r ON TRUE`;
}

const statements = new Map<string, { name: string; text: string }>();

function statementFor(limit: number, cursor: boolean): { name: string; text: string } {
  const name = `journal_walk_page_${cursor ? 'after' : 'first'}_${limit}`;
  let found = statements.get(name);
  if (found === undefined) {
    found = { name, text: walkStatementText(limit, cursor) };
    statements.set(name, found);
  }
  return found;
}

export type WalkPage = {
  /** The page's rows; empty when `unchanged`. */
  rows: PageRow[];
  /** The page is still the one of `known`: its rows were not sent. */
  unchanged: boolean;
  /** The page's version (ids and row versions of its rows, the one past the page included). */
  version: string;
  /** The sum of the company's kept counts: its documents. */
  total: number;
  /** Delta rows and non-zero keys of the kept counts (when to fold them, read-page.ts). */
  countRows: number;
  countKeys: number;
};

type Row = PageRow & { total: string; count_rows: number; count_keys: number; version: string };

/** Up to `limit` documents after `key`, newest first, unless `known` is still the page's version. */
export async function walkPageWithTotal(
  db: Db,
  scope: CompanyScope,
  key: PageKey | undefined,
  limit: number,
  known?: string,
): Promise<WalkPage> {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`page size ${limit}`);
  const values: unknown[] = [scope.companyId, scope.platformId, known ?? null];
  if (key !== undefined) values.push(key.sortKey, key.id);
  const result = await db.$client.query<Row>({ ...statementFor(limit, key !== undefined), values });
  const first = result.rows[0]!;
  const version = first.version;
  return {
    rows: first.id === null ? [] : result.rows,
    unchanged: known !== undefined && version === known,
    version,
    total: Number(first.total),
    countRows: first.count_rows,
    countKeys: first.count_keys,
  };
}
