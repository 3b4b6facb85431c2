import { and, eq, gte, inArray, isNotNull, or, sql } from 'drizzle-orm';
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
