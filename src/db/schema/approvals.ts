import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import {
  type ApprovalDecision,
  type ApprovalGroup,
  type ApprovalRules,
  DEFAULT_RULES,
} from '../../domain/approvals/rules.ts';
import { APPROVAL_STATUSES, type ApprovalStatus } from '../../domain/lifecycle/index.ts';
import { oneOf } from './checks.ts';
import { companies, platforms } from './identity.ts';
import { journalDocuments } from './journal.ts';

/** Maker-checker policies (DESIGN.md, Approvals): matched at submit; managed by company admins (/approval-policies). */
export const approvalPolicies = pgTable(
  'approval_policies',
  {
    id: text('id').primaryKey(),
    platformId: text('platform_id')
      .notNull()
      .references(() => platforms.id, { onDelete: 'cascade' }),
    companyId: text('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    enabled: boolean('enabled').notNull().default(true),
    environment: text('environment').notNull().default('any'), // production | test | any
    currency: text('currency'),
    minAmount: text('min_amount').notNull().default('0'),
    bankKeys: text('bank_keys').array(),
    requiredApprovals: integer('required_approvals').notNull().default(1),
    groups: jsonb('groups').$type<ApprovalGroup[]>().notNull(),
    requireOneFromEachGroup: boolean('require_one_from_each_group').notNull().default(false),
    orderedApproval: boolean('ordered_approval').notNull().default(false),
    twoFactorRequired: boolean('two_factor_required').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('approval_policies_scope_idx').on(t.platformId, t.companyId)],
);

/**
 * A document waiting for (or decided by) a policy: the policy's rules frozen at submit, the decisions
 * in the order they were made, and when it expires (docs/adr/0017-maker-checker-approvals.md).
 */
export const approvals = pgTable(
  'approvals',
  {
    id: text('id').primaryKey(),
    platformId: text('platform_id').notNull(),
    companyId: text('company_id').notNull(),
    documentId: text('document_id')
      .notNull()
      .references(() => journalDocuments.id, { onDelete: 'cascade' }),
    policyId: text('policy_id').references(() => approvalPolicies.id, { onDelete: 'set null' }),
    status: text('status').$type<ApprovalStatus>().notNull(),
    makerUserId: text('maker_user_id'),
    decisions: jsonb('decisions').$type<ApprovalDecision[]>().notNull(),
    /** The policy's name and rules as they were at submit: editing the policy never changes them. */
    policyName: text('policy_name'),
    rules: jsonb('rules').$type<ApprovalRules>().notNull().default(DEFAULT_RULES),
    /** Why it closed, when a rejection, an expiry or a cancel did. */
    closedReason: text('closed_reason'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
    decidedAt: timestamp('decided_at', { withTimezone: true }),
    /** A pending approval expires then (14 days after submit); the document is cancelled. */
    expiresAt: timestamp('expires_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('approvals_document_uq').on(t.documentId),
    // The queue: a company's approvals of one status, oldest first, keyset paged.
    index('approvals_queue_idx').on(t.companyId, t.status, t.createdAt, t.id),
    // The expiry sweep reads only the pending ones.
    index('approvals_expiry_idx').on(t.expiresAt).where(sql`${t.status} = 'pending'`),
    check('approvals_status_ck', oneOf('status', APPROVAL_STATUSES)),
  ],
);
