import { sql } from 'drizzle-orm';
import { bigint, check, index, integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { platforms, users } from './identity.ts';

/**
 * A user's TOTP enrolment (DESIGN.md, Identity). The secret is sealed (src/db/sealed-columns.ts);
 * `enabledAt` is null while the enrolment is pending (set up, not yet confirmed with a code).
 * `lastTimeStep` is the RFC 6238 time step of the last accepted code: a code of that step or an
 * earlier one is refused, so an accepted code cannot be replayed.
 */
export const userTwoFactor = pgTable('user_two_factor', {
  userId: text('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  platformId: text('platform_id')
    .notNull()
    .references(() => platforms.id, { onDelete: 'cascade' }),
  secretSealed: text('secret_sealed').notNull(),
  enabledAt: timestamp('enabled_at', { withTimezone: true }),
  lastTimeStep: bigint('last_time_step', { mode: 'number' }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
});

/** Single-use recovery codes, stored as SHA-256 digests; a used code keeps its row with `usedAt`. */
export const recoveryCodes = pgTable(
  'recovery_codes',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    platformId: text('platform_id')
      .notNull()
      .references(() => platforms.id, { onDelete: 'cascade' }),
    digest: text('digest').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('recovery_codes_user_digest_uq').on(t.userId, t.digest)],
);

/**
 * The second step of a login for a user with 2FA: the password was right, a TOTP or recovery code
 * is still owed. Single use (`usedAt`), 5 minutes, void after 5 wrong codes.
 */
export const loginChallenges = pgTable(
  'login_challenges',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    platformId: text('platform_id')
      .notNull()
      .references(() => platforms.id, { onDelete: 'cascade' }),
    digest: text('digest').notNull(),
    failedAttempts: integer('failed_attempts').notNull().default(0),
    ip: text('ip'),
    userAgent: text('user_agent'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('login_challenges_digest_uq').on(t.digest),
    index('login_challenges_user_idx').on(t.userId),
    check('login_challenges_failed_attempts_ck', sql`failed_attempts >= 0`),
  ],
);
