import { touchPlatformActivity } from '../../db/repositories/platforms.ts';
import { insertSession, revokeSession } from '../../db/repositories/sessions.ts';
import { findUserByEmailForLogin, type UserRow } from '../../db/repositories/users.ts';
import { randomSecret, sha256Hex } from '../../platform/secrets.ts';
import type { AppContext } from '../context.ts';
import { unauthorized } from '../errors.ts';
import type { SessionPrincipal } from './principal.ts';

/** Admin sessions last 12 hours from login; there is no sliding renewal. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

// Verified against when the email is unknown, so a miss costs as long as a wrong password.
let dummyHash: Promise<string> | undefined;

export type UserView = {
  id: string;
  email: string;
  name: string;
  roles: string[];
  status: string;
  platformId: string;
  companyId: string | null;
  workspaceAdmin: boolean;
};

export function userView(
  user: Pick<UserRow, 'id' | 'email' | 'name' | 'roles' | 'status' | 'platformId' | 'companyId' | 'workspaceAdmin'>,
): UserView {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    roles: user.roles,
    status: user.status,
    platformId: user.platformId,
    companyId: user.companyId,
    workspaceAdmin: user.workspaceAdmin,
  };
}

export type LoginResult = { sessionToken: string; expiresAt: string; user: UserView };

/**
 * Email and password login. 2FA (a later issue) plugs in here: a user with a second factor gets a
 * challenge instead of a session.
 */
export async function login(ctx: AppContext, email: string, password: string): Promise<LoginResult> {
  const user = await findUserByEmailForLogin(ctx.db, email.trim().toLowerCase());
  dummyHash ??= ctx.passwords.hash(randomSecret('dummy_', 16));
  const ok = await ctx.passwords.verify(user?.passwordHash ?? (await dummyHash), password);
  if (!user?.passwordHash || !ok || user.status !== 'active') throw unauthorized();
  return openSession(ctx, user);
}

async function openSession(ctx: AppContext, user: UserRow): Promise<LoginResult> {
  const now = ctx.clock.now();
  const token = randomSecret('st_');
  const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
  await insertSession(ctx.db, {
    id: ctx.ids.next('sess'),
    userId: user.id,
    platformId: user.platformId,
    digest: sha256Hex(token),
    companyContextId: null,
    createdAt: now,
    expiresAt,
  });
  await touchPlatformActivity(ctx.db, user.platformId, now);
  return { sessionToken: token, expiresAt: expiresAt.toISOString(), user: userView(user) };
}

export async function logout(ctx: AppContext, session: SessionPrincipal): Promise<void> {
  await revokeSession(ctx.db, { platformId: session.platformId }, session.sessionId, ctx.clock.now());
}

export function me(session: SessionPrincipal) {
  return {
    user: { ...session.user, status: 'active', platformId: session.platformId },
    platformId: session.platformId,
    companyContextId: session.companyContextId,
  };
}
