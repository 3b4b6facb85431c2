import { isUniqueViolation } from '../../db/errors.ts';
import { lockPlatform, platformExists } from '../../db/repositories/platforms.ts';
import { countWorkspaceAdmins, emailTaken, insertUser, listWorkspaceAdmins } from '../../db/repositories/users.ts';
import { recordEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import { AppError, unauthorized } from '../errors.ts';
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
 * Creates a workspace admin. Without credentials this is bootstrap mode: allowed only while the
 * platform exists and has no admin yet, so the first admin can be created and nothing after.
 */
export async function createAdmin(ctx: AppContext, principal: Principal | null, platformId: string, input: NewAdmin) {
  if (principal) {
    requireWorkspaceAdmin(principal, platformId);
  } else {
    if (!(await platformExists(ctx.db, platformId))) throw unauthorized();
    if ((await countWorkspaceAdmins(ctx.db, { platformId })) > 0) throw unauthorized();
  }
  const email = normaliseEmail(input.email);
  const name = checkName(input.name);
  checkPassword(input.password);
  if (await emailTaken(ctx.db, email)) throw new AppError(400, 'email_taken', 'a user with this email exists');
  const passwordHash = await ctx.passwords.hash(input.password);
  try {
    const user = await ctx.db.transaction(async (tx) => {
      if (!principal) {
        // Checked again under a lock on the platform row: concurrent bootstrap requests could all
        // pass the check above while hashing, and each create a first admin.
        if (!(await lockPlatform(tx, platformId))) throw unauthorized();
        if ((await countWorkspaceAdmins(tx, { platformId })) > 0) throw unauthorized();
      }
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
      await recordEvent(ctx, tx, {
        platformId,
        type: 'admin.created',
        message: `workspace admin ${created.id} created${principal ? '' : ' (bootstrap)'}`,
        actorUserId: principal?.kind === 'session' ? principal.user.id : null,
        metadata: { userId: created.id, bootstrap: !principal },
      });
      return created;
    });
    return { id: user.id, email: user.email, name: user.name };
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new AppError(400, 'email_taken', 'a user with this email exists');
    }
    throw error;
  }
}
