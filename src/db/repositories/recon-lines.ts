import { and, asc, desc, eq, gte, inArray, isNotNull, lt, or, sql } from 'drizzle-orm';
import type { LineState } from '../../domain/lifecycle/index.ts';
import { RETURN_WINDOW_DAYS } from '../../domain/recon/match-entries.ts';
import type { ReturnLookups, UnidentifiedReturn } from '../../domain/recon/statement-match.ts';
import type { CompanyScope, Executor } from '../executor.ts';
import { journalDocuments, paymentLines } from '../schema/index.ts';
import { inCompany } from '../tenant.ts';
import { takesEvidence } from './journal-documents.ts';

export type ReconCandidate = {
  documentId: string;
  lineIndex: number;
  endToEndId: string | null;
  instructionId: string | null;
  paymentId: string | null;
  messageId: string | null;
  amountMinor: bigint;
  amount: string;
  currency: string;
  payeeIban: string | null;
  executionDate: string | null;
  state: LineState;
  evidence: Record<string, unknown> | null;
};

/**
 * The payment lines a statement may prove, of outbound documents in the statement's environment that
 * take evidence (takesEvidence: never a host-to-host document that was not delivered):
 * - the open lines (pending, or cleared by a status report and waiting for their booking) whose answer
 *   window has not closed, read through payment_lines_open_idx: the cost follows the payments in
 *   flight, not the company's history;
 * - for the statement's returns and reversals, the lines their end-to-end ids or instruction ids name,
 *   settled or not, through payment_lines_e2e_idx and payment_lines_instr_idx (a return undoes a
 *   booking, so the line it names is settled);
 * - for its returns that name no identifier, the lines paid to their counterparty account with their
 *   amount (unidentifiedReturnCandidates).
 * With `openNamed`, only the open lines those end-to-end ids name, through payment_lines_e2e_idx: the
 * first look of a statement whose entries carry end-to-end ids (reconcileStatement widens it to every
 * open line only when an entry is left that another rule may match).
 */
export async function listReconCandidates(
  q: Executor,
  scope: CompanyScope,
  environment: string,
  now: Date,
  returns: ReturnLookups,
  options: { openNamed?: string[] } = {},
): Promise<ReconCandidate[]> {
  const ids = [
    returns.endToEndIds.length > 0 ? inArray(paymentLines.endToEndId, returns.endToEndIds) : undefined,
    returns.instructionIds.length > 0 ? inArray(paymentLines.instructionId, returns.instructionIds) : undefined,
  ].filter((c) => c !== undefined);
  const named = ids.length > 0 ? and(or(...ids), inArray(paymentLines.state, ['pending', 'cleared'])) : undefined;
  const rows = await q
    .select(CANDIDATE_COLUMNS)
    .from(paymentLines)
    .innerJoin(journalDocuments, eq(journalDocuments.id, paymentLines.documentId))
    .where(
      and(
        inCompany(paymentLines, scope),
        or(
          and(
            isNotNull(paymentLines.openUntil),
            gte(paymentLines.openUntil, now),
            options.openNamed ? inArray(paymentLines.endToEndId, options.openNamed) : undefined,
          ),
          named,
        ),
        eq(journalDocuments.direction, 'outbound'),
        eq(journalDocuments.environment, environment),
        takesEvidence,
      ),
    )
    .orderBy(paymentLines.documentId, paymentLines.lineIndex);
  if (returns.unidentified.length === 0) return rows;
  const more = await unidentifiedReturnCandidates(q, scope, environment, returns.unidentified);
  if (more.length === 0) return rows;
  const key = (c: ReconCandidate) => `${c.documentId}\u0000${c.lineIndex}`;
  const seen = new Set(rows.map(key));
  const merged = [...rows];
  for (const c of more) {
    if (seen.has(key(c))) continue;
    seen.add(key(c));
    merged.push(c);
  }
  return merged.sort((a, b) =>
    a.documentId === b.documentId ? a.lineIndex - b.lineIndex : a.documentId < b.documentId ? -1 : 1,
  );
}

