import type { AppContext } from '../context.ts';
import { forbidden } from '../errors.ts';
import { assertPlatform } from '../identity/access.ts';
import { companyScope } from '../identity/company-scope.ts';
import type { Principal } from '../identity/principal.ts';

/** Who acts: a session of an admin or approver of the company, or an API key of its platform. */
export async function actorScope(ctx: AppContext, principal: Principal, companyId: string) {
  const scope = await companyScope(ctx, principal, companyId);
  if (principal.kind === 'key') return { scope, actorUserId: null, actor: `key ${principal.keyId}` };
  if (principal.kind !== 'session') throw forbidden('a session or an API key');
  assertPlatform(principal, scope.platformId);
  const u = principal.user;
  const member = u.workspaceAdmin || u.companyId === companyId;
  if (!member || !(u.workspaceAdmin || u.roles.includes('admin') || u.roles.includes('approver')))
    throw forbidden('an admin or approver of the company');
  return { scope, actorUserId: u.id, actor: `user ${u.id}` };
}
