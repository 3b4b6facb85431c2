import { sql } from 'drizzle-orm';
import { check, index, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import {
  GRANT_REVOCATION_REASONS,
  GRANT_STATUSES,
  type GrantRevocationReason,
  type GrantStatus,
  TOKEN_PAIR_STATUSES,
  type TokenPairStatus,
} from '../../domain/lifecycle/index.ts';
import { platforms, users } from './identity.ts';

/** `'a', 'b'` from a status list, for a CHECK whose SQL text stays what the migrations wrote. */
const listed = (values: readonly string[]) => sql.raw(values.map((v) => `'${v}'`).join(', '));

/**
 * OAuth 2.0 for installed applications (docs/adr/0022-oauth-installed-applications.md). Codes and
 * tokens are stored only as SHA-256 digests. Statuses come from src/domain/lifecycle/oauth.ts.
 */

/** An installed application registered by a workspace admin; public client (no secret). */
export const oauthClients = pgTable(
  'oauth_clients',
  {
    id: text('id').primaryKey(),
    platformId: text('platform_id')
      .notNull()
      .references(() => platforms.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    redirectUris: text('redirect_uris').array().notNull(),
    createdByUserId: text('created_by_user_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    // Deleted clients stay as rows so their grants and audit events keep pointing somewhere.
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
  },
  (t) => [index('oauth_clients_platform_idx').on(t.platformId, t.id)],
);

/** One consent: the family of every token pair issued from it. */
export const oauthGrants = pgTable(
  'oauth_grants',
  {
    id: text('id').primaryKey(),
    platformId: text('platform_id')
      .notNull()
      .references(() => platforms.id, { onDelete: 'cascade' }),
    clientId: text('client_id')
      .notNull()
      .references(() => oauthClients.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    scopes: text('scopes').array().notNull(),
    status: text('status').$type<GrantStatus>().notNull(),
    revokedReason: text('revoked_reason').$type<GrantRevocationReason>(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (t) => [
    index('oauth_grants_user_idx').on(t.platformId, t.userId, t.id),
    index('oauth_grants_client_idx').on(t.clientId),
    check('oauth_grants_status_ck', sql`${t.status} IN (${listed(GRANT_STATUSES)})`),
    check(
      'oauth_grants_revoked_ck',
      sql`(${t.status} = 'active' AND ${t.revokedAt} IS NULL AND ${t.revokedReason} IS NULL) OR (${t.status} = 'revoked' AND ${t.revokedAt} IS NOT NULL AND ${t.revokedReason} IN (${listed(GRANT_REVOCATION_REASONS)}))`,
    ),
  ],
);

/** An authorization code: single use, 10 minutes; `grantId` is the grant its exchange created. */
export const oauthCodes = pgTable(
  'oauth_codes',
  {
    id: text('id').primaryKey(),
    digest: text('digest').notNull(),
    platformId: text('platform_id')
      .notNull()
      .references(() => platforms.id, { onDelete: 'cascade' }),
    clientId: text('client_id')
      .notNull()
      .references(() => oauthClients.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    scopes: text('scopes').array().notNull(),
    redirectUri: text('redirect_uri').notNull(),
    codeChallenge: text('code_challenge').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    grantId: text('grant_id').references(() => oauthGrants.id, { onDelete: 'set null' }),
  },
  (t) => [uniqueIndex('oauth_codes_digest_uq').on(t.digest)],
);

/** An access token and the refresh token issued with it. */
export const oauthTokens = pgTable(
  'oauth_tokens',
  {
    id: text('id').primaryKey(),
    grantId: text('grant_id')
      .notNull()
      .references(() => oauthGrants.id, { onDelete: 'cascade' }),
    platformId: text('platform_id').notNull(),
    accessDigest: text('access_digest').notNull(),
    refreshDigest: text('refresh_digest').notNull(),
    scopes: text('scopes').array().notNull(),
    status: text('status').$type<TokenPairStatus>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    accessExpiresAt: timestamp('access_expires_at', { withTimezone: true }).notNull(),
    refreshExpiresAt: timestamp('refresh_expires_at', { withTimezone: true }).notNull(),
    // When it was rotated or revoked.
    endedAt: timestamp('ended_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('oauth_tokens_access_uq').on(t.accessDigest),
    uniqueIndex('oauth_tokens_refresh_uq').on(t.refreshDigest),
    index('oauth_tokens_grant_idx').on(t.grantId),
    check('oauth_tokens_status_ck', sql`${t.status} IN (${listed(TOKEN_PAIR_STATUSES)})`),
    check('oauth_tokens_ended_ck', sql`(${t.status} = 'active') = (${t.endedAt} IS NULL)`),
  ],
);
