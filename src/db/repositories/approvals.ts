import { and, asc, eq, gt, inArray, lte, or } from 'drizzle-orm';
import type { ApprovalStatus } from '../../domain/lifecycle/index.ts';
import type { CompanyScope, Executor } from '../executor.ts';
import {
  approvalPolicies,
  approvals,
  deliveryRequests,
  journalDocuments,
  paymentLines,
  users,
} from '../schema/index.ts';
import { inCompany } from '../tenant.ts';

/** Queries of maker-checker: policies, approvals, the queue and the expiry sweep. Every one is tenant-scoped but the sweep's claim. */
export type ApprovalPolicyRow = typeof approvalPolicies.$inferSelect;
export type ApprovalRow = typeof approvals.$inferSelect;

export async function insertPolicy(q: Executor, row: typeof approvalPolicies.$inferInsert): Promise<ApprovalPolicyRow> {
  const [created] = await q.insert(approvalPolicies).values(row).returning();
  return created!;
}

export async function listPolicies(q: Executor, scope: CompanyScope): Promise<ApprovalPolicyRow[]> {
  return q
    .select()
    .from(approvalPolicies)
    .where(inCompany(approvalPolicies, scope))
    .orderBy(asc(approvalPolicies.createdAt), asc(approvalPolicies.id));
}

