import { type NormalisedStatement, type ParseError, parseBankFile, statementsOf } from '../../domain/inbound/index.ts';
import { AppError } from '../errors.ts';

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
