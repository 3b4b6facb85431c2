import { boolean, check, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { APPROVAL_STATUSES, type ApprovalStatus } from '../../domain/lifecycle/index.ts';
import { oneOf } from './checks.ts';
import { companies, platforms } from './identity.ts';
import { journalDocuments } from './journal.ts';

/** Maker-checker policies (DESIGN.md, Identity): matched at submit; managed by routes of a later issue. */
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
    groups: jsonb('groups').$type<Array<{ name: string; userIds: string[] }>>().notNull(),
    requireOneFromEachGroup: boolean('require_one_from_each_group').notNull().default(false),
    orderedApproval: boolean('ordered_approval').notNull().default(false),
    twoFactorRequired: boolean('two_factor_required').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('approval_policies_scope_idx').on(t.platformId, t.companyId)],
);

/** A document waiting for (or decided by) a policy. Decisions are recorded by a later issue. */
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
    decisions: jsonb('decisions').$type<Array<Record<string, unknown>>>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    index('approvals_document_idx').on(t.documentId),
    index('approvals_scope_idx').on(t.companyId, t.status),
    check('approvals_status_ck', oneOf('status', APPROVAL_STATUSES)),
  ],
);
