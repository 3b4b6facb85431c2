import { type ErrorCode, statusOf } from './error-codes.ts';

/**
 * A client-facing failure: the HTTP layer answers it as the contract's envelope
 * `{error: {code, message, details?}}` with the status the error-code table gives the code
 * (error-codes.ts: one status per code). Anything else is an internal error (500).
 */
export class AppError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>, headers?: Record<string, string>) {
    super(message);
    this.status = statusOf(code);
    this.code = code;
    this.details = details;
    this.headers = headers;
  }
}

export const unauthorized = () => new AppError('unauthorized', 'missing or invalid credentials');
export const forbidden = (message = 'not allowed for this credential or scope') => new AppError('forbidden', message);
export const notFound = (what: string) => new AppError('not_found', `${what} not found`);
export const badRequest = (message: string, details?: Record<string, unknown>) =>
  new AppError('bad_request', message, details);
