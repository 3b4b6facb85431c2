import { isUniqueViolation } from '../../db/errors.ts';
import { findCompany } from '../../db/repositories/companies.ts';
import { insertInvite } from '../../db/repositories/invites.ts';
import { emailTaken, insertUser, listCompanyUsers } from '../../db/repositories/users.ts';
import { randomSecret, sha256Hex } from '../../platform/secrets.ts';
import { recordEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import { AppError, badRequest, forbidden, notFound } from '../errors.ts';
import { assertPlatform, requireCompanyAdmin, requireCompanyMember } from './access.ts';
import { companyScope } from './company-scope.ts';
import type { Principal } from './principal.ts';
import { checkName, checkPassword, normaliseEmail } from './validation.ts';

export const ROLES = ['admin', 'approver', 'viewer'] as const;
export type Role = (typeof ROLES)[number];
/** What an API key may grant: never admin (contract, Authentication). */
export const KEY_GRANTABLE: readonly string[] = ['approver', 'viewer'];
export const INVITE_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export async function listUsers(ctx: AppContext, principal: Principal, platformId: string, companyId: string) {
  requireCompanyMember(principal, platformId, companyId);
  // A workspace admin names any company: one of another platform is 403 and an unknown one 404, as on
  // every other route, never an empty list that says the company exists elsewhere or not at all.
  await companyScope(ctx, principal, companyId, platformId);
  const rows = await listCompanyUsers(ctx.db, { platformId, companyId });
  return { users: rows.map((u) => ({ id: u.id, email: u.email, name: u.name, roles: u.roles, status: u.status })) };
}

export type NewUser = {
  platformId: string;
  companyId: string;
  email: string;
  name: string;
  roles: string[];
  password?: string | undefined;
};

export function checkRoles(roles: string[]): Role[] {
  const unique = [...new Set(roles)];
  if (unique.length === 0 || unique.some((r) => !(ROLES as readonly string[]).includes(r))) {
    throw badRequest(`roles must name at least one of ${ROLES.join(', ')}`, { field: 'roles' });
  }
  return unique as Role[];
}

/**
 * Company admins create users with any role and optionally a password. An API key may create
 * approver and viewer users by invite only: never an admin, never a password.
 */
export async function createUser(ctx: AppContext, principal: Principal, input: NewUser) {
  const roles = checkRoles(input.roles);
  if (principal.kind === 'key') {
    assertPlatform(principal, input.platformId);
    if (roles.some((r) => !KEY_GRANTABLE.includes(r))) throw forbidden('an API key may grant only approver and viewer');
    if (input.password !== undefined) throw forbidden('an API key may not set a password; the user is invited');
  } else {
    requireCompanyAdmin(principal, input.platformId, input.companyId);
  }
  const company = await findCompany(ctx.db, { platformId: input.platformId }, input.companyId);
  // A key states only a company; one outside its platform is a scope error (contract, Failure table).
  if (!company && principal.kind === 'key') throw forbidden('the company is outside this credential');
  if (!company) throw notFound('company');
  const email = normaliseEmail(input.email);
  const name = checkName(input.name);
  if (input.password !== undefined) checkPassword(input.password);
  if (await emailTaken(ctx.db, email)) throw new AppError('email_taken', 'a user with this email exists');

  const now = ctx.clock.now();
  const passwordHash = input.password === undefined ? null : await ctx.passwords.hash(input.password);
  const invite = input.password === undefined ? randomSecret('inv_', 32) : undefined;
  try {
    const user = await ctx.db.transaction(async (tx) => {
      const created = await insertUser(tx, {
        id: ctx.ids.next('usr'),
        platformId: input.platformId,
        companyId: input.companyId,
        workspaceAdmin: false,
        email,
        name,
        roles,
        status: invite ? 'invited' : 'active',
        passwordHash,
        createdAt: now,
      });
      await recordEvent(ctx, tx, {
        platformId: input.platformId,
        companyId: input.companyId,
        type: invite ? 'user.invited' : 'user.created',
        message: `user ${created.id} ${invite ? 'invited' : 'created'} with roles ${roles.join(', ')}`,
        actorUserId: principal.kind === 'session' ? principal.user.id : null,
        metadata: { userId: created.id, roles, by: principal.kind === 'key' ? principal.keyId : 'session' },
      });
      if (invite) {
        await insertInvite(tx, {
          id: ctx.ids.next('inv'),
          userId: created.id,
          digest: sha256Hex(invite),
          createdAt: now,
          expiresAt: new Date(now.getTime() + INVITE_TTL_MS),
        });
      }
      return created;
    });
    if (invite) {
      await ctx.mailer.send({
        to: email,
        subject: `You are invited to ${company.name}`,
        text: `Set your password: POST ${ctx.config.publicBaseUrl}/auth/set-password with {"token": "${invite}", "password": "..."}. The invitation is valid for 7 days.`,
      });
    }
    return { id: user.id, email: user.email, name: user.name, roles: user.roles, invited: invite !== undefined };
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError('email_taken', 'a user with this email exists');
    throw error;
  }
}
