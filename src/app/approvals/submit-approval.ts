import type { SubmitPolicy } from '../../db/repositories/journal-submit.ts';
import type { approvals, outboxEvents } from '../../db/schema/index.ts';
import { approvalExpiry } from '../../domain/approvals/rules.ts';
import type { AppContext } from '../context.ts';
import { EVENT_API_VERSION } from '../events/outbox.ts';

export type NewApproval = typeof approvals.$inferInsert & { id: string; expiresAt: Date };

/**
 * The approval a submit journals with its document when a policy matched: pending, with the policy's
 * name and rules frozen as they are now (DESIGN.md, Approvals), the maker, and the expiry 14 days on.
 */
export function newApproval(
  ctx: AppContext,
  input: {
    platformId: string;
    companyId: string;
    documentId: string;
    policy: SubmitPolicy;
    makerUserId: string | null;
    now: Date;
  },
): NewApproval {
  return {
    id: ctx.ids.next('appr'),
    platformId: input.platformId,
    companyId: input.companyId,
    documentId: input.documentId,
    policyId: input.policy.id,
    policyName: input.policy.name,
    rules: input.policy.rules,
    status: 'pending',
    makerUserId: input.makerUserId,
    decisions: [],
    closedReason: null,
    createdAt: input.now,
    updatedAt: input.now,
    decidedAt: null,
    expiresAt: approvalExpiry(input.now),
  };
}

/**
 * The approval.requested webhook event, as an outbox row journaled in the submit's statement (the
 * journal number is filled in there). Its `data` has the document's fields, as payment events do,
 * and the approval's.
 */
export function approvalRequestedEvent(
  ctx: AppContext,
  input: {
    approval: NewApproval;
    journalNo: string;
    messageId: string | null;
    bankKey: string;
    environment: string;
    totals: unknown;
  },
): typeof outboxEvents.$inferInsert {
  const id = ctx.ids.next('evt');
  const createdAt = ctx.clock.now();
  const { approval } = input;
  return {
    id,
    platformId: approval.platformId,
    companyId: approval.companyId,
    type: 'approval.requested',
    payload: {
      id,
      type: 'approval.requested',
      createdAt: createdAt.toISOString(),
      apiVersion: EVENT_API_VERSION,
      platformId: approval.platformId,
      companyId: approval.companyId,
      data: {
        approvalId: approval.id,
        documentId: approval.documentId,
        journalNo: input.journalNo,
        messageId: input.messageId,
        bankKey: input.bankKey,
        environment: input.environment,
        status: 'pending',
        totals: input.totals,
        policyId: approval.policyId,
        policyName: approval.policyName,
        requiredApprovals: approval.rules?.requiredApprovals ?? 1,
        makerUserId: approval.makerUserId ?? null,
        expiresAt: approval.expiresAt.toISOString(),
      },
    },
    createdAt,
  };
}
