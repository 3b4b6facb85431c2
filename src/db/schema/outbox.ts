import { index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { platforms } from './identity.ts';

/**
 * Events for webhooks (payment.sent, payment.executed, payment.rejected ...), written in the same
 * transaction as the change that causes them; the webhook dispatcher fans them out to endpoints.
 * `payload` is the full envelope {id, type, createdAt, apiVersion, platformId, companyId, data}.
 */
export const outboxEvents = pgTable(
  'outbox_events',
  {
    id: text('id').primaryKey(),
    platformId: text('platform_id')
      .notNull()
      .references(() => platforms.id, { onDelete: 'cascade' }),
    companyId: text('company_id'),
    type: text('type').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    dispatchedAt: timestamp('dispatched_at', { withTimezone: true }),
  },
  (t) => [index('outbox_events_pending_idx').on(t.dispatchedAt, t.createdAt)],
);
