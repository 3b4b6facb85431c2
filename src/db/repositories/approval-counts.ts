import { sql } from 'drizzle-orm';
import type { CompanyScope, Executor } from '../executor.ts';

/**
 * How many of the company's pending approvals this user may approve now: the rules of
 * domain/approvals/rules.ts (approveRefusal) and the 2FA check of app/approvals/view.ts, in SQL over
 * the frozen rules and decisions, read through approvals_queue_idx (company, status). The caller
 * passes only a user who holds the approver or admin role in the company (no row passes otherwise).
 * - not the maker, and no decision of theirs yet;
 * - without groups anyone with the role; with groups a member of one; under ordered approval a member
 *   of a group all of whose earlier groups are covered (orderedGroupFor: the first uncovered group, or
 *   an earlier one, or any once all are covered);
 * - a policy wanting a second factor only when the user has one enrolled.
 */
export async function countApprovableBy(
  q: Executor,
  scope: CompanyScope,
  viewer: { userId: string; twoFactorEnrolled: boolean },
): Promise<number> {
  const me = viewer.userId;
  const { rows } = await q.execute<{ n: number }>(sql`
    SELECT count(*)::int AS n
      FROM approvals a
     WHERE a.platform_id = ${scope.platformId} AND a.company_id = ${scope.companyId} AND a.status = 'pending'
       AND a.maker_user_id IS DISTINCT FROM ${me}
       AND NOT a.decisions @> jsonb_build_array(jsonb_build_object('userId', ${me}::text))
       AND (${viewer.twoFactorEnrolled}::boolean OR NOT coalesce((a.rules ->> 'twoFactorRequired')::boolean, false))
       AND (
         jsonb_array_length(coalesce(a.rules -> 'groups', '[]'::jsonb)) = 0
         OR (NOT coalesce((a.rules ->> 'orderedApproval')::boolean, false)
             AND EXISTS (SELECT 1 FROM jsonb_array_elements(a.rules -> 'groups') g(v) WHERE g.v -> 'userIds' ? ${me}::text))
         OR (coalesce((a.rules ->> 'orderedApproval')::boolean, false)
             AND EXISTS (
               SELECT 1 FROM jsonb_array_elements(a.rules -> 'groups') WITH ORDINALITY g(v, i)
                WHERE g.v -> 'userIds' ? ${me}::text
                  AND NOT EXISTS (
                    SELECT 1 FROM generate_series(0, g.i::int - 2) earlier(k)
                     WHERE NOT EXISTS (
                       SELECT 1 FROM jsonb_array_elements(a.decisions) d(v)
                        WHERE d.v ->> 'decision' = 'approve' AND d.v ->> 'group' = earlier.k::text))))
       )`);
  return rows[0]?.n ?? 0;
}

/** How many approvals of the company are pending (through approvals_queue_idx). */
export async function countPendingApprovals(q: Executor, scope: CompanyScope): Promise<number> {
  const { rows } = await q.execute<{ n: number }>(sql`
    SELECT count(*)::int AS n FROM approvals
     WHERE platform_id = ${scope.platformId} AND company_id = ${scope.companyId} AND status = 'pending'`);
  return rows[0]?.n ?? 0;
}
