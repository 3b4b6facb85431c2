import type { CompanyScope } from '../../db/executor.ts';
import { countApprovableBy, countPendingApprovals } from '../../db/repositories/approval-counts.ts';
import type { AppContext } from '../context.ts';
import type { SessionPrincipal } from '../identity/principal.ts';
import { hasSecondFactor } from './second-factor.ts';
import { rolesIn } from './view.ts';

/**
 * The company's pending approvals, and how many of them the signed-in user may approve now (what
 * `canApprove` of GET /approvals says item by item), each an exact COUNT over the company's pending
 * approvals rather than a tally of a page.
 */
export async function countApprovalsForMe(
  ctx: AppContext,
  session: SessionPrincipal,
  scope: CompanyScope,
): Promise<{ forMe: number; pending: number }> {
  const roles = rolesIn(session, scope.companyId);
  const checker = roles.includes('approver') || roles.includes('admin');
  const [pending, forMe] = await Promise.all([
    countPendingApprovals(ctx.db, scope),
    checker
      ? hasSecondFactor(ctx.db, scope.platformId, session.user.id).then((twoFactorEnrolled) =>
          countApprovableBy(ctx.db, scope, { userId: session.user.id, twoFactorEnrolled }),
        )
      : 0,
  ]);
  return { forMe, pending };
}
