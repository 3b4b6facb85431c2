import { tableTransition } from './transition.ts';

/**
 * The other state sets of the service, each a union with its moves and a CHECK constraint in the
 * database (contract: States and transitions; DESIGN.md).
 */

/** Maker-checker approvals: decided once; a rejection, an expiry or a cancel closes them. */
export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected', 'cancelled', 'expired'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];
export const approvalTransition = tableTransition<ApprovalStatus>(
  { pending: ['approved', 'rejected', 'cancelled', 'expired'], approved: [], rejected: [], cancelled: [], expired: [] },
  'approval',
);

/** POST /convert-async jobs: a failed attempt goes back to pending until the last, which is dead. */
export const CONVERSION_JOB_STATUSES = ['pending', 'running', 'succeeded', 'dead'] as const;
export type ConversionJobStatus = (typeof CONVERSION_JOB_STATUSES)[number];
export const conversionJobTransition = tableTransition<ConversionJobStatus>(
  { pending: ['running'], running: ['succeeded', 'pending', 'dead'], succeeded: [], dead: [] },
  'conversion job',
);

/** Webhook endpoints: paused and resumed by their owner; 5 failed events in a row auto-disable. */
export const WEBHOOK_ENDPOINT_STATUSES = ['enabled', 'disabled', 'auto-disabled'] as const;
export type WebhookEndpointStatus = (typeof WEBHOOK_ENDPOINT_STATUSES)[number];
export const webhookEndpointTransition = tableTransition<WebhookEndpointStatus>(
  { enabled: ['disabled', 'auto-disabled'], disabled: ['enabled'], 'auto-disabled': ['enabled', 'disabled'] },
  'webhook endpoint',
);

/** One delivery of one event to one endpoint: attempts until 2xx or the last one (a redelivery is a new row). */
export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];
export const webhookDeliveryTransition = tableTransition<WebhookDeliveryStatus>(
  { pending: ['succeeded', 'failed'], succeeded: [], failed: [] },
  'webhook delivery',
);

/** Users: invited until they set a password; erased keeps the row (audit events name it) and nothing else. */
export const USER_STATUSES = ['active', 'invited', 'erased'] as const;
export type UserStatus = (typeof USER_STATUSES)[number];
export const userTransition = tableTransition<UserStatus>(
  { invited: ['active', 'erased'], active: ['erased'], erased: [] },
  'user',
);

/** Bank connections: host-to-host ones wait for activation; converted-only ones are active at once. */
export const CONNECTION_STATUSES = ['pending-activation', 'active'] as const;
export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number];
export const connectionTransition = tableTransition<ConnectionStatus>(
  { 'pending-activation': ['active'], active: ['pending-activation'] },
  'connection',
);

/**
 * An EBICS subscriber's onboarding at its bank (DESIGN.md, EBICS 3.0): keys sent (INI, HIA) and the
 * letter awaited, the bank's keys fetched (HPB) for an admin to confirm, active; a bank key change
 * or the bank's lock takes it out of service until the admin acts again.
 */
export const EBICS_STATES = [
  'new',
  'awaiting-bank',
  'confirm-bank-keys',
  'active',
  'bank-keys-changed',
  'suspended',
] as const;
export type EbicsState = (typeof EBICS_STATES)[number];
export const ebicsTransition = tableTransition<EbicsState>(
  {
    new: ['awaiting-bank'],
    'awaiting-bank': ['awaiting-bank', 'confirm-bank-keys', 'suspended'],
    'confirm-bank-keys': ['confirm-bank-keys', 'active', 'awaiting-bank', 'suspended'],
    active: ['bank-keys-changed', 'suspended'],
    'bank-keys-changed': ['bank-keys-changed', 'active', 'suspended'],
    suspended: ['awaiting-bank', 'confirm-bank-keys'],
  },
  'EBICS subscriber',
);
