/**
 * A client-facing failure: the HTTP layer answers it as the contract's envelope
 * `{error: {code, message, details?}}` with `status`. Anything else is an internal error (500).
 */
export class AppError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: Record<string, unknown> | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(
    status: number,
    code: string,
    message: string,
    details?: Record<string, unknown>,
    headers?: Record<string, string>,
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
    this.headers = headers;
  }
}

export const unauthorized = () => new AppError(401, 'unauthorized', 'missing or invalid credentials');
export const forbidden = (message = 'not allowed for this credential or scope') =>
  new AppError(403, 'forbidden', message);
export const notFound = (what: string) => new AppError(404, 'not_found', `${what} not found`);
export const badRequest = (message: string, details?: Record<string, unknown>) =>
  new AppError(400, 'bad_request', message, details);
