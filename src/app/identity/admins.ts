import { isUniqueViolation } from '../../db/errors.ts';
import { lockPlatform, platformExists } from '../../db/repositories/platforms.ts';
import { countWorkspaceAdmins, emailTaken, insertUser, listWorkspaceAdmins } from '../../db/repositories/users.ts';
import { recordEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import { AppError, notFound, unauthorized } from '../errors.ts';
import { decodeCursor, page } from '../pagination.ts';
import { requireWorkspaceAdmin } from './access.ts';
import type { Principal } from './principal.ts';
import { checkName, checkPassword, normaliseEmail } from './validation.ts';

export async function listAdmins(
  ctx: AppContext,
  principal: Principal,
  platformId: string,
  cursor: string | undefined,
  limit = 100,
) {
  requireWorkspaceAdmin(principal, platformId);
  const rows = await listWorkspaceAdmins(ctx.db, { platformId }, decodeCursor(cursor), limit + 1);
  const result = page(rows, limit);
  return {
    items: result.items.map((u) => ({ id: u.id, email: u.email, name: u.name })),
    nextCursor: result.nextCursor,
  };
}

export type NewAdmin = { email: string; name: string; password: string };

/**
 * Creates a workspace admin. Without credentials this is bootstrap mode (DESIGN.md: only with
 * BOOTSTRAP=true): allowed only while the platform exists and has no admin yet, so the first admin
 * can be created and nothing after.
 */
export async function createAdmin(ctx: AppContext, principal: Principal | null, platformId: string, input: NewAdmin) {
  if (principal) {
    requireWorkspaceAdmin(principal, platformId);
  } else {
    if (!ctx.config.bootstrap) throw unauthorized();
    if (!(await platformExists(ctx.db, platformId))) throw unauthorized();
    if ((await countWorkspaceAdmins(ctx.db, { platformId })) > 0) throw unauthorized();
  }
  return addWorkspaceAdmin(ctx, platformId, input, {
    bootstrap: !principal,
    actorUserId: principal?.kind === 'session' ? principal.user.id : null,
  });
}

/** What adding an admin needs: the offline command (`cli create-admin`) has no more than this. */
export type AdminContext = Pick<AppContext, 'db' | 'clock' | 'ids' | 'passwords'>;

/**
 * Adds a workspace admin (after the caller's authorisation). `bootstrap` re-checks under the platform's
 * lock that it has no admin yet; the operator's command (`via: 'cli'`) may add one at any time.
 */
export async function addWorkspaceAdmin(
  ctx: AdminContext,
  platformId: string,
  input: NewAdmin,
  how: { bootstrap: boolean; actorUserId: string | null; via?: 'cli' },
) {
  const email = normaliseEmail(input.email);
  const name = checkName(input.name);
  checkPassword(input.password);
  if (await emailTaken(ctx.db, email)) throw new AppError('email_taken', 'a user with this email exists');
  const passwordHash = await ctx.passwords.hash(input.password);
  try {
    const user = await ctx.db.transaction(async (tx) => {
      if (!(await lockPlatform(tx, platformId))) throw how.bootstrap ? unauthorized() : notFound('platform');
      // Checked again under the lock: concurrent bootstrap requests could all pass the first check
      // while hashing, and each create a first admin.
      if (how.bootstrap && (await countWorkspaceAdmins(tx, { platformId })) > 0) throw unauthorized();
      const created = await insertUser(tx, {
        id: ctx.ids.next('usr'),
        platformId,
        companyId: null,
        workspaceAdmin: true,
        email,
        name,
        roles: ['admin'],
        status: 'active',
        passwordHash,
        createdAt: ctx.clock.now(),
      });
      const suffix = how.bootstrap ? ' (bootstrap)' : how.via === 'cli' ? ' (operator command)' : '';
      await recordEvent(ctx, tx, {
        platformId,
        type: 'admin.created',
        message: `workspace admin ${created.id} created${suffix}`,
        actorUserId: how.actorUserId,
        metadata: { userId: created.id, bootstrap: how.bootstrap, ...(how.via ? { via: how.via } : {}) },
      });
      return created;
    });
    return { id: user.id, email: user.email, name: user.name };
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new AppError('email_taken', 'a user with this email exists');
    }
    throw error;
  }
}
