import { check, index, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import {
  CONNECTION_STATUSES,
  type ConnectionStatus,
  EBICS_STATES,
  type EbicsState,
  ENVIRONMENTS,
} from '../../domain/lifecycle/index.ts';
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
    // The connection's own web-services certificate (issued by the bank at activation): the certificate
    // is public, its private key is sealed with AES-256-GCM and never leaves the service.
    clientCertPem: text('client_cert_pem'),
    clientKeySealed: text('client_key_sealed'),
    clientCertSubject: text('client_cert_subject'),
    clientCertExpiry: timestamp('client_cert_expiry', { withTimezone: true }),
    activatedAt: timestamp('activated_at', { withTimezone: true }),
    // Sandbox only: what the simulated bank issued for this connection (transfer key or activation
    // code), sealed, shown in the readiness so a sandbox user can walk the real activation.
    sandboxActivationSealed: text('sandbox_activation_sealed'),
    // When the download worker last listed the bank's files (the profile's schedule counts from it).
    polledAt: timestamp('polled_at', { withTimezone: true }),
    // The last test payment sent through this connection (POST /connections/{id}/test-payment).
    testPaymentDocumentId: text('test_payment_document_id'),
    // The last permanent channel error (host key, authentication, address, folder, configuration)
    // met by a delivery or a pickup: the readiness shows it, not ready, until the channel works again.
    channelError: jsonb('channel_error').$type<{ code: string; message: string; at: string }>(),
    // EBICS 3.0 (docs/adr/0063): the subscriber's onboarding state and why it left `active`, its three
    // key pairs (private keys sealed, as the web-services key), the bank's confirmed certificates and
    // those fetched by HPB awaiting an admin's confirmation (both sealed), and when our certificates end.
    ebicsState: text('ebics_state').$type<EbicsState>(),
    ebicsStateReason: text('ebics_state_reason'),
    ebicsKeysSealed: text('ebics_keys_sealed'),
    ebicsBankKeysSealed: text('ebics_bank_keys_sealed'),
    ebicsPendingBankKeysSealed: text('ebics_pending_bank_keys_sealed'),
    ebicsCertsExpireAt: timestamp('ebics_certs_expire_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    check('connections_ebics_state_ck', oneOf('ebics_state', EBICS_STATES)),
    uniqueIndex('connections_company_bank_env_uq').on(t.companyId, t.bankKey, t.environment),
    index('connections_scope_idx').on(t.platformId, t.companyId),
    check('connections_environment_ck', oneOf('environment', ENVIRONMENTS)),
    check('connections_status_ck', oneOf('status', CONNECTION_STATUSES)),
  ],
);

/**
 * Files a connection's download worker has taken from the bank, by the bank's file reference: a file
 * is ingested once, whatever the bank's NEW/DOWNLOADED flag says and across restarts.
 */
export const connectionFiles = pgTable(
  'connection_files',
  {
    connectionId: text('connection_id')
      .notNull()
      .references(() => connections.id, { onDelete: 'cascade' }),
    fileReference: text('file_reference').notNull(),
    platformId: text('platform_id').notNull(),
    companyId: text('company_id').notNull(),
    fileType: text('file_type').notNull(),
    documentId: text('document_id'),
    ingestedAt: timestamp('ingested_at', { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.connectionId, t.fileReference] })],
);
