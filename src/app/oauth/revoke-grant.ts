import type { Executor } from '../../db/executor.ts';
import { revokeOAuthGrant } from '../../db/repositories/oauth-grants.ts';
import type { GrantRevocationReason } from '../../domain/lifecycle/index.ts';
import { recordEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';

/** Replays are attacks or broken clients: audited as security events and logged at warn. */
const SECURITY_REASONS: ReadonlySet<GrantRevocationReason> = new Set(['refresh-replay', 'code-replay']);

/**
 * Revokes a grant and every token pair of it in the caller's transaction, with its audit event.
 * False when the grant was no longer active (nothing is recorded twice).
 */
export async function revokeGrantIn(
  ctx: AppContext,
  tx: Executor,
  input: {
    platformId: string;
    grantId: string;
    clientId: string;
    reason: GrantRevocationReason;
    actorUserId: string | null;
  },
): Promise<boolean> {
  const { platformId, grantId, clientId, reason } = input;
  if (!(await revokeOAuthGrant(tx, { platformId }, grantId, reason, ctx.clock.now()))) return false;
  const security = SECURITY_REASONS.has(reason);
  await recordEvent(ctx, tx, {
    platformId,
    type: security ? `oauth.grant.${reason}` : 'oauth.grant.revoked',
    message: security
      ? `OAuth grant ${grantId} of client ${clientId} revoked whole: a used ${reason === 'code-replay' ? 'authorization code' : 'refresh token'} was presented again`
      : `OAuth grant ${grantId} of client ${clientId} revoked (${reason})`,
    actorUserId: input.actorUserId,
    metadata: { grantId, clientId, reason, ...(security ? { security: true } : {}) },
  });
  if (security) {
    ctx.logger.warn(
      { event: 'oauth.grant.revoked', reason, grantId, clientId, platformId },
      'OAuth grant revoked: a used credential was presented again (possible token theft)',
    );
  }
  return true;
}