const CANDIDATE_COLUMNS = {
  documentId: paymentLines.documentId,
  lineIndex: paymentLines.lineIndex,
  endToEndId: paymentLines.endToEndId,
  instructionId: paymentLines.instructionId,
  paymentId: paymentLines.paymentId,
  messageId: journalDocuments.messageId,
  amountMinor: paymentLines.amountMinor,
  amount: paymentLines.amount,
  currency: paymentLines.currency,
  payeeIban: paymentLines.payeeIban,
  executionDate: paymentLines.executionDate,
  state: paymentLines.state,
  evidence: paymentLines.evidence,
};

const DAY_MS = 86_400_000;
const dayBefore = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) - days * DAY_MS).toISOString().slice(0, 10);

/**
 * The lines a return without identifiers may be for (docs/adr/0070), in one statement however many
 * returns: the returns as rows of arrays (unnest), each joined to the lines paid to its counterparty
 * account with its amount and currency through payment_lines_payee_idx, executed within the return
 * window before its booking. Lines not yet returned (pending or cleared) of documents that take
 * evidence, and lines already returned (their document may be rejected by now): the matcher takes
 * those only for the same return seen again, so a repeated return never moves another payment.
 */
async function unidentifiedReturnCandidates(
  q: Executor,
  scope: CompanyScope,
  environment: string,
  returns: UnidentifiedReturn[],
): Promise<ReconCandidate[]> {
  const ibans: string[] = [];
  const currencies: string[] = [];
  const amounts: string[] = [];
  const from: string[] = [];
  const to: string[] = [];
  for (const r of returns)
    for (const amount of r.amountsMinor) {
      ibans.push(r.counterpartyIban);
      currencies.push(r.currency);
      amounts.push(amount.toString());
      from.push(dayBefore(r.bookingDate, RETURN_WINDOW_DAYS));
      to.push(r.bookingDate);
    }
  const { rows } = await q.execute<{
    document_id: string;
    line_index: number;
    end_to_end_id: string | null;
    instruction_id: string | null;
    payment_id: string | null;
    message_id: string | null;
    amount_minor: string;
    amount: string;
    currency: string;
    payee_iban: string | null;
    execution_date: string | null;
    state: LineState;
    evidence: Record<string, unknown> | null;
  }>(sql`
    SELECT DISTINCT l.document_id, l.line_index, l.end_to_end_id, l.instruction_id, l.payment_id,
           journal_documents.message_id, l.amount_minor::text AS amount_minor, l.amount, l.currency, l.payee_iban,
           l.execution_date, l.state, l.evidence
      FROM unnest(${sql.param(ibans)}::text[], ${sql.param(currencies)}::text[], ${sql.param(amounts)}::bigint[],
                  ${sql.param(from)}::text[], ${sql.param(to)}::text[])
             AS r(iban, currency, amount_minor, day_from, day_to)
      JOIN payment_lines l
        ON l.platform_id = ${scope.platformId} AND l.company_id = ${scope.companyId}
       AND l.payee_iban = r.iban AND l.amount_minor = r.amount_minor AND l.currency = r.currency
       AND l.execution_date >= r.day_from AND l.execution_date <= r.day_to
      JOIN journal_documents ON journal_documents.id = l.document_id
     WHERE journal_documents.direction = 'outbound' AND journal_documents.environment = ${environment}
       AND ((l.state IN ('pending', 'cleared') AND ${takesEvidence})
            OR (l.state = 'rejected' AND l.evidence ->> 'rule' = 'return'))`);
  return rows.map((r) => ({
    documentId: r.document_id,
    lineIndex: r.line_index,
    endToEndId: r.end_to_end_id,
    instructionId: r.instruction_id,
    paymentId: r.payment_id,
    messageId: r.message_id,
    amountMinor: BigInt(r.amount_minor),
    amount: r.amount,
    currency: r.currency,
    payeeIban: r.payee_iban,
    executionDate: r.execution_date,
    state: r.state,
    evidence: r.evidence,
  }));
}

