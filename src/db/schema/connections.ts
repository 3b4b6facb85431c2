import { check, index, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { CONNECTION_STATUSES, type ConnectionStatus, ENVIRONMENTS } from '../../domain/lifecycle/index.ts';
import { oneOf } from './checks.ts';
import { companies, platforms } from './identity.ts';

/** A company's channel to one bank in one environment (test or production). */
export const connections = pgTable(
  'connections',
  {
    id: text('id').primaryKey(),
    platformId: text('platform_id')
      .notNull()
      .references(() => platforms.id, { onDelete: 'cascade' }),
    companyId: text('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    bankKey: text('bank_key').notNull(),
    environment: text('environment').notNull(),
    status: text('status').$type<ConnectionStatus>().notNull(),
    // Per-company bank settings applied on the delivery path only (POST /journal/payments).
    settings: jsonb('settings').$type<{ chargeBearer?: string; executionDateOffsetDays?: number }>(),
    // The channel's endpoint and credentials (SFTP host, user, key ...), sealed with AES-256-GCM.
    channelSealed: text('channel_sealed'),
    // The bank's pinned signing certificate (web services): its subject and expiry are shown, the
    // certificate itself only verifies inbound signatures and is never returned.
    signingCertSealed: text('signing_cert_sealed'),
    signingCertSubject: text('signing_cert_subject'),
    signingCertExpiry: timestamp('signing_cert_expiry', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    uniqueIndex('connections_company_bank_env_uq').on(t.companyId, t.bankKey, t.environment),
    index('connections_scope_idx').on(t.platformId, t.companyId),
    check('connections_environment_ck', oneOf('environment', ENVIRONMENTS)),
    check('connections_status_ck', oneOf('status', CONNECTION_STATUSES)),
  ],
);
