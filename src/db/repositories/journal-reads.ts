import { and, eq, gte, inArray, lt, type SQL, sql } from 'drizzle-orm';
import type { DocumentStatus } from '../../domain/lifecycle/index.ts';
import type { CompanyScope, Executor } from '../executor.ts';
import { journalDocuments } from '../schema/index.ts';
import type { JournalDocumentRow } from './journal-documents.ts';

/**
 * Reading side of the journal besides the pages (journal-pages.ts): capped counts, tallies, the
 * approval read and the export marking. Every query takes the tenant scope.
 */

/** Metadata columns only: list pages never read the sealed payload or file. */
const metadata = {
  id: journalDocuments.id,
  platformId: journalDocuments.platformId,
  companyId: journalDocuments.companyId,
  journalNo: journalDocuments.journalNo,
  direction: journalDocuments.direction,
  type: journalDocuments.type,
  sourceFormat: journalDocuments.sourceFormat,
  bankKey: journalDocuments.bankKey,
  environment: journalDocuments.environment,
  status: journalDocuments.status,
  messageId: journalDocuments.messageId,
  importSource: journalDocuments.importSource,
  transactionCount: journalDocuments.transactionCount,
  totals: journalDocuments.totals,
  paymentType: journalDocuments.paymentType,
  idempotencyKey: journalDocuments.idempotencyKey,
  deliveryMode: journalDocuments.deliveryMode,
  deliveryStatus: journalDocuments.deliveryStatus,
  summary: journalDocuments.summary,
  accountIban: journalDocuments.accountIban,
  accountCurrency: journalDocuments.accountCurrency,
  collected: journalDocuments.collected,
  collectedAt: journalDocuments.collectedAt,
  createdAt: journalDocuments.createdAt,
  updatedAt: journalDocuments.updatedAt,
  expiresAt: journalDocuments.expiresAt,
  // The sort key at full (microsecond) precision: a JS Date keeps milliseconds only, and a cursor
  // rounded down would show a row twice.
  sortKey: sql<string>`to_char(${journalDocuments.createdAt} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`,
};

/** A page row: the document's metadata (sealed columns and digests empty) and its sort key. */
export type DocumentMetaRow = JournalDocumentRow & { sortKey: string };

/** What a page row leaves empty: the sealed columns and digests lists never read. */
export const NOT_LISTED = {
  requestDigest: null,
  contentDigest: null,
  blockIndex: null,
  payloadSealed: null,
  fileSealed: null,
  warnings: null,
  details: null,
} as const;

function asMetaRow(row: Omit<DocumentMetaRow, keyof typeof NOT_LISTED>): DocumentMetaRow {
  return { ...row, ...NOT_LISTED };
}

export type DocumentFilter = {
  direction?: string | undefined;
  type?: string | undefined;
  collected?: boolean | undefined;
  /** Case-insensitive literal text (LIKE wildcards are escaped here). */
  text?: string | undefined;
  statuses?: string[] | undefined;
  /** created_at >= from */
  from?: Date | undefined;
  /** created_at < until */
  until?: Date | undefined;
};

/** The keyset position after which a page starts: the last row's sort key and id. */
export type PageKey = { sortKey: string; id: string };

/** `%`, `_` and the escape character itself match literally; the text matches anywhere. */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The filter's conditions, all on columns of journal_documents_page_idx. */
function filterConditions(filter: DocumentFilter): SQL[] {
  const conditions: SQL[] = [];
  if (filter.direction !== undefined) conditions.push(eq(journalDocuments.direction, filter.direction));
  if (filter.type !== undefined) conditions.push(eq(journalDocuments.type, filter.type));
  if (filter.collected !== undefined) conditions.push(eq(journalDocuments.collected, filter.collected));
  if (filter.statuses !== undefined && filter.statuses.length > 0)
    // A client's filter value: one the lifecycle does not know matches nothing, as SQL would have it.
    conditions.push(inArray(journalDocuments.status, filter.statuses as DocumentStatus[]));
  if (filter.from !== undefined) conditions.push(gte(journalDocuments.createdAt, filter.from));
  if (filter.until !== undefined) conditions.push(lt(journalDocuments.createdAt, filter.until));
  if (filter.text !== undefined && filter.text !== '')
    conditions.push(sql`${journalDocuments.searchText} LIKE lower(${likePattern(filter.text)}) ESCAPE '\\'`);
  return conditions;
}

