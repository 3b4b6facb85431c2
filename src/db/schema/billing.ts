import { boolean, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { companies } from './identity.ts';

/** Billing state per company: the production submit gates read it (contract: Errors, Limits). */
export const companyBilling = pgTable('company_billing', {
  companyId: text('company_id')
    .primaryKey()
    .references(() => companies.id, { onDelete: 'cascade' }),
  activePackage: boolean('active_package').notNull().default(false),
  packageName: text('package_name'),
  // The package activated by the operator (`billing activate`), one of GET /billing/packages.
  packageId: text('package_id'),
  // Lifetime production payments journaled; counted in the submit transaction.
  productionPaymentsSent: integer('production_payments_sent').notNull().default(0),
  // Oldest unpaid invoice's due date; 30 or more days ago gives 402 billing_past_due.
  pastDueSince: timestamp('past_due_since', { withTimezone: true }),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
});
