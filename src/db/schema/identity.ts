import { sql } from 'drizzle-orm';
import { boolean, check, index, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { USER_STATUSES, type UserStatus } from '../../domain/lifecycle/index.ts';
import { oneOf } from './checks.ts';

/** Tenancy: a platform contains companies; everything below cascades away with its platform. */
export const platforms = pgTable('platforms', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  sandbox: boolean('sandbox').notNull().default(false),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  // Any authenticated use of the platform; sandbox retention removes sandboxes idle for 30 days.
  lastActivityAt: timestamp('last_activity_at', { withTimezone: true }).notNull(),
});

export const companies = pgTable(
  'companies',
  {
    id: text('id').primaryKey(),
    platformId: text('platform_id')
      .notNull()
      .references(() => platforms.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    // Made by /sandbox/provision: production connections are refused (403 sandbox_only).
    sandboxOnly: boolean('sandbox_only').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('companies_platform_idx').on(t.platformId, t.id)],
);

/**
 * Users. A workspace admin belongs to the platform (companyId null); a company user belongs to one
 * company with roles. Email is unique across the service because login takes only email and password.
 */
export const users = pgTable(
  'users',
  {
    id: text('id').primaryKey(),
    platformId: text('platform_id')
      .notNull()
      .references(() => platforms.id, { onDelete: 'cascade' }),
    companyId: text('company_id').references(() => companies.id, { onDelete: 'cascade' }),
    workspaceAdmin: boolean('workspace_admin').notNull().default(false),
    email: text('email').notNull(),
    name: text('name').notNull(),
    roles: text('roles').array().notNull().default(sql`'{}'::text[]`),
    status: text('status').$type<UserStatus>().notNull(),
    passwordHash: text('password_hash'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    uniqueIndex('users_email_uq').on(t.email),
    index('users_company_idx').on(t.platformId, t.companyId),
    check('users_status_ck', oneOf('status', USER_STATUSES)),
  ],
);

export const apiKeys = pgTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    platformId: text('platform_id')
      .notNull()
      .references(() => platforms.id, { onDelete: 'cascade' }),
    label: text('label').notNull(),
    digest: text('digest').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('api_keys_digest_uq').on(t.digest), index('api_keys_platform_idx').on(t.platformId, t.id)],
);

export const sessions = pgTable(
  'sessions',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    platformId: text('platform_id')
      .notNull()
      .references(() => platforms.id, { onDelete: 'cascade' }),
    digest: text('digest').notNull(),
    companyContextId: text('company_context_id').references(() => companies.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    // For GET /me/sessions: where the session was opened and when it was last used (moved at most once a minute).
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }),
    ip: text('ip'),
    userAgent: text('user_agent'),
  },
  (t) => [uniqueIndex('sessions_digest_uq').on(t.digest), index('sessions_user_idx').on(t.userId)],
);

/** One-time invite tokens for users created without a password. */
export const invites = pgTable(
  'invites',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    digest: text('digest').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('invites_digest_uq').on(t.digest)],
);
