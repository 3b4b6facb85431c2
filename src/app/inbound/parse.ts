import { getProfile } from '../../domain/conversion/index.ts';
import { type NormalisedStatement, type ParseError, parseBankFile, statementsOf } from '../../domain/inbound/index.ts';
import type { AppContext } from '../context.ts';
import { AppError, notFound } from '../errors.ts';
import { companyScope } from '../identity/company-scope.ts';
import type { Principal } from '../identity/principal.ts';
import { journalStatusReport } from '../journal/payment-status.ts';

/** Parse failures as the contract answers them: 400 empty or unrecognised, 422 unparseable. */
function parseFailure(error: ParseError): AppError {
  switch (error.code) {
    case 'empty':
      return new AppError(400, 'empty_body', error.message);
    case 'unrecognised_format':
      return new AppError(400, 'unrecognised_format', error.message);
    case 'too_large':
      return new AppError(413, 'payload_too_large', error.message);
    default:
      return new AppError(422, 'unparseable_file', error.message);
  }
}

/** POST /inbound/statement: stateless, nothing stored; one normalised statement per account block. */
export function parseStatements(content: Uint8Array | string): { items: NormalisedStatement[] } {
  const result = parseBankFile(content);
  if (!result.ok) throw parseFailure(result.error);
  if (result.kind !== 'statement') {
    throw new AppError(422, 'unparseable_file', 'this is a payment status report; send it to /inbound/payment-status');
  }
  return { items: statementsOf(result) };
}

/**
 * POST /inbound/payment-status: the pain.002 normalised, journaled as an inbound document, matched to
 * its original payment and the payment's status advanced (src/app/journal/payment-status.ts). The
 * answer is the normalised report plus, additively, the matched document and its resulting status.
 */
export async function receivePaymentStatus(
  ctx: AppContext,
  principal: Principal,
  input: { companyId: string; content: string; bankKey?: string | undefined; platformId?: string | undefined },
) {
  const scope = await companyScope(ctx, principal, input.companyId, input.platformId);
  if (input.bankKey !== undefined && !getProfile(input.bankKey)) throw notFound('bank');
  const result = parseBankFile(input.content);
  if (!result.ok) {
    // The contract answers this route's unreadable files with 422 (unrecognised ones included).
    if (result.error.code === 'unrecognised_format')
      throw new AppError(422, 'unrecognised_format', result.error.message);
    throw parseFailure(result.error.code === 'empty' ? { ...result.error, code: 'unparseable_file' } : result.error);
  }
  if (result.kind !== 'status-report') {
    throw new AppError(422, 'unparseable_file', 'content is not a pain.002 payment status report');
  }
  const journaled = await journalStatusReport(ctx, scope, {
    content: input.content,
    report: result.report,
    sourceFormat: result.sourceFormat,
    bankKey: input.bankKey ?? null,
    environment: null,
    importSource: 'api',
  });
  ctx.metrics.ingestFile(journaled.reportDocument.type, { [journaled.deduped ? 'deduped' : 'ingested']: 1 });
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
