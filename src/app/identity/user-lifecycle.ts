import type { Executor } from '../../db/executor.ts';
import { insertInvite, voidUserInvites } from '../../db/repositories/invites.ts';
import { voidUserChallenges } from '../../db/repositories/login-challenges.ts';
import { revokeUserSessions } from '../../db/repositories/sessions.ts';
import { deleteTwoFactor } from '../../db/repositories/two-factor.ts';
import {
  countOtherCompanyAdmins,
  eraseCompanyUser,
  lockCompanyForUserChange,
  lockCompanyUser,
  replacePasswordHash,
  type UserRow,
  updateCompanyUser,
} from '../../db/repositories/users.ts';
import { userTransition } from '../../domain/lifecycle/index.ts';
import { randomSecret, sha256Hex } from '../../platform/secrets.ts';
import { recordEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import { AppError, badRequest, forbidden, notFound } from '../errors.ts';
import { assertPlatform, requireCompanyAdmin } from './access.ts';
import type { Principal } from './principal.ts';
import { checkRoles, KEY_GRANTABLE } from './users.ts';
import { checkName } from './validation.ts';

/**
 * User lifecycle (DESIGN.md, Identity): re-role and rename, admin password reset, erasure. A company
 * admin's session may do all; an API key only re-roles (and renames) users who are not admins,
 * among approver and viewer (contract, Authentication). The company's last admin is never removed
 * or demoted (409 last_admin): every change takes the company's lock first, so two at once cannot
 * both remove "the other" admin.
 */
export const RESET_TTL_MS = 24 * 60 * 60 * 1000;

type Scope = { platformId: string; companyId: string };

const lastAdmin = () => new AppError('last_admin', 'the last admin of a company cannot be removed or demoted');

function actorOf(principal: Principal) {
  return principal.kind === 'session'
    ? { actorUserId: principal.user.id, by: 'session' }
    : { actorUserId: null, by: principal.kind === 'key' ? principal.keyId : principal.grantId };
}

/** Who may change users of the company at all; answers whether the caller is limited as an API key. */
function authorise(principal: Principal, scope: Scope, keyAllowed: boolean): void {
  if (principal.kind === 'key') {
    assertPlatform(principal, scope.platformId);
    if (!keyAllowed) throw forbidden('an API key may not reset a password or erase a user');
    return;
  }
  requireCompanyAdmin(principal, scope.platformId, scope.companyId);
}

/** Inside the transaction: the company locked, then the user (404 when not a live user of the company). */
async function lockTarget(tx: Executor, scope: Scope, userId: string): Promise<UserRow> {
  if (!(await lockCompanyForUserChange(tx, scope))) throw notFound('company');
  const user = await lockCompanyUser(tx, scope, userId);
  if (!user) throw notFound('user');
  return user;
}

async function assertNotLastAdmin(tx: Executor, scope: Scope, user: UserRow): Promise<void> {
  if (user.roles.includes('admin') && (await countOtherCompanyAdmins(tx, scope, user.id)) === 0) throw lastAdmin();
}

export type UserPatch = { roles?: string[] | undefined; name?: string | undefined };

/** PATCH /users/{id}: roles and/or name. */
export async function updateUser(
  ctx: AppContext,
  principal: Principal,
  scope: Scope,
  userId: string,
  patch: UserPatch,
) {
  authorise(principal, scope, true);
  if (patch.roles === undefined && patch.name === undefined) throw badRequest('nothing to change: give roles or name');
  const roles = patch.roles === undefined ? undefined : checkRoles(patch.roles);
  const name = patch.name === undefined ? undefined : checkName(patch.name);
  if (principal.kind === 'key' && roles?.some((r) => !KEY_GRANTABLE.includes(r))) {
    throw forbidden('an API key may grant only approver and viewer');
  }
  return ctx.db.transaction(async (tx) => {
    const user = await lockTarget(tx, scope, userId);
    if (principal.kind === 'key' && user.roles.includes('admin')) {
      throw forbidden('an API key may not change an admin');
    }
    if (roles !== undefined && !roles.includes('admin')) await assertNotLastAdmin(tx, scope, user);
    const updated = await updateCompanyUser(tx, scope, user.id, {
      ...(roles === undefined ? {} : { roles }),
      ...(name === undefined ? {} : { name }),
    });
    if (!updated) throw notFound('user');
    const actor = actorOf(principal);
    await recordEvent(ctx, tx, {
      platformId: scope.platformId,
      companyId: scope.companyId,
      type: 'user.updated',
      message: `user ${user.id} updated${roles ? `: roles ${user.roles.join(', ')} -> ${roles.join(', ')}` : ''}${name ? '; name changed' : ''}`,
      actorUserId: actor.actorUserId,
      metadata: {
        userId: user.id,
        by: actor.by,
        ...(roles ? { rolesBefore: user.roles, rolesAfter: roles } : {}),
        nameChanged: name !== undefined,
      },
    });
    return { id: updated.id, email: updated.email, name: updated.name, roles: updated.roles, status: updated.status };
  });
}

/**
 * POST /users/{id}/reset-password: the old password stops working, every session and pending login
 * of the user ends, and a one-time set-password token (24 hours) is mailed to the user. 2FA stays:
 * a reset never lowers the bar to sign in.
 */
export async function resetUserPassword(ctx: AppContext, principal: Principal, scope: Scope, userId: string) {
  authorise(principal, scope, false);
  const now = ctx.clock.now();
  const token = randomSecret('inv_', 32);
  const user = await ctx.db.transaction(async (tx) => {
    const target = await lockTarget(tx, scope, userId);
    const pf = { platformId: scope.platformId };
    await replacePasswordHash(tx, pf, target.id, null);
    await revokeUserSessions(tx, pf, target.id, now);
    await voidUserChallenges(tx, pf, target.id, now);
    await voidUserInvites(tx, target.id, now);
    await insertInvite(tx, {
      id: ctx.ids.next('inv'),
      userId: target.id,
      digest: sha256Hex(token),
      createdAt: now,
      expiresAt: new Date(now.getTime() + RESET_TTL_MS),
    });
    await recordEvent(ctx, tx, {
      platformId: scope.platformId,
      companyId: scope.companyId,
      type: 'user.password_reset',
      message: `user ${target.id} password reset; sessions revoked, a set-password link mailed`,
      actorUserId: actorOf(principal).actorUserId,
      metadata: { userId: target.id },
    });
    return target;
  });
  await ctx.mailer.send({
    to: user.email,
    subject: 'Set a new password',
    text: `An admin reset your password. Set a new one: POST ${ctx.config.publicBaseUrl}/auth/set-password with {"token": "${token}", "password": "..."}. The link is valid for 24 hours.`,
  });
  return { ok: true as const };
}

/**
 * DELETE /users/{id}: erasure. Personal data goes (name, email, password, 2FA, sessions, pending
 * tokens); the id stays for the audit trail. The last admin cannot be erased.
 */
export async function eraseUser(ctx: AppContext, principal: Principal, scope: Scope, userId: string) {
  authorise(principal, scope, false);
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const target = await lockTarget(tx, scope, userId);
    const move = userTransition(target.status, 'erased');
    if (!move.ok) throw new AppError('conflict', move.reason);
    await assertNotLastAdmin(tx, scope, target);
    const pf = { platformId: scope.platformId };
    if (!(await eraseCompanyUser(tx, scope, target.id))) throw notFound('user');
    await deleteTwoFactor(tx, pf, target.id);
    await revokeUserSessions(tx, pf, target.id, now);
    await voidUserChallenges(tx, pf, target.id, now);
    await voidUserInvites(tx, target.id, now);
    await recordEvent(ctx, tx, {
      platformId: scope.platformId,
      companyId: scope.companyId,
      type: 'user.erased',
      message: `user ${target.id} erased`,
      actorUserId: actorOf(principal).actorUserId,
      metadata: { userId: target.id },
    });
    return { ok: true as const, id: target.id, status: 'erased' as const };
  });
}