export async function findPolicy(
  q: Executor,
  scope: CompanyScope,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<ApprovalPolicyRow | undefined> {
  const query = q
    .select()
    .from(approvalPolicies)
    .where(and(inCompany(approvalPolicies, scope), eq(approvalPolicies.id, id)));
  const [row] = options.forUpdate ? await query.for('update') : await query;
  return row;
}

/** A policy's company, to scope a PUT or DELETE that names only its id (null: no such policy). */
export async function findPolicyCompany(
  q: Executor,
  platformId: string,
  id: string,
): Promise<{ companyId: string } | undefined> {
  const [row] = await q
    .select({ companyId: approvalPolicies.companyId })
    .from(approvalPolicies)
    .where(and(eq(approvalPolicies.platformId, platformId), eq(approvalPolicies.id, id)));
  return row;
}

export async function updatePolicy(
  q: Executor,
  scope: CompanyScope,
  id: string,
  values: Partial<typeof approvalPolicies.$inferInsert>,
): Promise<ApprovalPolicyRow | undefined> {
  const [row] = await q
    .update(approvalPolicies)
    .set(values)
    .where(and(inCompany(approvalPolicies, scope), eq(approvalPolicies.id, id)))
    .returning();
  return row;
}

/** Deletes a policy; approvals made under it keep their frozen rules (policy_id becomes null). */
export async function deletePolicy(
  q: Executor,
  scope: CompanyScope,
  id: string,
): Promise<ApprovalPolicyRow | undefined> {
  const [row] = await q
    .delete(approvalPolicies)
    .where(and(inCompany(approvalPolicies, scope), eq(approvalPolicies.id, id)))
    .returning();
  return row;
}

/**
 * Of these user ids, the ones who may act in the company: its users, and the workspace admins of its
 * platform (who act as its admins inside its context).
 */
export async function findCompanyUsers(
  q: Executor,
  scope: CompanyScope,
  ids: readonly string[],
): Promise<Array<{ id: string; name: string; roles: string[]; workspaceAdmin: boolean; status: string }>> {
  if (ids.length === 0) return [];
  return q
    .select({
      id: users.id,
      name: users.name,
      roles: users.roles,
      workspaceAdmin: users.workspaceAdmin,
      status: users.status,
    })
    .from(users)
    .where(
      and(
        eq(users.platformId, scope.platformId),
        or(eq(users.companyId, scope.companyId), eq(users.workspaceAdmin, true)),
        inArray(users.id, [...ids]),
      ),
    );
}

/** An approval with the journal fields its views show. */
export type ApprovalWithDocument = {
  approval: ApprovalRow;
  journalNo: string;
  messageId: string | null;
  documentStatus: string;
  totals: Array<{ currency: string; amount: string }>;
};

const withDocument = {
  approval: approvals,
  journalNo: journalDocuments.journalNo,
  messageId: journalDocuments.messageId,
  documentStatus: journalDocuments.status,
  totals: journalDocuments.totals,
};

export async function findApproval(
  q: Executor,
  scope: CompanyScope,
  id: string,
): Promise<ApprovalWithDocument | undefined> {
  const [row] = await q
    .select(withDocument)
    .from(approvals)
    .innerJoin(journalDocuments, eq(journalDocuments.id, approvals.documentId))
    .where(and(inCompany(approvals, scope), eq(approvals.id, id)));
  return row as ApprovalWithDocument | undefined;
}

/** The approval of a document (one per document), with its journal fields. */
export async function findDocumentApproval(
  q: Executor,
  scope: CompanyScope,
  documentId: string,
): Promise<ApprovalWithDocument | undefined> {
  const [row] = await q
    .select(withDocument)
    .from(approvals)
    .innerJoin(journalDocuments, eq(journalDocuments.id, approvals.documentId))
    .where(and(inCompany(approvals, scope), eq(approvals.documentId, documentId)));
  return row as ApprovalWithDocument | undefined;
}

/** An approval's company, to scope a request that names only its id. */
export async function findApprovalCompany(
  q: Executor,
  platformId: string,
  id: string,
): Promise<{ companyId: string; documentId: string } | undefined> {
  const [row] = await q
    .select({ companyId: approvals.companyId, documentId: approvals.documentId })
    .from(approvals)
    .where(and(eq(approvals.platformId, platformId), eq(approvals.id, id)));
  return row;
}

/** The approval, locked until the caller's transaction ends (take the document's lock first: lockDocument). */
export async function lockApproval(tx: Executor, scope: CompanyScope, id: string): Promise<ApprovalRow | undefined> {
  const [row] = await tx
    .select()
    .from(approvals)
    .where(and(inCompany(approvals, scope), eq(approvals.id, id)))
    .for('update');
  return row;
}

/**
 * Writes a decision or a close: conditional on the status the caller read (under its row lock), as
 * every writer of a state set does (docs/adr/0012).
 */
export async function updateApproval(
  tx: Executor,
  scope: CompanyScope,
  id: string,
  from: ApprovalStatus,
  values: Partial<Pick<ApprovalRow, 'status' | 'decisions' | 'closedReason' | 'decidedAt' | 'updatedAt'>>,
): Promise<ApprovalRow> {
  const [row] = await tx
    .update(approvals)
    .set(values)
    .where(and(inCompany(approvals, scope), eq(approvals.id, id), eq(approvals.status, from)))
    .returning();
  if (!row) throw new Error(`${id} was not in the status it was read in (${from})`);
  return row;
}

/** Closes the document's pending approval when the client cancels the document; answers how many. */
export async function cancelPendingApprovals(
  tx: Executor,
  scope: CompanyScope,
  documentId: string,
  now: Date,
): Promise<number> {
  const rows = await tx
    .update(approvals)
    .set({ status: 'cancelled', closedReason: 'the document was cancelled', decidedAt: now, updatedAt: now })
    .where(and(inCompany(approvals, scope), eq(approvals.documentId, documentId), eq(approvals.status, 'pending')))
    .returning({ id: approvals.id });
  return rows.length;
}

/** A page of the company's approvals in one status, oldest first, after the keyset (createdAt, id). */
export async function listApprovals(
  q: Executor,
  scope: CompanyScope,
  status: ApprovalStatus,
  after: { createdAt: Date; id: string } | undefined,
  limit: number,
): Promise<ApprovalWithDocument[]> {
  const rows = await q
    .select(withDocument)
    .from(approvals)
    .innerJoin(journalDocuments, eq(journalDocuments.id, approvals.documentId))
    .where(
      and(
        inCompany(approvals, scope),
        eq(approvals.status, status),
        after
          ? or(
              gt(approvals.createdAt, after.createdAt),
              and(eq(approvals.createdAt, after.createdAt), gt(approvals.id, after.id)),
            )
          : undefined,
      ),
    )
    .orderBy(asc(approvals.createdAt), asc(approvals.id))
    .limit(limit);
  return rows as ApprovalWithDocument[];
}

/** The payment lines of these documents (the amounts and payees an approval view summarises). */
export async function listLinesOf(
  q: Executor,
  scope: CompanyScope,
  documentIds: readonly string[],
): Promise<Array<{ documentId: string; amountMinor: bigint; currency: string; payeeName: string | null }>> {
  if (documentIds.length === 0) return [];
  return q
    .select({
      documentId: paymentLines.documentId,
      amountMinor: paymentLines.amountMinor,
      currency: paymentLines.currency,
      payeeName: paymentLines.payeeName,
    })
    .from(paymentLines)
    .where(and(inCompany(paymentLines, scope), inArray(paymentLines.documentId, [...documentIds])))
    .orderBy(asc(paymentLines.documentId), asc(paymentLines.lineIndex));
}

/** The delivery request of a document an approval released (the delivery outbox, as a submit writes it). */
export async function insertDeliveryRequest(
  tx: Executor,
  row: { documentId: string; platformId: string; companyId: string; createdAt: Date },
): Promise<void> {
  await tx.insert(deliveryRequests).values(row);
}

/**
 * The expiry sweep's candidates, across tenants (a worker claim): pending approvals whose time has
 * come, oldest first. Not locked here: each is expired in its own transaction that locks the document,
 * then the approval, and reads them again (the lock order of every approval writer).
 */
export async function dueApprovals(
  q: Executor,
  now: Date,
  limit: number,
): Promise<Array<{ id: string; platformId: string; companyId: string; documentId: string }>> {
  return q
    .select({
      id: approvals.id,
      platformId: approvals.platformId,
      companyId: approvals.companyId,
      documentId: approvals.documentId,
    })
    .from(approvals)
    .where(and(eq(approvals.status, 'pending'), lte(approvals.expiresAt, now)))
    .orderBy(asc(approvals.expiresAt))
    .limit(limit);
}

/** Names of users (decisions keep the name at decision time; this is for a rename or an erase). */
export async function userNames(q: Executor, platformId: string, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await q
    .select({ id: users.id, name: users.name })
    .from(users)
    .where(and(eq(users.platformId, platformId), inArray(users.id, [...ids])));
  return new Map(rows.map((r) => [r.id, r.name]));
}
