import { and, eq } from 'drizzle-orm';
import type { CompanyScope, Executor } from '../executor.ts';
import { approvalPolicies, approvals } from '../schema/index.ts';
import { inCompany } from '../tenant.ts';

export type ApprovalPolicyRow = typeof approvalPolicies.$inferSelect;

export async function insertPolicy(q: Executor, row: typeof approvalPolicies.$inferInsert): Promise<ApprovalPolicyRow> {
  const [created] = await q.insert(approvalPolicies).values(row).returning();
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
    .where(and(inCompany(approvals, scope), eq(approvals.documentId, documentId), eq(approvals.status, 'pending')))
    .returning({ id: approvals.id });
  return rows.length;
}
