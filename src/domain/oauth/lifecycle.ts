/**
 * States of OAuth grants and token pairs, each with its one transition function; the database
 * mirrors them with CHECK constraints (src/db/schema/oauth.ts).
 *
 * A grant is one consent: every token pair issued from it forms one family. A pair is an access
 * token and the refresh token issued with it. Refreshing rotates the pair (the old one can no longer
 * be used, access token included); presenting a rotated refresh token again revokes the family.
 */
export const GRANT_STATUSES = ['active', 'revoked'] as const;
export type GrantStatus = (typeof GRANT_STATUSES)[number];

/** Why a grant was revoked: recorded with it and in its audit event. */
export const GRANT_REVOCATION_REASONS = [
  'user', // DELETE /oauth/grants/{id} by its user
  'admin', // DELETE /oauth/grants/{id} by a workspace admin
  'token-revoked', // POST /oauth/revoke with one of its tokens
  'client-deleted', // its client was deleted
  'refresh-replay', // a rotated refresh token came back (security event)
  'code-replay', // its authorization code came back (security event, RFC 6749 §4.1.2)
] as const;
export type GrantRevocationReason = (typeof GRANT_REVOCATION_REASONS)[number];

export type GrantEvent = { type: 'revoke'; reason: GrantRevocationReason };

export function nextGrantStatus(status: GrantStatus, event: GrantEvent): GrantStatus | undefined {
  switch (status) {
    case 'active':
      return event.type === 'revoke' ? 'revoked' : undefined;
    case 'revoked':
      return undefined;
    default:
      return assertNever(status);
  }
}

export const TOKEN_PAIR_STATUSES = ['active', 'rotated', 'revoked'] as const;
export type TokenPairStatus = (typeof TOKEN_PAIR_STATUSES)[number];

export type TokenPairEvent = { type: 'rotate' } | { type: 'revoke' };

export function nextTokenPairStatus(status: TokenPairStatus, event: TokenPairEvent): TokenPairStatus | undefined {
  switch (status) {
    case 'active':
      return event.type === 'rotate' ? 'rotated' : 'revoked';
    case 'rotated':
      // A rotated pair is revoked with its family, never rotated again.
      return event.type === 'revoke' ? 'revoked' : undefined;
    case 'revoked':
      return undefined;
    default:
      return assertNever(status);
  }
}

/** What presenting a refresh token of a pair in `status` means. */
export type RefreshVerdict = 'rotate' | 'replay' | 'dead';

export function refreshVerdict(status: TokenPairStatus): RefreshVerdict {
  switch (status) {
    case 'active':
      return 'rotate';
    case 'rotated':
      return 'replay';
    case 'revoked':
      return 'dead';
    default:
      return assertNever(status);
  }
}

function assertNever(value: never): never {
  throw new Error(`unexpected state ${String(value)}`);
}
