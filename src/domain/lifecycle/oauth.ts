import { tableTransition, unknownStatus } from './transition.ts';

/**
 * OAuth grants and token pairs, in the style of the other state sets: a status list (the CHECK
 * constraints of src/db/schema/oauth.ts are built from it), one table transition each, and exhaustive
 * switches where a status is read.
 *
 * A grant is one consent: every token pair issued from it forms one family. A pair is an access
 * token and the refresh token issued with it. Refreshing rotates the pair (the old one can no longer
 * be used, access token included); presenting a rotated refresh token again revokes the family.
 * Authorization codes and clients have no status: a code is used once (its `usedAt`) or expires, a
 * client exists or is deleted.
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

/** A grant is revoked once, for good. */
export const grantTransition = tableTransition<GrantStatus>({ active: ['revoked'], revoked: [] }, 'grant');

export const TOKEN_PAIR_STATUSES = ['active', 'rotated', 'revoked'] as const;
export type TokenPairStatus = (typeof TOKEN_PAIR_STATUSES)[number];

/** An active pair is rotated by a refresh or revoked; a rotated pair is revoked with its family, never rotated again. */
export const tokenPairTransition = tableTransition<TokenPairStatus>(
  { active: ['rotated', 'revoked'], rotated: ['revoked'], revoked: [] },
  'token pair',
);

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
      return unknownStatus(status, 'OAuth token pair status');
  }
}
