import { boolean, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { companies, platforms } from './identity.ts';
import { journalDocuments } from './journal.ts';

export type BalanceSummary = { amount: string; currency: string; direction: string; date: string | null };

/** A company's bank account, created by the first statement that names it. */
export const bankAccounts = pgTable(
  'bank_accounts',
  {
    id: text('id').primaryKey(),
    platformId: text('platform_id')
      .notNull()
      .references(() => platforms.id, { onDelete: 'cascade' }),
    companyId: text('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    // The identity: IBAN when the statement has one, else the proprietary account id; plus currency.
    accountKey: text('account_key').notNull(),
    iban: text('iban'),
    accountOther: text('account_other'),
    country: text('country'),
    currency: text('currency'),
    bankKey: text('bank_key'),
    bankName: text('bank_name'),
    connected: boolean('connected').notNull().default(false),
    lastReceivedData: timestamp('last_received_data', { withTimezone: true }),
    latestBalance: text('latest_balance'),
    latestBalanceCurrency: text('latest_balance_currency'),
    latestBalanceDate: text('latest_balance_date'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    uniqueIndex('bank_accounts_identity_uq').on(t.companyId, t.accountKey),
    index('bank_accounts_scope_idx').on(t.platformId, t.companyId, t.id),
  ],
);

/** One row per ingested statement: the summary GET /accounts/statements lists and checks for gaps. */
export const accountStatements = pgTable(
  'account_statements',
  {
    documentId: text('document_id')
      .primaryKey()
      .references(() => journalDocuments.id, { onDelete: 'cascade' }),
    accountId: text('account_id')
      .notNull()
      .references(() => bankAccounts.id, { onDelete: 'cascade' }),
    companyId: text('company_id').notNull(),
    fromDate: text('from_date'),
    toDate: text('to_date'),
    sequenceNumber: text('sequence_number'),
    opening: jsonb('opening').$type<BalanceSummary>(),
    closing: jsonb('closing').$type<BalanceSummary>(),
    txCount: integer('tx_count').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('account_statements_account_idx').on(t.accountId, t.toDate)],
);
