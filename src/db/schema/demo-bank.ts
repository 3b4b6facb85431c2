import { index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The demo bank's own inbox (sandbox): every file its channel received, once per file name. A
 * repeat (a delivery retried after a crash between upload and record) only counts up `receipts`
 * and is answered `alreadyDelivered`, as a real bank's duplicate check would; the reply job is
 * written with the first receipt, in the same transaction, and `answered_at` is set in the
 * transaction that writes the reply, so the bank answers each file once.
 */
export const demoBankFiles = pgTable(
  'demo_bank_files',
  {
    fileName: text('file_name').primaryKey(),
    platformId: text('platform_id').notNull(),
    companyId: text('company_id').notNull(),
    documentId: text('document_id').notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull(),
    replyAt: timestamp('reply_at', { withTimezone: true }).notNull(),
    receipts: integer('receipts').notNull().default(1),
    // When the bank's reply (pain.002, and the statement booking it) was written: once only.
    answeredAt: timestamp('answered_at', { withTimezone: true }),
  },
  (t) => [index('demo_bank_files_document_idx').on(t.companyId, t.documentId)],
);
