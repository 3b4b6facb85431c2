/**
 * The one table of error codes (DESIGN.md, "API description and errors"): each code answers one
 * status everywhere, with one line of meaning and the shape of its `details`. AppError takes a code
 * of this table and derives the status from it, so a code with a second status cannot be written;
 * the API description (/openapi.json) lists each route's codes from here. docs/adr/0068.
 *
 * `details` names the fields a client can rely on (absent: the code carries none). The OAuth token
 * and revoke routes answer the flat OAuth shape and are not in this table.
 */
export const ERROR_CODES = {
  // 400: the request itself is wrong.
  bad_request: {
    status: 400,
    meaning: 'the request is malformed in a way no more specific code names',
    details: 'field?: string; issues?: ValidationIssue[]',
  },
  validation_failed: {
    status: 400,
    meaning: 'the request does not match the route schema (unknown fields, missing or ill-typed values)',
    details: 'issues: ValidationIssue[] ({path, message, field?, code?}); field?: string',
  },
  invalid_json: { status: 400, meaning: 'the body is empty or not valid JSON' },
  empty_body: { status: 400, meaning: 'the uploaded file is empty' },
  unrecognised_statement: {
    status: 400,
    meaning: 'POST /inbound/statement: the body is not a bank statement format this service reads',
  },
  invalid_service_version: {
    status: 400,
    meaning: 'the Service-Version header is not a date YYYY-MM-DD',
    details: 'baseline: string',
  },
  idempotency_key_required: {
    status: 400,
    meaning: 'a host-to-host submit without Idempotency-Key and without payment.messageId',
  },
  url_required: { status: 400, meaning: 'a webhook registration without url' },
  unsupported_pain_version: {
    status: 400,
    meaning: 'the painVersion asked for is not one this bank takes',
    details: 'painVersion: string; allowed: string[]',
  },
  invalid_certificate: { status: 400, meaning: 'the certificate sent is not a usable X.509 certificate' },
  activation_failed: {
    status: 400,
    meaning: 'the bank refused the activation of a web-services connection',
    details: 'bankCode?: string; bankMessage?: string; reason?: string',
  },
  wrong_activation_family: {
    status: 400,
    meaning: 'this activation route is not the one of the connection’s bank',
    details: 'bankKey?: string; activationRoute: string | null',
  },
  ebics_refused: {
    status: 400,
    meaning: 'the EBICS bank refused the order',
    details: 'returnCode: string | null; reportText: string',
  },
  bank_key_mismatch: {
    status: 400,
    meaning: 'the bank key hashes confirmed are not those HPB received; nothing changed',
    details: 'mismatched: string[]',
  },
  wrong_channel: {
    status: 400,
    meaning: 'these settings are not for the channel the bank connects over',
    details: 'field?: string',
  },
  not_web_services: { status: 400, meaning: 'the bank does not connect over Finnish web services' },
  not_host_to_host: { status: 400, meaning: 'the bank takes files by upload only; nothing is sent to it' },
  test_environment_only: {
    status: 400,
    meaning: 'only a test-environment connection does this',
    details: 'environment: string',
  },
  channel_check_failed: {
    status: 400,
    meaning: 'the channel settings were tried against the bank and failed',
    details: 'field: string; check: {code, message, retryable}; readiness: object',
  },
  email_taken: { status: 400, meaning: 'a user with this email already exists' },
  invalid_token: { status: 400, meaning: 'the invitation or reset token is invalid, expired or used' },
  wrong_password: { status: 400, meaning: 'the current password is wrong', details: 'field: string' },
  wrong_code: { status: 400, meaning: 'a signed-in user’s second-factor code is wrong, expired or already used' },
  // 401: who is calling is not known.
  unauthorized: { status: 401, meaning: 'missing or invalid credential' },
  invalid_code: { status: 401, meaning: 'the sign-in challenge’s second-factor code is wrong or already used' },
  // 402: the billing gates of production submits.
  trial_payments_exhausted: {
    status: 402,
    meaning: 'the company’s free production payments are used and it has no active package',
    details: 'productionPaymentsSent: number; freeLimit: number; packagesUrl: string',
  },
  billing_past_due: {
    status: 402,
    meaning: 'an invoice is 30 or more days past due; production submits are paused',
    details: 'pastDueSince: string; graceDays: number',
  },
  // 403: known, but not allowed.
  forbidden: { status: 403, meaning: 'scope mismatch or wrong credential type' },
  insufficient_scope: {
    status: 403,
    meaning: 'the OAuth token lacks the scope this route needs',
    details: 'requiredScope: string',
  },
  admin_required: { status: 403, meaning: 'an admin session is required (API keys never reach these routes)' },
  two_factor_required: { status: 403, meaning: 'this needs a session of a user with two-factor sign-in enabled' },
  sandbox_only: { status: 403, meaning: 'this exists in a sandbox deployment only' },
  maker_cannot_approve: { status: 403, meaning: 'the maker of a payment cannot decide on its approval' },
  // 404: not there (or not the caller's).
  not_found: {
    status: 404,
    meaning: 'unknown route, bank key, document, job, key, company or other resource',
    details: 'bankKey?: string',
  },
  connection_not_found: { status: 404, meaning: 'not one of the company’s connections', details: 'bankKey?: string' },
  // 405, 409, 413, 414, 415, 422, 429.
  method_not_allowed: { status: 405, meaning: 'the path exists but not with this method (see Allow)' },
  conflict: {
    status: 409,
    meaning: 'the state does not allow this, or an idempotency key was reused with a different body',
    details: 'journalNo?: string; status?: string; deliveryStatus?: string; ebicsState?: string',
  },
  message_id_already_used: {
    status: 409,
    meaning: 'an earlier submit with this payment.messageId ended rejected or cancelled',
    details: 'originalJournalNo: string; originalStatus: string; remedy: "new_message_id"',
  },
  connection_not_ready: {
    status: 409,
    meaning: 'a host-to-host submit without an active connection in its environment',
    details: 'bankKey: string; environment: string; missing: string[]',
  },
  delivery_unrecorded: {
    status: 409,
    meaning: 'the payment is being delivered; its report is taken once that is recorded',
    details: 'documentId: string',
  },
  approval_not_pending: { status: 409, meaning: 'the approval is no longer pending', details: 'status?: string' },
  already_decided: { status: 409, meaning: 'this user has already decided on this approval' },
  out_of_order: {
    status: 409,
    meaning: 'the policy takes approvals group by group and an earlier group has not approved',
  },
  last_admin: { status: 409, meaning: 'the last admin cannot be removed or demoted' },
  no_company: { status: 409, meaning: 'no company chosen yet (dashboard)' },
  two_factor_already_enabled: { status: 409, meaning: 'two-factor sign-in is already enabled' },
  two_factor_not_enabled: { status: 409, meaning: 'two-factor sign-in is not enabled' },
  two_factor_not_set_up: { status: 409, meaning: 'no pending two-factor secret: run the setup first' },
  payload_too_large: { status: 413, meaning: 'the body is larger than this route accepts' },
  uri_too_long: { status: 414, meaning: 'a path parameter is longer than any id this API issues' },
  unsupported_media_type: { status: 415, meaning: 'this content type is not accepted here' },
  invalid_payment: {
    status: 422,
    meaning: 'the canonical payment fails validation; every issue is returned at once',
    details: 'issues: ValidationIssue[] (the conversion engine’s issues)',
  },
  unrecognised_format: { status: 422, meaning: 'the bank file is in no format this service reads' },
  unparseable_file: {
    status: 422,
    meaning: 'the bank file is of a known format but cannot be parsed, or is of the wrong kind',
  },
  unmatched_report: { status: 422, meaning: 'the status report matches no outbound payment of the company' },
  amounts_differ: {
    status: 422,
    meaning: 'a manual match whose outbound lines do not add up to the statement entry (or are in another currency)',
    details: 'entryAmount: string; linesAmount: string; currency: string',
  },
  rate_limited: {
    status: 429,
    meaning: 'too many requests; retry after Retry-After seconds',
    details: 'retryAfterSeconds: number',
  },
  // 5xx.
  internal_error: { status: 500, meaning: 'an unexpected failure; quote the X-Request-ID when reporting it' },
  bank_unavailable: {
    status: 502,
    meaning: 'the bank’s service failed',
    details: 'reason: string; retryable: boolean',
  },
  database_unavailable: {
    status: 503,
    meaning: 'the database is unreachable; nothing is known to be committed (Retry-After)',
  },
} as const satisfies Record<string, { status: number; meaning: string; details?: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export function statusOf(code: ErrorCode): number {
  return ERROR_CODES[code].status;
}