/**
 * Newest first in exactly the order of journal_documents_page_idx (created_at DESC NULLS LAST, id DESC
 * NULLS LAST): a plain DESC means NULLS FIRST, which the index cannot serve, and PostgreSQL would
 * then sort the whole company. The columns are NOT NULL, so the NULLS clause changes no result.
 */
const newestFirst = [
  sql`${journalDocuments.createdAt} DESC NULLS LAST`,
  sql`${journalDocuments.id} DESC NULLS LAST`,
] as const;

export type Count = { count: number; exact: boolean };

/** How many documents match, counting no further than cap + 1 (`exact: false` when it stopped there). */
export async function countDocuments(
  q: Executor,
  scope: CompanyScope,
  filter: DocumentFilter,
  cap: number,
): Promise<Count> {
  // Every condition on a column of journal_documents_page_idx, in its order: PostgreSQL counts in the
  // index alone and stops at the cap. The platform is checked on the company (a condition on the
  // document's platform_id would read every heap row, or make PostgreSQL sort every match).
  const inner = q
    .select({ one: sql`1` })
    .from(journalDocuments)
    .where(and(eq(journalDocuments.companyId, scope.companyId), ...filterConditions(filter)))
    .orderBy(...newestFirst)
    .limit(cap + 1);
  const result = await q.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM (${inner}) AS capped
    WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = ${scope.companyId} AND c.platform_id = ${scope.platformId})`);
  const n = Number(result.rows[0]?.n ?? 0);
  return { count: Math.min(n, cap + 1), exact: n <= cap };
}

/**
 * Outbound payments tallied by payment type, weighted by transaction count, over the newest `sample`
 * documents; `more` says older outbound documents were left out.
 */
export async function tallyPaymentTypes(
  q: Executor,
  scope: CompanyScope,
  sample: number,
): Promise<{ rows: Array<{ paymentType: string | null; count: number }>; more: boolean }> {
  const outbound = and(
    eq(journalDocuments.companyId, scope.companyId),
    eq(journalDocuments.platformId, scope.platformId),
    eq(journalDocuments.direction, 'outbound'),
  );
  const newest = q
    .select({ paymentType: journalDocuments.paymentType, transactionCount: journalDocuments.transactionCount })
    .from(journalDocuments)
    .where(outbound)
    .orderBy(...newestFirst)
    .limit(sample)
    .as('newest');
  const [rows, beyond] = await Promise.all([
    q
      .select({ paymentType: newest.paymentType, count: sql<number>`sum(${newest.transactionCount})::int` })
      .from(newest)
      .groupBy(newest.paymentType),
    q
      .select({ one: sql`1` })
      .from(journalDocuments)
      .where(outbound)
      .orderBy(...newestFirst)
      .offset(sample)
      .limit(1),
  ]);
  return { rows: rows.map((r) => ({ paymentType: r.paymentType, count: Number(r.count) })), more: beyond.length > 0 };
}

/** The documents of a company carrying these journal numbers, locked for the export's update. */
export async function lockDocumentsByJournalNo(
  tx: Executor,
  scope: CompanyScope,
  journalNos: string[],
): Promise<DocumentMetaRow[]> {
  if (journalNos.length === 0) return [];
  const rows = await tx
    .select(metadata)
    .from(journalDocuments)
    .where(
      and(
        eq(journalDocuments.companyId, scope.companyId),
        eq(journalDocuments.platformId, scope.platformId),
        inArray(journalDocuments.journalNo, journalNos),
      ),
    )
    .orderBy(journalDocuments.id)
    .for('update');
  return rows.map(asMetaRow);
}

/** Sets the collected flag (and its time) on documents not collected yet. */
export async function markCollected(tx: Executor, scope: CompanyScope, ids: string[], at: Date): Promise<void> {
  if (ids.length === 0) return;
  await tx
    .update(journalDocuments)
    .set({ collected: true, collectedAt: at, updatedAt: at })
    .where(
      and(
        eq(journalDocuments.companyId, scope.companyId),
        eq(journalDocuments.platformId, scope.platformId),
        inArray(journalDocuments.id, ids),
        eq(journalDocuments.collected, false),
      ),
    );
}
