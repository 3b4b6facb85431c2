import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import { companyScope } from '../identity/company-scope.ts';
import type { Principal } from '../identity/principal.ts';
import { type RefusalCode, receiveBankFile } from './receive.ts';

/** The contract answers this route's unreadable files with 422 (unrecognised and empty ones included). */
function paymentStatusRefusal(code: RefusalCode, message: string): AppError {
  switch (code) {
    case 'too_large':
      return new AppError('payload_too_large', message);
    case 'unrecognised_format':
      return new AppError('unrecognised_format', message);
    default:
      return new AppError('unparseable_file', message);
  }
}

/**
 * POST /inbound/payment-status: the pain.002 normalised, journaled as an inbound document, matched to
 * its original payment and the payment's status advanced (payment-status.ts), through the bank-files
 * entry point as a batch of one. The answer is the normalised report plus, additively, the matched
 * document and its resulting status.
 */
export async function receivePaymentStatus(
  ctx: AppContext,
  principal: Principal,
  input: { companyId: string; content: string; bankKey?: string | undefined; platformId?: string | undefined },
) {
  const scope = await companyScope(ctx, principal, input.companyId, input.platformId);
  const { statusReport } = await receiveBankFile(
    ctx,
    scope,
    { content: input.content, bankKey: input.bankKey, source: 'api' },
    { expect: 'status-report', refuse: paymentStatusRefusal },
  );
  const journaled = statusReport!;
  return {
    ...journaled.report,
    documentId: journaled.match.documentId,
    journalNo: journaled.match.journalNo,
    status: journaled.match.status,
    previousStatus: journaled.match.previousStatus,
    deduped: journaled.deduped,
    reportDocumentId: journaled.reportDocument.id,
    reportJournalNo: journaled.reportDocument.journalNo,
  };
}
