import { sql } from 'drizzle-orm';
import { bigint, check, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import {
  WEBHOOK_DELIVERY_STATUSES,
  WEBHOOK_ENDPOINT_STATUSES,
  type WebhookDeliveryStatus,
  type WebhookEndpointStatus,
} from '../../domain/lifecycle/index.ts';
import { oneOf } from './checks.ts';
import { companies, platforms } from './identity.ts';

/** {bankKey?, minAmount? (decimal string, compared exactly)}: only matching events are delivered. */
export type WebhookFilter = { bankKey?: string; minAmount?: string };

/**
 * A company's webhook endpoint. The signing secret is sealed (AES-256-GCM) because signing needs the
 * raw value; during a rotation overlap the previous secret signs too until `previous_secret_until`.
 * `last_sequence` numbers the events fanned out to this endpoint (X-Delivery-Sequence), never reused.
 */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: text('id').primaryKey(),
    platformId: text('platform_id')
      .notNull()
      .references(() => platforms.id, { onDelete: 'cascade' }),
    companyId: text('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    // What the API shows: the destination with its secret parts masked (domain/webhooks/mask-url.ts).
    url: text('url').notNull(),
    // The destination itself, sealed: a Slack incoming-webhook URL (and any URL carrying credentials or
    // a token) is a bearer secret. Null only for rows written before migration 0018 until start-up seals them.
    urlSealed: text('url_sealed'),
    // null: every event type.
    eventTypes: jsonb('event_types').$type<string[]>(),
    transport: text('transport').notNull(),
    emailTo: text('email_to'),
    filterPredicate: jsonb('filter_predicate').$type<WebhookFilter>(),
    status: text('status').$type<WebhookEndpointStatus>().notNull(),
    consecutiveFailures: integer('consecutive_failures').notNull().default(0),
    lastSequence: bigint('last_sequence', { mode: 'number' }).notNull().default(0),
    secretSealed: text('secret_sealed').notNull(),
    previousSecretSealed: text('previous_secret_sealed'),
    previousSecretUntil: timestamp('previous_secret_until', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    index('webhook_endpoints_scope_idx').on(t.platformId, t.companyId, t.id),
    check('webhook_endpoints_status_ck', oneOf('status', WEBHOOK_ENDPOINT_STATUSES)),
  ],
);

/**
 * One delivery of one event to one endpoint (a redelivery is a new row for the same event and
 * sequence). `attempt` counts the attempts made; a pending row is sent when `next_attempt_at` is due.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    platformId: text('platform_id').notNull(),
    companyId: text('company_id').notNull(),
    endpointId: text('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    eventId: text('event_id').notNull(),
    eventType: text('event_type').notNull(),
    sequence: bigint('sequence', { mode: 'number' }).notNull(),
    attempt: integer('attempt').notNull().default(0),
    status: text('status').$type<WebhookDeliveryStatus>().notNull(),
    responseStatus: integer('response_status'),
    error: text('error'),
    durationMs: integer('duration_ms'),
    redeliveryOf: text('redelivery_of'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }),
  },
  (t) => [
    index('webhook_deliveries_due_idx').on(t.nextAttemptAt).where(sql`status = 'pending'`),
    index('webhook_deliveries_endpoint_idx').on(t.endpointId, t.createdAt, t.id),
    check('webhook_deliveries_status_ck', oneOf('status', WEBHOOK_DELIVERY_STATUSES)),
  ],
);
