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
import { EXPECTED_PAYMENT_STATUSES, INCOMING_PAYMENT_STATUSES } from '../../domain/lifecycle/receivables.ts';
import { oneOf } from './checks.ts';
import { companies, platforms } from './identity.ts';
import { journalDocuments } from './journal.ts';
import { unmatchedEntries } from './recon.ts';

/**
 * Receivables (DESIGN.md, "Receivables, returns and exceptions"; docs/adr/0069). Amounts are minor
 * units of the row's currency (money.ts); the matched sums are kept on both sides and the database
 * refuses one over its bound, whatever writer tries.
 */
export const expectedPayments = pgTable(
  'expected_payments',
  {
    id: text('id').primaryKey(),
    platformId: text('platform_id')
      .notNull()
      .references(() => platforms.id, { onDelete: 'cascade' }),
    companyId: text('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    direction: text('direction').notNull(),
    // An exact amount is a range of one value.
    amountMinMinor: bigint('amount_min_minor', { mode: 'bigint' }).notNull(),
    amountMaxMinor: bigint('amount_max_minor', { mode: 'bigint' }).notNull(),
    currency: text('currency').notNull(),
    dateFrom: date('date_from', { mode: 'string' }).notNull(),
    dateTo: date('date_to', { mode: 'string' }).notNull(),
    counterpartyName: text('counterparty_name'),
    counterpartyIban: text('counterparty_iban'),
    counterpartyOther: text('counterparty_other'),
    referenceType: text('reference_type'),
    // Normalised (creditor-reference.ts): compared as written by the payer's bank, spaces removed.
    referenceValue: text('reference_value'),
    remittanceContains: text('remittance_contains'),
    metadata: jsonb('metadata').$type<Record<string, string>>().notNull(),
    status: text('status').notNull(),
    matchedMinor: bigint('matched_minor', { mode: 'bigint' }).notNull().default(sql`0`),
    // Settled below its amount by a match within the company's tolerance (matcher.ts, rule 4).
    settled: boolean('settled').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    index('expected_payments_company_idx').on(t.companyId, t.id),
    // Matching: a company's open expected payments of one currency.
    index('expected_payments_open_idx')
      .on(t.companyId, t.currency)
      .where(sql`status IN ('unreconciled', 'partially-reconciled', 'overdue')`),
    index('expected_payments_reference_idx').on(t.companyId, t.referenceValue),
    // The overdue sweep (docs/adr/0075): what is still open, by the end of its window, across companies.
    index('expected_payments_due_idx').on(t.dateTo).where(sql`status IN ('unreconciled', 'partially-reconciled')`),
    check('expected_payments_status_ck', oneOf('status', EXPECTED_PAYMENT_STATUSES)),
    check('expected_payments_direction_ck', oneOf('direction', ['credit', 'debit'])),
    check('expected_payments_reference_type_ck', oneOf('reference_type', ['SCOR', 'FI', 'OCR', 'KID', 'NONE'])),
    check('expected_payments_amounts_ck', sql`0 < amount_min_minor AND amount_min_minor <= amount_max_minor`),
    check('expected_payments_matched_ck', sql`0 <= matched_minor AND matched_minor <= amount_max_minor`),
    check('expected_payments_window_ck', sql`date_from <= date_to`),
  ],
);

/** What reversed an incoming payment (docs/adr/0076): kept on the row, answered as its `returned`. */
export type ReturnEvidence = {
  rule: 'return';
  matchedBy: 'end-to-end-id' | 'amount-counterparty';
  reason: string;
  amount: string;
  bookingDate: string | null;
  entry: { documentId: string; entryIndex: number | null; bankRef: string | null };
  previousStatus: string;
  released: { matchId: string; expectedPaymentId: string; amount: string }[];
  returnedAt: string;
};

/**
 * One per credit entry of a statement, the first statement that brought it keeping it: the same
 * entry in an intraday camt.052 and the day's camt.053 has the same `payment_key` (account, booking
 * date, amount, the bank's reference, else the entry's identifiers and position among equal ones).
 */
export const incomingPayments = pgTable(
  'incoming_payments',
  {
    id: text('id').primaryKey(),
    platformId: text('platform_id')
      .notNull()
      .references(() => platforms.id, { onDelete: 'cascade' }),
    companyId: text('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    documentId: text('document_id')
      .notNull()
      .references(() => journalDocuments.id, { onDelete: 'cascade' }),
    entryIndex: integer('entry_index').notNull(),
    paymentKey: text('payment_key').notNull(),
    accountKey: text('account_key').notNull(),
    amount: text('amount').notNull(),
    amountMinor: bigint('amount_minor', { mode: 'bigint' }).notNull(),
    currency: text('currency').notNull(),
    bookingDate: date('booking_date', { mode: 'string' }),
    valueDate: date('value_date', { mode: 'string' }),
    bankRef: text('bank_ref'),
    endToEndId: text('end_to_end_id'),
    reference: text('reference'),
    counterpartyName: text('counterparty_name'),
    counterpartyIban: text('counterparty_iban'),
    remittance: text('remittance'),
    status: text('status').notNull(),
    matchedMinor: bigint('matched_minor', { mode: 'bigint' }).notNull().default(sql`0`),
    // Why the matcher left it for a person (an ambiguous candidate set), null when nothing fitted.
    reviewNote: text('review_note'),
    // What reversed the credit (docs/adr/0076): the statement entry, its reason, the matches it released.
    returnEvidence: jsonb('return_evidence').$type<ReturnEvidence>(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    uniqueIndex('incoming_payments_key_idx').on(t.companyId, t.accountKey, t.paymentKey),
    index('incoming_payments_company_idx').on(t.companyId, t.id),
    index('incoming_payments_open_idx').on(t.companyId, t.id).where(sql`status IN ('unmatched', 'partially-matched')`),
    index('incoming_payments_document_idx').on(t.documentId),
    check('incoming_payments_status_ck', oneOf('status', INCOMING_PAYMENT_STATUSES)),
    check('incoming_payments_matched_ck', sql`0 <= matched_minor AND matched_minor <= amount_minor`),
  ],
);

/** A match of (part of) one incoming payment to (part of) one expected payment; unmatched ones are kept. */
export const receivableMatches = pgTable(
  'receivable_matches',
  {
    id: text('id').primaryKey(),
    platformId: text('platform_id')
      .notNull()
      .references(() => platforms.id, { onDelete: 'cascade' }),
    companyId: text('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    // The matched side: an incoming payment (a credit), or a statement debit recorded among the
    // unmatched entries (a debit expected payment, docs/adr/0077); exactly one of the two.
    incomingPaymentId: text('incoming_payment_id').references(() => incomingPayments.id, { onDelete: 'cascade' }),
    unmatchedEntryId: bigint('unmatched_entry_id', { mode: 'number' }).references(() => unmatchedEntries.id, {
      onDelete: 'cascade',
    }),
    // The entry as a match names it, `entry {documentId, entryIndex}` (the index null before 0038).
    entryDocumentId: text('entry_document_id'),
    entryIndex: integer('entry_index'),
    expectedPaymentId: text('expected_payment_id')
      .notNull()
      .references(() => expectedPayments.id, { onDelete: 'cascade' }),
    rule: text('rule').notNull(),
    manual: boolean('manual').notNull(),
    // A match within tolerance that settled its expected payment below the amount (undone with it).
    settles: boolean('settles').notNull().default(false),
    amountMinor: bigint('amount_minor', { mode: 'bigint' }).notNull(),
    // Signed minor units: the incoming amount less the expected (open) amount it was matched against.
    amountDeltaMinor: bigint('amount_delta_minor', { mode: 'bigint' }).notNull(),
    daysDelta: integer('days_delta').notNull(),
    actorUserId: text('actor_user_id'),
    reason: text('reason'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    unmatchedAt: timestamp('unmatched_at', { withTimezone: true }),
    unmatchedBy: text('unmatched_by'),
    unmatchReason: text('unmatch_reason'),
  },
  (t) => [
    index('receivable_matches_incoming_idx').on(t.incomingPaymentId),
    index('receivable_matches_expected_idx').on(t.expectedPaymentId),
    index('receivable_matches_entry_idx').on(t.unmatchedEntryId).where(sql`unmatched_entry_id IS NOT NULL`),
    check(
      'receivable_matches_side_ck',
      sql`num_nonnulls(incoming_payment_id, unmatched_entry_id) = 1 AND (unmatched_entry_id IS NULL) = (entry_document_id IS NULL)`,
    ),
    check('receivable_matches_amount_ck', sql`amount_minor > 0`),
    check(
      'receivable_matches_rule_ck',
      oneOf('rule', ['structured-reference', 'end-to-end-id', 'amount-counterparty', 'tolerance-remittance', 'manual']),
    ),
  ],
);

/** PUT /reconciliation/settings: a company's matching tolerance and window (defaults 0, 0, 5). */
export const reconciliationSettings = pgTable('reconciliation_settings', {
  companyId: text('company_id')
    .primaryKey()
    .references(() => companies.id, { onDelete: 'cascade' }),
  platformId: text('platform_id')
    .notNull()
    .references(() => platforms.id, { onDelete: 'cascade' }),
  toleranceAmount: text('tolerance_amount').notNull(),
  tolerancePercent: text('tolerance_percent').notNull(),
  windowDays: integer('window_days').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
});
