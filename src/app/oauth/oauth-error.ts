/**
 * An error of the token and revocation endpoints, answered in the flat RFC 6749 §5.2 shape
 * `{error, error_description}` (contract, Authentication: OAuth rule 5), not the standard envelope.
 */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope';

export class OAuthError extends Error {
  readonly status: number;
  readonly error: OAuthErrorCode;

  constructor(error: OAuthErrorCode, description: string) {
    super(description);
    this.error = error;
    // RFC 6749 §5.2: 400, except a failed client authentication, which is 401.
    this.status = error === 'invalid_client' ? 401 : 400;
  }
}

export const invalidRequest = (description: string) => new OAuthError('invalid_request', description);
export const invalidGrant = (description: string) => new OAuthError('invalid_grant', description);
