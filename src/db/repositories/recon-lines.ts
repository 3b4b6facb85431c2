import { and, eq, inArray } from 'drizzle-orm';
import type { CompanyScope, Executor } from '../executor.ts';
import { journalDocuments, paymentLines } from '../schema/index.ts';
import { inCompany } from '../tenant.ts';

/** Outbound documents whose lines a statement may still clear or reverse. */
const OPEN_STATUSES = ['converted', 'sent', 'executed'];

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
  state: string;
  evidence: Record<string, unknown> | null;
};

/**
 * The company's payment lines a statement can prove: pending lines (bookings) and cleared ones
 * (reversals), of outbound documents in the statement's environment that are not terminal.
 */
export async function listReconCandidates(
  q: Executor,
  scope: CompanyScope,
  environment: string,
): Promise<ReconCandidate[]> {
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
        inArray(paymentLines.state, ['pending', 'cleared']),
        eq(journalDocuments.direction, 'outbound'),
        eq(journalDocuments.environment, environment),
        inArray(journalDocuments.status, OPEN_STATUSES),
      ),
    );
}
