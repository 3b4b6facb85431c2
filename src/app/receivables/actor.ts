import type { CompanyScope, Tx } from '../../db/executor.ts';
import { recordEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import { forbidden } from '../errors.ts';
import { emitEvents } from '../events/outbox.ts';
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

/**
 * What a person did, told twice in their transaction: the webhook event (`data`) and the audit event
 * naming them (`message`, `metadata`), both of one type.
 */
export async function tellPersonAct(
  ctx: AppContext,
  tx: Tx,
  scope: CompanyScope,
  act: {
    type: 'reconciliation.manual_match' | 'reconciliation.unmatched';
    actorUserId: string | null;
    data: Record<string, unknown>;
    message: string;
    metadata: Record<string, unknown>;
  },
): Promise<void> {
  const { type, actorUserId } = act;
  await emitEvents(ctx, tx, [{ type, platformId: scope.platformId, companyId: scope.companyId, data: act.data }]);
  await recordEvent(ctx, tx, { ...scope, type, actorUserId, message: act.message, metadata: act.metadata });
}
