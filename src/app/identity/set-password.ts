import { consumeInvite } from '../../db/repositories/invites.ts';
import { voidUserChallenges } from '../../db/repositories/login-challenges.ts';
import { revokeUserSessions } from '../../db/repositories/sessions.ts';
import { findUserById, setUserPassword } from '../../db/repositories/users.ts';
import { sha256Hex } from '../../platform/secrets.ts';
import { recordEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import { enforce, SET_PASSWORD_PER_IP } from '../rate-limits.ts';
import { checkPassword } from './validation.ts';

const invalidToken = () => new AppError('invalid_token', 'the invite token is invalid or expired');

/**
 * Redeems a one-time invite or reset token: sets the password, activates the user and ends every
 * session they had. Tries are limited per client address across processes (contract: 429 per IP).
 */
export async function setPasswordWithInvite(ctx: AppContext, token: string, password: string, ip: string) {
  await enforce(ctx, SET_PASSWORD_PER_IP, ip);
  checkPassword(password);
  if (!/^inv_[0-9a-f]{64}$/.test(token)) throw invalidToken();
  const passwordHash = await ctx.passwords.hash(password);
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const userId = await consumeInvite(tx, sha256Hex(token), now);
    if (!userId) throw invalidToken();
    const user = await findUserById(tx, userId);
    if (!user || user.status === 'erased') throw invalidToken();
    const scope = { platformId: user.platformId };
    await setUserPassword(tx, scope, user.id, passwordHash);
    await revokeUserSessions(tx, scope, user.id, now);
    await voidUserChallenges(tx, scope, user.id, now);
    await recordEvent(ctx, tx, {
      platformId: user.platformId,
      companyId: user.companyId,
      type: 'user.password-set',
      message: `user ${user.id} set a password from an invite; their sessions were revoked`,
      actorUserId: user.id,
      metadata: { userId: user.id },
    });
    return { ok: true, email: user.email };
  });
}
