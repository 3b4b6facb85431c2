import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import {
  DELIVERY_MODES,
  DELIVERY_STATUSES,
  type DeliveryMode,
  type DeliveryStatus,
  DIRECTIONS,
  type DocumentStatus,
  ENVIRONMENTS,
  INBOUND_STATUSES,
  LINE_STATES,
  type LineState,
  OUTBOUND_STATUSES,
} from '../../domain/lifecycle/index.ts';
import { oneOf } from './checks.ts';
import { companies, platforms } from './identity.ts';

export type Totals = Array<{ currency: string; amount: string }>;

/**
 * The journal: every outbound pain.001 and every inbound bank file (one document per statement
 * block). Payloads and files are sealed with AES-256-GCM; the metadata stays queryable.
 */
export const journalDocuments = pgTable(
  'journal_documents',
  {
    id: text('id').primaryKey(),
    platformId: text('platform_id')
      .notNull()
      .references(() => platforms.id, { onDelete: 'cascade' }),
    companyId: text('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    journalNo: text('journal_no').notNull(),
    direction: text('direction').notNull(),
    type: text('type').notNull(), // pain.001 | camt.053 | camt.052 | camt.054 | pain.002 | mt940 | mt942
    sourceFormat: text('source_format').notNull(),
    bankKey: text('bank_key'),
    environment: text('environment').notNull(),
    // The lifecycle (src/domain/lifecycle/document.ts): outbound and inbound documents have their own statuses.
    status: text('status').$type<DocumentStatus>().notNull(),
    messageId: text('message_id'),
    importSource: text('import_source').notNull(), // api | manual | channel | demo-bank
    transactionCount: integer('transaction_count').notNull().default(0),
    totals: jsonb('totals').$type<Totals>().notNull().default(sql`'[]'::jsonb`),
    paymentType: text('payment_type'),
    idempotencyKey: text('idempotency_key'),
    // SHA-256 of the canonical request, to tell a replay from a conflicting reuse of a key.
    requestDigest: text('request_digest'),
    deliveryMode: text('delivery_mode').$type<DeliveryMode>(),
    deliveryStatus: text('delivery_status').$type<DeliveryStatus>(),
    summary: text('summary').notNull().default(''),
    accountIban: text('account_iban'),
    accountCurrency: text('account_currency'),
    // Inbound: SHA-256 of the whole file; with blockIndex, one row per statement block of a file.
    contentDigest: text('content_digest'),
    blockIndex: integer('block_index'),
    payloadSealed: text('payload_sealed'),
    fileSealed: text('file_sealed'),
    warnings: jsonb('warnings').$type<unknown[]>(),
    details: jsonb('details').$type<Record<string, unknown>>(),
    collected: boolean('collected').notNull().default(false),
    collectedAt: timestamp('collected_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    // What `q` searches, lower-cased (summary, messageId, journalNo, bankKey, status, type and the totals
    // as "EUR 1234.50", joined by U+001F): set by the BEFORE trigger journal_documents_search_text on
    // every insert and on every update of those columns, never by the application (docs/adr/0033).
    searchText: text('search_text'),
  },
  (t) => [
    uniqueIndex('journal_documents_no_uq').on(t.companyId, t.journalNo),
    uniqueIndex('journal_documents_idem_uq')
      .on(t.companyId, t.idempotencyKey)
      .where(sql`direction = 'outbound' AND idempotency_key IS NOT NULL`),
    uniqueIndex('journal_documents_content_uq')
      .on(t.companyId, t.contentDigest, t.blockIndex)
      .where(sql`direction = 'inbound' AND content_digest IS NOT NULL`),
    // Newest first. The columns after id never order anything (id is unique): they let a filtered or
    // searched walk test each entry in the index, without reading the wide heap row (docs/adr/0034).
    index('journal_documents_page_idx').on(
      t.companyId,
      t.createdAt.desc(),
      t.id.desc(),
      t.direction,
      t.type,
      t.status,
      t.collected,
      t.searchText,
    ),
    // One range per (direction, type, status, collected) in page order: a selective filter merges the
    // ranges it names instead of walking the company (docs/adr/0034).
    index('journal_documents_filter_idx').on(
      t.companyId,
      t.direction,
      t.type,
      t.status,
      t.collected,
      t.createdAt.desc(),
      t.id.desc(),
    ),
    // Trigram GIN over the searched text: searches for rare text (docs/adr/0033).
    index('journal_documents_search_idx').using('gin', t.searchText.op('gin_trgm_ops')),
    // Every lookup by message id names its direction: with direction in the key the index serves it on
    // three equal columns, which the planner prefers over the company's filter index even before the
    // company's rows are in the statistics (a young database: docs/adr/0051).
    index('journal_documents_message_idx').on(t.companyId, t.direction, t.messageId),
    index('journal_documents_expiry_idx').on(t.expiresAt),
    check('journal_documents_direction_ck', oneOf('direction', DIRECTIONS)),
    check('journal_documents_environment_ck', oneOf('environment', ENVIRONMENTS)),
    check(
      'journal_documents_status_ck',
      sql`(direction = 'outbound' AND ${oneOf('status', OUTBOUND_STATUSES)}) OR (direction = 'inbound' AND ${oneOf('status', INBOUND_STATUSES)})`,
    ),
    check('journal_documents_delivery_mode_ck', oneOf('delivery_mode', DELIVERY_MODES)),
    check('journal_documents_delivery_status_ck', oneOf('delivery_status', DELIVERY_STATUSES)),
  ],
);

/**
 * How many documents a company has per (direction, type, status, collected), as signed deltas: the
 * statement-level triggers on journal_documents add one row per key and statement, in the writing
 * transaction; a company's rows are folded into one per key now and then (journal-counts.ts). The sum
 * is exact at every snapshot, so `total` never counts the documents (docs/adr/0035).
 */
export const journalDocumentCounts = pgTable(
  'journal_document_counts',
  {
    platformId: text('platform_id').notNull(),
    companyId: text('company_id').notNull(),
    direction: text('direction').notNull(),
    type: text('type').notNull(),
    status: text('status').notNull(),
    collected: boolean('collected').notNull(),
    n: bigint('n', { mode: 'number' }).notNull(),
  },
  (t) => [
    index('journal_document_counts_key_idx').on(t.companyId, t.direction, t.type, t.status, t.collected),
    check('journal_document_counts_direction_ck', oneOf('direction', DIRECTIONS)),
    check(
      'journal_document_counts_status_ck',
      sql`(direction = 'outbound' AND ${oneOf('status', OUTBOUND_STATUSES)}) OR (direction = 'inbound' AND ${oneOf('status', INBOUND_STATUSES)})`,
    ),
  ],
);

/** Per-company journal numbers: OUT-<n> and IN-<n>, from 1, handed out under a row lock. */
export const journalCounters = pgTable(
  'journal_counters',
  {
    companyId: text('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    direction: text('direction').notNull(),
    lastNo: bigint('last_no', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.direction] })],
);

/** One row per transaction of an outbound document: what reconciliation decides, with its evidence. */
export const paymentLines = pgTable(
  'payment_lines',
  {
    documentId: text('document_id')
      .notNull()
      .references(() => journalDocuments.id, { onDelete: 'cascade' }),
    lineIndex: integer('line_index').notNull(),
    platformId: text('platform_id').notNull(),
    companyId: text('company_id').notNull(),
    paymentId: text('payment_id'),
    endToEndId: text('end_to_end_id'),
    instructionId: text('instruction_id'),
    amountMinor: bigint('amount_minor', { mode: 'bigint' }).notNull(),
    amount: text('amount').notNull(),
    currency: text('currency').notNull(),
    payeeName: text('payee_name'),
    payeeIban: text('payee_iban'),
    // The requested execution date (YYYY-MM-DD): reconciliation's booking-date window starts here.
    executionDate: text('execution_date'),
    state: text('state').$type<LineState>().notNull().default('pending'),
    evidence: jsonb('evidence').$type<Record<string, unknown>>(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
    // Until when the line is a reconciliation candidate (answerDeadline); null once settled (booked by
    // a statement, or rejected). Candidates are read through payment_lines_open_idx, never the history.
    openUntil: timestamp('open_until', { withTimezone: true }),
  },
  (t) => [
    primaryKey({ columns: [t.documentId, t.lineIndex] }),
    index('payment_lines_e2e_idx').on(t.companyId, t.endToEndId),
    index('payment_lines_open_idx').on(t.companyId, t.openUntil).where(sql`open_until IS NOT NULL`),
    // Returns name settled lines (docs/adr/0070): by instruction id, or failing any identifier, by the
    // account paid and the amount.
    index('payment_lines_instr_idx').on(t.companyId, t.instructionId).where(sql`instruction_id IS NOT NULL`),
    index('payment_lines_payee_idx').on(t.companyId, t.payeeIban, t.amountMinor).where(sql`payee_iban IS NOT NULL`),
    check('payment_lines_state_ck', oneOf('state', LINE_STATES)),
  ],
);

/**
 * The audit trail: one hash chain per company (chainId = companyId, or the platform id for
 * platform-level events such as API keys). seq counts from 1 per chain.
 */
export const activityEvents = pgTable(
  'activity_events',
  {
    id: text('id').primaryKey(),
    chainId: text('chain_id').notNull(),
    platformId: text('platform_id')
      .notNull()
      .references(() => platforms.id, { onDelete: 'cascade' }),
    companyId: text('company_id'),
    seq: bigint('seq', { mode: 'number' }).notNull(),
    type: text('type').notNull(),
    message: text('message').notNull(),
    actorUserId: text('actor_user_id'),
    metadata: jsonb('metadata').$type<Record<string, unknown>>().notNull(),
    // Channel narrowing for GET /journal/events?connectionId=: the bank and environment an event concerns.
    bankKey: text('bank_key'),
    environment: text('environment'),
    connectionId: text('connection_id'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    prevHash: text('prev_hash').notNull(),
    hash: text('hash').notNull(),
  },
  (t) => [
    uniqueIndex('activity_events_chain_seq_uq').on(t.chainId, t.seq),
    // A document's events (its status timeline on the dashboard, GET /journal/events?documentId=).
    index('activity_events_document_idx').on(t.chainId, sql`(${t.metadata} ->> 'documentId')`),
  ],
);

/** The head of each chain, locked to append: the next event's seq and prevHash. */
export const chainHeads = pgTable('chain_heads', {
  chainId: text('chain_id').primaryKey(),
  lastSeq: bigint('last_seq', { mode: 'number' }).notNull(),
  lastHash: text('last_hash').notNull(),
});

/**
 * The transactional outbox of host-to-host delivery: one row per `queued` document still waiting for
 * its bank-delivery job, written with the document and deleted by the delivery relay in the
 * transaction that creates the job (docs/adr/0010-one-statement-submit.md). A narrow table of its
 * own, so the relay never rewrites the wide, many-indexed document rows.
 */
export const deliveryRequests = pgTable(
  'delivery_requests',
  {
    documentId: text('document_id')
      .primaryKey()
      .references(() => journalDocuments.id, { onDelete: 'cascade' }),
    platformId: text('platform_id').notNull(),
    companyId: text('company_id').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('delivery_requests_created_idx').on(t.createdAt)],
);

/**
 * Deliveries a worker process has claimed (delivery status `in-progress`) and not yet recorded, each
 * with the key of the session-level advisory lock its process holds on a connection of its own
 * (docs/adr/0059). While that session lives the lock is held; when the process dies (or its
 * connection does) PostgreSQL releases it, and any other worker process re-queues the delivery at
 * once instead of waiting out the job's lease.
 */
export const deliveryClaims = pgTable(
  'delivery_claims',
  {
    documentId: text('document_id')
      .primaryKey()
      .references(() => journalDocuments.id, { onDelete: 'cascade' }),
    platformId: text('platform_id').notNull(),
    companyId: text('company_id').notNull(),
    ownerKey: integer('owner_key').notNull(),
    claimedAt: timestamp('claimed_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('delivery_claims_owner_idx').on(t.ownerKey)],
);

/**
 * pain.002 reports a bank's pickup journaled while their outbound document's delivery was under way
 * (delivery `in-progress` or `retrying`: the bank has the file, the service has not recorded it yet),
 * held until that delivery is recorded (docs/adr/0074). The report is in the journal (so its
 * download can be confirmed at the bank); what it says is applied to the outbound document in the
 * transaction that records the delivery, and the row goes.
 */
export const heldStatusReports = pgTable(
  'held_status_reports',
  {
    reportDocumentId: text('report_document_id')
      .primaryKey()
      .references(() => journalDocuments.id, { onDelete: 'cascade' }),
    platformId: text('platform_id').notNull(),
    companyId: text('company_id').notNull(),
    outboundDocumentId: text('outbound_document_id')
      .notNull()
      .references(() => journalDocuments.id, { onDelete: 'cascade' }),
    heldAt: timestamp('held_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('held_status_reports_outbound_idx').on(t.companyId, t.outboundDocumentId)],
);