/** The document's lines keyed by index, read after its row lock: the states evidence applies to. */
export async function lineStatesOf(
  q: Executor,
  scope: CompanyScope,
  documentIds: string[],
): Promise<Map<string, Map<number, LineState>>> {
  const rows = await q
    .select({ documentId: paymentLines.documentId, lineIndex: paymentLines.lineIndex, state: paymentLines.state })
    .from(paymentLines)
    .where(and(inCompany(paymentLines, scope), inArray(paymentLines.documentId, documentIds)))
    .orderBy(sql`1, 2`);
  const out = new Map<string, Map<number, LineState>>();
  for (const r of rows) {
    const lines = out.get(r.documentId) ?? new Map<number, LineState>();
    lines.set(r.lineIndex, r.state);
    out.set(r.documentId, lines);
  }
  return out;
}

export type LineStateTally = { cleared: number; rejected: number; pending: number };

/**
 * The states of the payment lines of the company's outbound documents created since `since` (the
 * dashboard's overview): read through the documents' company and date index, then each document's lines.
 */
export async function tallyLineStates(q: Executor, scope: CompanyScope, since: Date): Promise<LineStateTally> {
  const { rows } = await q.execute<{ state: string; n: string }>(sql`
    SELECT l.state, count(*)::text AS n
      FROM journal_documents d JOIN payment_lines l ON l.document_id = d.id
     WHERE d.platform_id = ${scope.platformId} AND d.company_id = ${scope.companyId}
       AND d.direction = 'outbound' AND d.created_at >= ${since.toISOString()}::timestamptz
     GROUP BY l.state`);
  const tally: LineStateTally = { cleared: 0, rejected: 0, pending: 0 };
  for (const r of rows) if (r.state in tally) tally[r.state as keyof LineStateTally] = Number(r.n);
  return tally;
}

export type OpenLineRow = {
  documentId: string;
  journalNo: string;
  lineIndex: number;
  payeeName: string | null;
  amount: string;
  currency: string;
  endToEndId: string | null;
  state: LineState;
  evidence: Record<string, unknown> | null;
  updatedAt: Date;
};

/** The columns of an OpenLineRow: a payment line with its document's journal number. */
const LINE_WITH_DOCUMENT = {
  documentId: paymentLines.documentId,
  journalNo: journalDocuments.journalNo,
  lineIndex: paymentLines.lineIndex,
  payeeName: paymentLines.payeeName,
  amount: paymentLines.amount,
  currency: paymentLines.currency,
  endToEndId: paymentLines.endToEndId,
  state: paymentLines.state,
  evidence: paymentLines.evidence,
  updatedAt: paymentLines.updatedAt,
};

/**
 * Pending lines waiting for the bank since before `before`, oldest first (the reconciliation page
 * and the overview's count), read through payment_lines_open_idx: only lines still in flight.
 */
export async function listOverdueLines(
  q: Executor,
  scope: CompanyScope,
  before: Date,
  limit: number,
): Promise<OpenLineRow[]> {
  return q
    .select(LINE_WITH_DOCUMENT)
    .from(paymentLines)
    .innerJoin(journalDocuments, eq(journalDocuments.id, paymentLines.documentId))
    .where(
      and(
        inCompany(paymentLines, scope),
        isNotNull(paymentLines.openUntil),
        eq(paymentLines.state, 'pending'),
        lt(paymentLines.updatedAt, before),
      ),
    )
    .orderBy(asc(paymentLines.openUntil))
    .limit(limit);
}

/** Rejected lines of the company's outbound documents created since `since`, newest first. */
export async function listRejectedLines(
  q: Executor,
  scope: CompanyScope,
  since: Date,
  limit: number,
): Promise<OpenLineRow[]> {
  return q
    .select(LINE_WITH_DOCUMENT)
    .from(journalDocuments)
    .innerJoin(paymentLines, eq(paymentLines.documentId, journalDocuments.id))
    .where(
      and(
        inCompany(journalDocuments, scope),
        eq(journalDocuments.direction, 'outbound'),
        gte(journalDocuments.createdAt, since),
        eq(paymentLines.state, 'rejected'),
      ),
    )
    .orderBy(desc(paymentLines.updatedAt))
    .limit(limit);
}
