import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { oneOf } from './checks.ts';
import { companies, platforms } from './identity.ts';
import { journalDocuments } from './journal.ts';

/**
 * Booked statement entries (debits and returns) that matched no outbound payment line when their
 * statement was reconciled (docs/adr/0047): one row per bank entry (`entry_key`), from the first
 * statement that brought it. A later statement whose copy of the entry matches a line resolves it
 * (`matched_document_id`); the reconciliation page lists the open ones, newest first.
 * Plain columns like payment_lines (docs/adr/0027): they are listed and searched, not secrets.
 */
export const unmatchedEntries = pgTable(
  'unmatched_entries',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    platformId: text('platform_id')
      .notNull()
      .references(() => platforms.id, { onDelete: 'cascade' }),
    companyId: text('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    // The statement the entry came in; retention of that document removes the record with it.
    documentId: text('document_id')
      .notNull()
      .references(() => journalDocuments.id, { onDelete: 'cascade' }),
    // The statement's account (IBAN or other id, and currency: accountKeyOf).
    accountKey: text('account_key').notNull(),
    entryKey: text('entry_key').notNull(),
    direction: text('direction').notNull(),
    reversal: boolean('reversal').notNull(),
    amount: text('amount').notNull(),
    amountMinor: bigint('amount_minor', { mode: 'bigint' }).notNull(),
    currency: text('currency').notNull(),
    bookingDate: date('booking_date', { mode: 'string' }),
    bankRef: text('bank_ref'),
    endToEndId: text('end_to_end_id'),
    instructionId: text('instruction_id'),
    reference: text('reference'),
    counterpartyName: text('counterparty_name'),
    counterpartyIban: text('counterparty_iban'),
    remittance: text('remittance'),
    note: text('note'),
    // The booked entry's position in its statement block (null for entries recorded before 0038).
    entryIndex: integer('entry_index'),
    // A return's reason code (RtrInf, /RTRN/): the evidence of a reversed incoming payment (0038).
    returnReason: text('return_reason'),
    // The entry's structured creditor reference (CdtrRefInf/Ref): rule 1 for a debit expected payment (0040).
    creditorReference: text('creditor_reference'),
    // What debit expected payments took of the entry (docs/adr/0077); the entry leaves the list when all.
    matchedMinor: bigint('matched_minor', { mode: 'bigint' }).notNull().default(sql`0`),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    matchedDocumentId: text('matched_document_id'),
    matchedAt: timestamp('matched_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('unmatched_entries_key_idx').on(t.companyId, t.entryKey),
    // The page: a company's open entries, newest recorded first (statements arrive in booking order,
    // and a statement's entries are recorded in its order), keyset on the id.
    index('unmatched_entries_open_idx').on(t.companyId, t.id.desc()).where(sql`matched_document_id IS NULL`),
    // Resolving: is anything of this account open (skipped when not), then the keys that matched.
    index('unmatched_entries_account_idx').on(t.companyId, t.accountKey).where(sql`matched_document_id IS NULL`),
    index('unmatched_entries_document_idx').on(t.documentId),
    check('unmatched_entries_direction_ck', oneOf('direction', ['debit', 'credit'])),
    check('unmatched_entries_matched_ck', sql`matched_minor >= 0 AND matched_minor <= amount_minor`),
  ],
);

/**
 * A person's match of one unmatched statement debit to outbound lines it paid (docs/adr/0076): one row
 * per match, its lines listed; undone matches are kept (`unmatched_at`, by, reason) for the audit trail.
 * One live match per entry (the partial unique index); a line cannot be matched twice because the match
 * clears it, and a cleared line is no longer pending.
 */
export const lineMatches = pgTable(
  'line_matches',
  {
    id: text('id').primaryKey(),
    platformId: text('platform_id')
      .notNull()
      .references(() => platforms.id, { onDelete: 'cascade' }),
    companyId: text('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    unmatchedEntryId: bigint('unmatched_entry_id', { mode: 'number' })
      .notNull()
      .references(() => unmatchedEntries.id, { onDelete: 'cascade' }),
    // The outbound lines in the order named, each with the answer window it had (restored by an unmatch).
    lines: jsonb('lines').$type<{ documentId: string; index: number; openUntil: string | null }[]>().notNull(),
    amountMinor: bigint('amount_minor', { mode: 'bigint' }).notNull(),
    actorUserId: text('actor_user_id'),
    actor: text('actor').notNull(),
    reason: text('reason').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    unmatchedAt: timestamp('unmatched_at', { withTimezone: true }),
    unmatchedBy: text('unmatched_by'),
    unmatchReason: text('unmatch_reason'),
  },
  (t) => [
    uniqueIndex('line_matches_entry_idx').on(t.companyId, t.unmatchedEntryId).where(sql`unmatched_at IS NULL`),
    check('line_matches_amount_ck', sql`amount_minor > 0`),
  ],
);
