import { and, desc, eq, getTableColumns, inArray, isNull, sql } from 'drizzle-orm';
import {
  type DeliveryStatus,
  type DocumentStatus,
  type LineState,
  type OutboundDocument,
  outboundStatusOf,
} from '../../domain/lifecycle/index.ts';
import type { CompanyScope, Executor } from '../executor.ts';
import { accountStatements, bankAccounts, journalDocuments, paymentLines } from '../schema/index.ts';
import { inCompany, inCompanyByKey } from '../tenant.ts';

/** A document as the application sees it: search_text belongs to the database (its trigger and indexes). */
export type JournalDocumentRow = Omit<typeof journalDocuments.$inferSelect, 'searchText'>;
export type NewJournalDocument = typeof journalDocuments.$inferInsert;
export type PaymentLineRow = typeof paymentLines.$inferSelect;

/**
 * The next journal number of a company and direction (OUT-<n>, IN-<n>, from 1), from the
 * next_journal_no() function (src/db/functions). The counter row stays locked until the caller's
 * transaction ends, so numbers are unique and gap-free on commit.
 */
export async function nextJournalNo(
  tx: Executor,
  companyId: string,
  direction: 'inbound' | 'outbound',
): Promise<string> {
  const result = await tx.execute<{ no: string }>(sql`SELECT next_journal_no(${companyId}, ${direction}) AS no`);
  return result.rows[0]!.no;
}

const {
  payloadSealed: _payload,
  fileSealed: _file,
  searchText: _search,
  ...readBack
} = getTableColumns(journalDocuments);

/** `count` journal numbers in one statement (next_journal_nos), in order; the counter stays locked as above. */
export async function nextJournalNos(
  tx: Executor,
  companyId: string,
  direction: 'inbound' | 'outbound',
  count: number,
): Promise<string[]> {
  if (count === 0) return [];
  const result = await tx.execute<{ no: string }>(
    sql`SELECT no FROM next_journal_nos(${companyId}, ${direction}, ${count}::int) AS no`,
  );
  return result.rows.map((r) => r.no);
}

/** Several documents in one statement (slices of 500 rows: one INSERT has at most 65,535 parameters). */
export async function insertDocuments(tx: Executor, rows: NewJournalDocument[]): Promise<JournalDocumentRow[]> {
  const created = [];
  for (let i = 0; i < rows.length; i += 500) {
    created.push(
      ...(await tx
        .insert(journalDocuments)
        .values(rows.slice(i, i + 500))
        .returning(readBack)),
    );
  }
  // Stored as sent: the sealed values are not read back (see insertDocument; matched by id, which
  // the callers give every row, not by RETURNING's order).
  const sent = new Map(rows.map((r) => [r.id, r]));
  return created.map((doc) => ({
    ...doc,
    payloadSealed: sent.get(doc.id)?.payloadSealed ?? null,
    fileSealed: sent.get(doc.id)?.fileSealed ?? null,
  }));
}

/**
 * Inserts a document whose journal number was taken with nextJournalNo in the same transaction. The
 * sealed values are not read back (they are stored as sent): a 50 MB statement's are 11 MB, and
 * reading them back cost the ingest's thread a second copy and ~40 MB of buffers (docs/adr/0029).
 */
export async function insertDocument(tx: Executor, row: NewJournalDocument): Promise<JournalDocumentRow> {
  const [created] = await insertDocuments(tx, [row]);
  return created!;
}

