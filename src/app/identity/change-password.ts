import { voidUserChallenges } from '../../db/repositories/login-challenges.ts';
import { revokeOtherUserSessions } from '../../db/repositories/sessions.ts';
import { findUser, replacePasswordHash } from '../../db/repositories/users.ts';
import { recordEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import { AppError, unauthorized } from '../errors.ts';
import { enforce, PASSWORD_CHECKS_PER_USER } from '../rate-limits.ts';
import type { SessionPrincipal } from './principal.ts';
import { checkPassword } from './validation.ts';

/**
 * POST /auth/change-password (DESIGN.md): the current password proves the person, not just the
 * session; the user's other sessions end, the calling one stays. Guesses of the current password
 * with a stolen session are limited per user.
 */
export async function changePassword(
  ctx: AppContext,
  session: SessionPrincipal,
  currentPassword: string,
  newPassword: string,
) {
  const scope = { platformId: session.platformId };
  await enforce(ctx, PASSWORD_CHECKS_PER_USER, session.user.id);
  const user = await findUser(ctx.db, scope, session.user.id);
  if (!user?.passwordHash) throw unauthorized();
  if (!(await ctx.passwords.verify(user.passwordHash, currentPassword))) {
    throw new AppError('wrong_password', 'the current password is wrong', { field: 'currentPassword' });
  }
  checkPassword(newPassword);
  const passwordHash = await ctx.passwords.hash(newPassword);
  const now = ctx.clock.now();
  const revoked = await ctx.db.transaction(async (tx) => {
    await replacePasswordHash(tx, scope, user.id, passwordHash);
    const ended = await revokeOtherUserSessions(tx, scope, user.id, session.sessionId, now);
    await voidUserChallenges(tx, scope, user.id, now);
    await recordEvent(ctx, tx, {
      platformId: session.platformId,
      companyId: user.companyId,
      type: 'user.password_changed',
      message: `user ${user.id} changed their password; ${ended} other session(s) revoked`,
      actorUserId: user.id,
      metadata: { userId: user.id, sessionsRevoked: ended },
    });
    return ended;
  });
  return { ok: true as const, sessionsRevoked: revoked };
}
