import {
  type ApprovalPolicyRow,
  deletePolicy,
  findCompanyUsers,
  findPolicy,
  findPolicyCompany,
  insertPolicy,
  listPolicies,
  updatePolicy,
} from '../../db/repositories/approvals.ts';
import {
  POLICY_DEFAULTS,
  type PolicyEnvironment,
  type PolicyFields,
  policyIssues,
} from '../../domain/approvals/policy.ts';
import { getProfile } from '../../domain/conversion/index.ts';
import { recordEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import { AppError, notFound } from '../errors.ts';
import { assertPlatform, requireCompanyAdmin, requireSession } from '../identity/access.ts';
import type { Principal, SessionPrincipal } from '../identity/principal.ts';

/**
 * Approval policies (DESIGN.md, Approvals): a company admin's session only. Every change is in the
 * company's audit trail with its actor and the policy as it now is. A change never reaches approvals
 * in flight: they froze their rules at submit.
 */
export type PolicyInput = Partial<Omit<PolicyFields, 'environment'>> & { environment?: string };

export function policyView(row: ApprovalPolicyRow) {
  return {
    id: row.id,
    platformId: row.platformId,
    companyId: row.companyId,
    name: row.name,
    enabled: row.enabled,
    environment: row.environment,
    currency: row.currency,
    minAmount: row.minAmount,
    bankKeys: row.bankKeys,
    requiredApprovals: row.requiredApprovals,
    groups: row.groups,
    requireOneFromEachGroup: row.requireOneFromEachGroup,
    orderedApproval: row.orderedApproval,
    twoFactorRequired: row.twoFactorRequired,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

function fieldsOf(base: PolicyFields | Omit<PolicyFields, 'name'>, input: PolicyInput): PolicyFields {
  const out = { ...base, ...definedOnly(input) } as PolicyFields;
  if (input.currency !== undefined && input.currency !== null) out.currency = input.currency.toUpperCase();
  if (input.name !== undefined) out.name = input.name.trim();
  return out;
}

function definedOnly(input: PolicyInput): Partial<PolicyFields> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) if (v !== undefined) out[k] = v;
  return out as Partial<PolicyFields>;
}

/** 400 with every issue: the policy's own rules, unknown banks, and group members who cannot decide. */
async function checkPolicy(ctx: AppContext, scope: { platformId: string; companyId: string }, p: PolicyFields) {
  const issues = policyIssues(p);
  (p.bankKeys ?? []).forEach((key, i) => {
    if (!getProfile(key))
      issues.push({ path: `bankKeys[${i}]`, code: 'unknown_bank', message: `no bank profile ${key}` });
  });
  const ids = [...new Set(p.groups.flatMap((g) => g.userIds))];
  const found = new Map((await findCompanyUsers(ctx.db, scope, ids)).map((u) => [u.id, u]));
  p.groups.forEach((g, i) => {
    g.userIds.forEach((id, j) => {
      const user = found.get(id);
      const path = `groups[${i}].userIds[${j}]`;
      if (!user || user.status === 'erased')
        issues.push({ path, code: 'unknown_user', message: `${id} is not a user of this company` });
      else if (!user.workspaceAdmin && !user.roles.includes('approver') && !user.roles.includes('admin'))
        issues.push({ path, code: 'not_an_approver', message: `${id} has neither the approver nor the admin role` });
    });
  });
  if (issues.length > 0) throw new AppError('bad_request', 'the approval policy is not valid', { issues });
}

function actor(session: SessionPrincipal) {
  return session.user.id;
}

export async function listCompanyPolicies(
  ctx: AppContext,
  principal: Principal,
  platformId: string,
  companyId: string,
) {
  requireCompanyAdmin(principal, platformId, companyId);
  const rows = await listPolicies(ctx.db, { platformId, companyId });
  return { items: rows.map(policyView) };
}

export async function createPolicy(
  ctx: AppContext,
  principal: Principal,
  input: PolicyInput & { platformId: string; companyId: string; name: string },
) {
  const session = requireCompanyAdmin(principal, input.platformId, input.companyId);
  const scope = { platformId: input.platformId, companyId: input.companyId };
  const { platformId: _p, companyId: _c, ...rest } = input;
  const fields = fieldsOf(POLICY_DEFAULTS, rest);
  await checkPolicy(ctx, scope, fields);
  const now = ctx.clock.now();
  const row = await ctx.db.transaction(async (tx) => {
    const created = await insertPolicy(tx, {
      id: ctx.ids.next('apol'),
      ...scope,
      ...fields,
      environment: fields.environment as PolicyEnvironment,
      createdAt: now,
      updatedAt: now,
    });
    await recordEvent(ctx, tx, {
      ...scope,
      type: 'approval-policy.created',
      actorUserId: actor(session),
      message: `approval policy ${created.name} created`,
      metadata: { policy: policyView(created) },
    });
    return created;
  });
  return policyView(row);
}

/** The scope of a policy named by id: the stated company, or the one the policy belongs to. */
async function policyScope(
  ctx: AppContext,
  principal: Principal,
  id: string,
  stated: { platformId?: string | undefined; companyId?: string | undefined },
) {
  const session = requireSession(principal);
  const platformId = stated.platformId ?? session.platformId;
  assertPlatform(session, platformId);
  const companyId = stated.companyId ?? (await findPolicyCompany(ctx.db, platformId, id))?.companyId;
  if (companyId === undefined) throw notFound('approval policy');
  requireCompanyAdmin(session, platformId, companyId);
  return { session, scope: { platformId, companyId } };
}

/** PUT /approval-policies/{id}: the fields sent replace the policy's; those left out stay. */
export async function changePolicy(
  ctx: AppContext,
  principal: Principal,
  id: string,
  input: PolicyInput & { platformId?: string | undefined; companyId?: string | undefined },
) {
  const { platformId, companyId, ...rest } = input;
  const { session, scope } = await policyScope(ctx, principal, id, { platformId, companyId });
  const row = await ctx.db.transaction(async (tx) => {
    const current = await findPolicy(tx, scope, id, { forUpdate: true });
    if (!current) throw notFound('approval policy');
    const fields = fieldsOf({ ...current, environment: current.environment as PolicyEnvironment }, rest);
    await checkPolicy(ctx, scope, fields);
    const updated = await updatePolicy(tx, scope, id, {
      ...fields,
      environment: fields.environment as PolicyEnvironment,
      updatedAt: ctx.clock.now(),
    });
    if (!updated) throw notFound('approval policy');
    await recordEvent(ctx, tx, {
      ...scope,
      type: 'approval-policy.updated',
      actorUserId: actor(session),
      message: `approval policy ${updated.name} changed`,
      metadata: { before: policyView(current), policy: policyView(updated) },
    });
    return updated;
  });
  return policyView(row);
}

/** DELETE /approval-policies/{id}: approvals in flight keep the rules they froze. */
export async function removePolicy(
  ctx: AppContext,
  principal: Principal,
  id: string,
  stated: { platformId?: string | undefined; companyId?: string | undefined },
) {
  const { session, scope } = await policyScope(ctx, principal, id, stated);
  await ctx.db.transaction(async (tx) => {
    const removed = await deletePolicy(tx, scope, id);
    if (!removed) throw notFound('approval policy');
    await recordEvent(ctx, tx, {
      ...scope,
      type: 'approval-policy.deleted',
      actorUserId: actor(session),
      message: `approval policy ${removed.name} deleted`,
      metadata: { policy: policyView(removed) },
    });
  });
}
