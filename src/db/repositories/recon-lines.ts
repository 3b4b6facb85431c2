import { and, asc, desc, eq, gte, inArray, isNotNull, lt, or, sql } from 'drizzle-orm';
import type { LineState } from '../../domain/lifecycle/index.ts';
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
 * - for the statement's returns and reversals, the lines their end-to-end ids name, settled or not,
 *   through payment_lines_e2e_idx (a return undoes a booking, so the line it names is settled).
 * With `openNamed`, only the open lines those end-to-end ids name, through payment_lines_e2e_idx: the
 * first look of a statement whose entries carry end-to-end ids (reconcileStatement widens it to every
 * open line only when an entry is left that another rule may match).
 */
export async function listReconCandidates(
  q: Executor,
  scope: CompanyScope,
  environment: string,
  now: Date,
  returnedEndToEndIds: string[],
  options: { openNamed?: string[] } = {},
): Promise<ReconCandidate[]> {
  const named =
    returnedEndToEndIds.length > 0
      ? and(inArray(paymentLines.endToEndId, returnedEndToEndIds), inArray(paymentLines.state, ['pending', 'cleared']))
      : undefined;
  return q
    .select({
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
    })
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
