import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Fixed-window request counters shared by every API process (DESIGN.md: rate limits hold across
 * processes). One row per limited key; a hit in an expired window starts a new one.
 */
export const rateLimitCounters = pgTable(
  'rate_limit_counters',
  {
    key: text('key').primaryKey(),
    hits: integer('hits').notNull(),
    windowStart: timestamp('window_start', { withTimezone: true }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    index('rate_limit_counters_expires_idx').on(t.expiresAt),
    check('rate_limit_counters_hits_ck', sql`hits >= 0`),
  ],
);
