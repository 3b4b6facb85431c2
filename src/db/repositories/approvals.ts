import { and, asc, eq, sql } from 'drizzle-orm';
import type { CompanyScope, Executor } from '../executor.ts';
import { approvalPolicies, approvals } from '../schema/index.ts';

export type ApprovalPolicyRow = typeof approvalPolicies.$inferSelect;
export type ApprovalRow = typeof approvals.$inferSelect;

/** The company's enabled policies, oldest first (the first match wins). */
export async function listEnabledPolicies(q: Executor, scope: CompanyScope): Promise<ApprovalPolicyRow[]> {
  return q
    .select()
    .from(approvalPolicies)
    .where(
      and(
        eq(approvalPolicies.platformId, scope.platformId),
        eq(approvalPolicies.companyId, scope.companyId),
        eq(approvalPolicies.enabled, true),
      ),
    )
    .orderBy(asc(approvalPolicies.createdAt), asc(approvalPolicies.id));
}

export async function insertPolicy(q: Executor, row: typeof approvalPolicies.$inferInsert): Promise<ApprovalPolicyRow> {
  const [created] = await q.insert(approvalPolicies).values(row).returning();
  return created!;
}

export async function insertApproval(tx: Executor, row: typeof approvals.$inferInsert): Promise<ApprovalRow> {
  const [created] = await tx.insert(approvals).values(row).returning();
  return created!;
}

/** Closes the document's pending approvals when the document is cancelled; answers how many. */
export async function cancelPendingApprovals(
  tx: Executor,
  scope: CompanyScope,
  documentId: string,
  now: Date,
): Promise<number> {
  const rows = await tx
    .update(approvals)
    .set({ status: 'cancelled', updatedAt: now })
    .where(
      and(
        eq(approvals.platformId, scope.platformId),
        eq(approvals.companyId, scope.companyId),
        eq(approvals.documentId, documentId),
        eq(approvals.status, 'pending'),
      ),
    )
    .returning({ id: approvals.id });
  return rows.length;
}

export async function listDocumentApprovals(
  q: Executor,
  scope: CompanyScope,
  documentId: string,
): Promise<ApprovalRow[]> {
  return q
    .select()
    .from(approvals)
    .where(
      and(
        eq(approvals.platformId, scope.platformId),
        eq(approvals.companyId, scope.companyId),
        eq(approvals.documentId, documentId),
      ),
    )
    .orderBy(sql`${approvals.createdAt}`);
}
