import { hasEnabledTwoFactor } from '../../db/repositories/two-factor.ts';
import type { AppContext } from '../context.ts';
import type { SessionPrincipal } from '../identity/principal.ts';
import { listUsers } from '../identity/users.ts';

/**
 * The company's users as GET /users lists them, with whether each has 2FA enabled (for the users
 * page; an admin sees who still signs in with a password alone).
 */
export async function usersWithTwoFactor(ctx: AppContext, session: SessionPrincipal, companyId: string) {
  const { users } = await listUsers(ctx, session, session.platformId, companyId);
  const scope = { platformId: session.platformId };
  const flags = await Promise.all(users.map((u) => hasEnabledTwoFactor(ctx.db, scope, u.id)));
  return users.map((u, i) => ({ ...u, twoFactor: flags[i] ?? false }));
}