export async function findDocument(
  q: Executor,
  scope: CompanyScope,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<JournalDocumentRow | undefined> {
  const query = q
    .select()
    .from(journalDocuments)
    .where(and(inCompany(journalDocuments, scope), eq(journalDocuments.id, id)))
    .limit(1);
  const rows = options.forUpdate ? await query.for('update') : await query;
  return rows[0];
}

/** The newest outbound document of a company carrying `messageId`. */
export async function findOutboundByMessageId(
  q: Executor,
  scope: CompanyScope,
  messageId: string,
): Promise<JournalDocumentRow | undefined> {
  const rows = await q
    .select()
    .from(journalDocuments)
    .where(
      and(
        inCompany(journalDocuments, scope),
        eq(journalDocuments.direction, 'outbound'),
        eq(journalDocuments.messageId, messageId),
      ),
    )
    .orderBy(desc(journalDocuments.createdAt))
    .limit(1);
  return rows[0];
}

/**
 * findOutboundByMessageId for several message ids in one read: the newest document per id. Each id is
 * its own probe of journal_documents_message_idx on all three columns (a LATERAL with LIMIT 1): as one
 * `message_id IN (...)` the planner may walk the company's whole outbound range and filter it, which
 * it does while its statistics do not know the company yet (docs/adr/0051).
 */
export async function findOutboundByMessageIds(
  q: Executor,
  scope: CompanyScope,
  messageIds: string[],
): Promise<Map<string, string>> {
  if (messageIds.length === 0) return new Map();
  const result = await q.execute<{ id: string; message_id: string }>(sql`
    SELECT d.id, m.message_id
      FROM unnest(${sql.param([...new Set(messageIds)])}::text[]) AS m(message_id)
     CROSS JOIN LATERAL (
           SELECT id FROM journal_documents
            WHERE ${inCompany(journalDocuments, scope)} AND direction = 'outbound' AND message_id = m.message_id
            ORDER BY created_at DESC
            LIMIT 1) AS d`);
  return new Map(result.rows.map((r) => [r.message_id, r.id]));
}

/** The state-machine view of an outbound row (its status and delivery mode). */
export function outboundOf(row: JournalDocumentRow): OutboundDocument {
  if (row.direction !== 'outbound' || row.deliveryMode === null) {
    throw new Error(`${row.id} is not an outbound document`);
  }
  return { status: outboundStatusOf(row.status), deliveryMode: row.deliveryMode };
}

/**
 * Moves a document's status (and, when given, its delivery status) as a transition function allowed:
 * conditional on the statuses the caller read, so a writer that lost a race changes nothing. Throws
 * when nothing matched: the caller holds the row lock, so that is a bug, not a race.
 */
export function updateDocumentStatus(
  tx: Executor,
  scope: CompanyScope,
  id: string,
  move: {
    from: DocumentStatus;
    to: DocumentStatus;
    delivery?: { from: DeliveryStatus | null; to: DeliveryStatus };
  },
  updatedAt: Date,
): Promise<void> {
  return updateDocumentStatuses(tx, scope, [{ id, ...move }], updatedAt);
}

/**
 * Moves the statuses of several documents in one statement, each from the statuses the caller read
 * under its lock (see updateDocumentStatus), its delivery status too when given, and merges `details`
 * into its details when given (jsonb `||`); throws when one of them was not in the statuses read.
 *
 * The tenant travels in the row set (each row's platform_id and company_id, joined like its id), for
 * the reason of inCompanyByKey: no constant company_id that the planner could take as its way in.
 * A join on the row set's columns measured faster than inCompanyByKey's filter here (which the
 * planner tends to meet with a sequential scan while the table is young): 2 ms against 25 ms a batch
 * of 100 lines at 10,000 (docs/adr/0051).
 */
export async function updateDocumentStatuses(
  tx: Executor,
  scope: CompanyScope,
  moves: Array<{
    id: string;
    from: DocumentStatus;
    to: DocumentStatus;
    delivery?: { from: DeliveryStatus | null; to: DeliveryStatus };
    details?: Record<string, unknown>;
  }>,
  updatedAt: Date,
): Promise<void> {
  if (moves.length === 0) return;
  const rows = moves.map((m) => ({
    id: m.id,
    platform_id: scope.platformId,
    company_id: scope.companyId,
    from_status: m.from,
    to_status: m.to,
    moves_delivery: m.delivery !== undefined,
    delivery_from: m.delivery?.from ?? null,
    delivery_to: m.delivery?.to ?? null,
    details: m.details ?? null,
  }));
  const result = await tx.execute<{ id: string }>(sql`
    UPDATE journal_documents AS d
       SET status = m.to_status,
           delivery_status = CASE WHEN m.moves_delivery THEN m.delivery_to ELSE d.delivery_status END,
           details = CASE WHEN m.details IS NULL THEN d.details ELSE coalesce(d.details, '{}'::jsonb) || m.details END,
           updated_at = ${updatedAt}
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
           AS m(id text, platform_id text, company_id text, from_status text, to_status text, moves_delivery boolean,
                delivery_from text, delivery_to text, details jsonb)
     WHERE d.id = m.id
       AND d.platform_id = m.platform_id
       AND d.company_id = m.company_id
       AND d.status = m.from_status
       AND (NOT m.moves_delivery OR d.delivery_status IS NOT DISTINCT FROM m.delivery_from)
    RETURNING d.id`);
  if (result.rows.length !== moves.length) {
    const moved = new Set(result.rows.map((r) => r.id));
    const missed = moves.find((m) => !moved.has(m.id))!;
    throw new Error(`${missed.id} was not in the status it was read in (${missed.from})`);
  }
}

export async function insertPaymentLines(tx: Executor, rows: Array<typeof paymentLines.$inferInsert>): Promise<void> {
  // Large batches go in slices: one INSERT has at most 65,535 parameters.
  for (let i = 0; i < rows.length; i += 2000) await tx.insert(paymentLines).values(rows.slice(i, i + 2000));
}

export async function listPaymentLines(
  q: Executor,
  scope: CompanyScope,
  documentId: string,
): Promise<PaymentLineRow[]> {
  return q
    .select()
    .from(paymentLines)
    .where(and(inCompany(paymentLines, scope), eq(paymentLines.documentId, documentId)))
    .orderBy(paymentLines.lineIndex);
}

/** The payment lines of several documents in one read, by document (line order). */
export async function listPaymentLinesOf(
  q: Executor,
  scope: CompanyScope,
  documentIds: string[],
): Promise<Map<string, PaymentLineRow[]>> {
  const byDocument = new Map<string, PaymentLineRow[]>(documentIds.map((id) => [id, []]));
  if (documentIds.length === 0) return byDocument;
  const rows = await q
    .select()
    .from(paymentLines)
    .where(and(inCompanyByKey(paymentLines, scope), inArray(paymentLines.documentId, documentIds)))
    .orderBy(paymentLines.documentId, paymentLines.lineIndex);
  for (const r of rows) byDocument.get(r.documentId)?.push(r);
  return byDocument;
}

/**
 * Serialises ingests of the same file content for a company until the caller's transaction ends,
 * so two identical ingests at once journal it once (the second sees the first's documents).
 */
export function lockInboundContent(tx: Executor, companyId: string, contentDigest: string): Promise<void> {
  return lockInboundContents(tx, companyId, [contentDigest]);
}

/** lockInboundContent for several contents in one statement, in digest order (one order for every caller). */
export async function lockInboundContents(tx: Executor, companyId: string, contentDigests: string[]): Promise<void> {
  const keys = [...new Set(contentDigests)].sort().map((d) => `ingest:${companyId}:${d}`);
  if (keys.length === 0) return;
  await tx.execute(
    sql`SELECT pg_advisory_xact_lock(hashtextextended(k, 0))
          FROM (SELECT jsonb_array_elements_text(${JSON.stringify(keys)}::jsonb) AS k ORDER BY 1) AS s`,
  );
}

/** The inbound documents journaled from these contents, in one read (digest, then block order). */
export async function findInboundByDigests(
  q: Executor,
  scope: CompanyScope,
  contentDigests: string[],
): Promise<JournalDocumentRow[]> {
  if (contentDigests.length === 0) return [];
  return q
    .select()
    .from(journalDocuments)
    .where(
      and(
        inCompany(journalDocuments, scope),
        eq(journalDocuments.direction, 'inbound'),
        inArray(journalDocuments.contentDigest, contentDigests),
      ),
    )
    .orderBy(journalDocuments.contentDigest, journalDocuments.blockIndex);
}

/** The inbound documents journaled from one file content, in block order. */
export function findInboundByDigest(
  q: Executor,
  scope: CompanyScope,
  contentDigest: string,
): Promise<JournalDocumentRow[]> {
  return findInboundByDigests(q, scope, [contentDigest]);
}

/**
 * An inbound statement document already journaled for this bank account (accountKey, as
 * record-statement keys it) and period end with this statement key (details.statementKey), whichever file
 * brought it: found through the account's statements (account_statements_account_idx).
 */
export async function findInboundByAccountStatement(
  q: Executor,
  scope: CompanyScope,
  accountKey: string,
  toDate: string | null,
  statementKey: string,
): Promise<JournalDocumentRow | undefined> {
  const sameAccountAndPeriod = q
    .select({ id: accountStatements.documentId })
    .from(accountStatements)
    .innerJoin(bankAccounts, eq(bankAccounts.id, accountStatements.accountId))
    .where(
      and(
        inCompany(bankAccounts, scope),
        eq(bankAccounts.accountKey, accountKey),
        toDate === null ? isNull(accountStatements.toDate) : eq(accountStatements.toDate, toDate),
      ),
    );
  const rows = await q
    .select()
    .from(journalDocuments)
    .where(
      and(
        inCompany(journalDocuments, scope),
        eq(journalDocuments.direction, 'inbound'),
        inArray(journalDocuments.id, sameAccountAndPeriod),
        sql`${journalDocuments.details}->>'statementKey' = ${statementKey}`,
      ),
    )
    .limit(1);
  return rows[0];
}

/** An inbound statement document already journaled with this statement key (details.statementKey). */
export async function findInboundByStatementKey(
  q: Executor,
  scope: CompanyScope,
  messageId: string,
  statementKey: string,
): Promise<JournalDocumentRow | undefined> {
  const rows = await q
    .select()
    .from(journalDocuments)
    .where(
      and(
        inCompany(journalDocuments, scope),
        eq(journalDocuments.messageId, messageId),
        eq(journalDocuments.direction, 'inbound'),
        sql`${journalDocuments.details}->>'statementKey' = ${statementKey}`,
      ),
    )
    .limit(1);
  return rows[0];
}

/** The document, locked until the caller's transaction ends. */
export async function lockDocument(
  tx: Executor,
  scope: CompanyScope,
  id: string,
): Promise<JournalDocumentRow | undefined> {
  return findDocument(tx, scope, id, { forUpdate: true });
}

/**
 * Which outbound documents may take bank evidence: the SQL twin of `evidenceRefusal(doc) === undefined`
 * (src/domain/lifecycle/document.ts): sent or executed, or converted when the bank is converted-only.
 * A host-to-host document that was never delivered is never a candidate. test/journal/lifecycle.test.ts
 * holds the two definitions together.
 */
export const takesEvidence = sql`(${journalDocuments.status} IN ('sent', 'executed')
  OR (${journalDocuments.status} = 'converted' AND ${journalDocuments.deliveryMode} = 'converted-only'))`;

/**
 * The one outbound document that may take evidence and whose payment lines carry the most of these
 * end-to-end ids: undefined when none does, `ambiguous` when two documents carry as many (a reused
 * end-to-end id names no payment one to one).
 */
export async function findOutboundByEndToEndIds(
  q: Executor,
  scope: CompanyScope,
  endToEndIds: string[],
): Promise<string | 'ambiguous' | undefined> {
  if (endToEndIds.length === 0) return undefined;
  const rows = await q
    .select({ documentId: paymentLines.documentId, n: sql<number>`count(*)::int` })
    .from(paymentLines)
    .innerJoin(journalDocuments, eq(journalDocuments.id, paymentLines.documentId))
    .where(
      and(
        inCompany(paymentLines, scope),
        sql`${paymentLines.endToEndId} IN ${endToEndIds}`,
        eq(journalDocuments.direction, 'outbound'),
        takesEvidence,
      ),
    )
    .groupBy(paymentLines.documentId)
    .orderBy(sql`count(*) DESC`)
    .limit(2);
  if (rows.length === 2 && rows[0]!.n === rows[1]!.n) return 'ambiguous';
  return rows[0]?.documentId;
}

/** Outbound documents locked in id order (the lock order of every pipeline writer), for updates. */
export async function lockDocuments(tx: Executor, scope: CompanyScope, ids: string[]): Promise<JournalDocumentRow[]> {
  if (ids.length === 0) return [];
  return tx
    .select()
    .from(journalDocuments)
    .where(and(inCompanyByKey(journalDocuments, scope), inArray(journalDocuments.id, ids)))
    .orderBy(journalDocuments.id)
    .for('update');
}

/** A line's new state and evidence; `settled` ends its time as a reconciliation candidate. */
export type LineWrite = { index: number; state: LineState; evidence: Record<string, unknown>; settled: boolean };

/**
 * Sets state and evidence of several lines of one document in one statement; a line that `settled`
 * (booked by a statement, or rejected) stops being a reconciliation candidate (open_until cleared).
 */
export async function updatePaymentLineStates(
  tx: Executor,
  scope: CompanyScope,
  documentId: string,
  changes: LineWrite[],
  updatedAt: Date,
): Promise<void> {
  await updateLinesOfDocuments(
    tx,
    scope,
    changes.map((c) => ({ documentId, ...c })),
    updatedAt,
  );
}

/** The same for lines of several documents, in one statement (per 5,000 lines). */
export async function updateLinesOfDocuments(
  tx: Executor,
  scope: CompanyScope,
  changes: Array<LineWrite & { documentId: string }>,
  updatedAt: Date,
): Promise<void> {
  for (let i = 0; i < changes.length; i += 5000) {
    const slice = changes.slice(i, i + 5000).map((c) => ({
      doc: c.documentId,
      idx: c.index,
      platform_id: scope.platformId,
      company_id: scope.companyId,
      state: c.state,
      evidence: c.evidence,
      settled: c.settled,
    }));
    // The tenant travels in the row set, as in updateDocumentStatuses.
    await tx.execute(sql`
      UPDATE payment_lines AS p
         SET state = u.state, evidence = u.evidence, updated_at = ${updatedAt},
             open_until = CASE WHEN u.settled THEN NULL ELSE p.open_until END
        FROM jsonb_to_recordset(${JSON.stringify(slice)}::jsonb)
             AS u(doc text, idx int, platform_id text, company_id text, state text, evidence jsonb, settled boolean)
       WHERE p.document_id = u.doc
         AND p.line_index = u.idx
         AND p.platform_id = u.platform_id
         AND p.company_id = u.company_id`);
  }
}

/** Merges keys into a document's details (jsonb `||`). */
export async function mergeDocumentDetails(
  tx: Executor,
  scope: CompanyScope,
  id: string,
  patch: Record<string, unknown>,
): Promise<void> {
  await tx
    .update(journalDocuments)
    .set({ details: sql`coalesce(${journalDocuments.details}, '{}'::jsonb) || ${JSON.stringify(patch)}::jsonb` })
    .where(and(inCompany(journalDocuments, scope), eq(journalDocuments.id, id)));
}

/**
 * Whether a delivery of the company to this bank and environment is under way (delivery `in-progress`
 * or `retrying`: the bank may have the file, the service has not recorded it). Read through the
 * company's filter index (outbound pain.001 documents still `converted`).
 */
export async function deliveriesUnderWay(
  q: Executor,
  scope: CompanyScope,
  bankKey: string,
  environment: string,
): Promise<boolean> {
  const rows = await q
    .select({ id: journalDocuments.id })
    .from(journalDocuments)
    .where(
      and(
        inCompany(journalDocuments, scope),
        eq(journalDocuments.direction, 'outbound'),
        eq(journalDocuments.type, 'pain.001'),
        eq(journalDocuments.status, 'converted'),
        eq(journalDocuments.bankKey, bankKey),
        eq(journalDocuments.environment, environment),
        inArray(journalDocuments.deliveryStatus, ['in-progress', 'retrying']),
      ),
    )
    .limit(1);
  return rows.length > 0;
}
