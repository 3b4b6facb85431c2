import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The demo bank's own store (sandbox, src/simulators/demo-bank): every file its channel received,
 * once per file name, with what the bank read of it (`delivered`). A repeat (a delivery retried
 * after a crash between upload and record) only counts up `receipts` and is answered
 * `alreadyDelivered`, as a real bank's duplicate check would. From `reply_at` the bank's answers to
 * the file (a pain.002, and the camt.053 booking it) wait to be collected through the channel's
 * pickup: handed out under a lease (`claimed_until`), grouped into a statement the first time
 * (`issued_as`, kept so that a file handed out again is the same bytes), until the service
 * acknowledges them (`answered_at`).
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
    // When the service acknowledged the bank's answers (pain.002, and the statement booking it).
    answeredAt: timestamp('answered_at', { withTimezone: true }),
    /** The connection's bank and environment: the channel the answers are collected through. */
    bankKey: text('bank_key'),
    environment: text('environment'),
    /** What the bank read of the pain.001 (DeliveredFile, src/domain/demo-bank); null for a file it could not read. */
    delivered: jsonb('delivered'),
    /** The statement (its id) that books this file, fixed when the answers are first handed out. */
    issuedAs: text('issued_as'),
    /** Handed out to a pickup until then; another pickup takes the file only after. */
    claimedUntil: timestamp('claimed_until', { withTimezone: true }),
  },
  (t) => [
    index('demo_bank_files_document_idx').on(t.companyId, t.documentId),
    index('demo_bank_files_due_idx').on(t.companyId, t.replyAt).where(sql`${t.answeredAt} IS NULL`),
  ],
);
