import type { Executor } from '../db/executor.ts';

/** The durable job catalogue: one queue per kind of work (docs/adr/0002-job-queue.md). */
export const QUEUES = {
  sandboxRetention: 'sandbox-retention',
  conversion: 'conversion',
  /** Delivers an outbound document to its bank (host-to-host); written in the submit transaction. */
  bankDelivery: 'bank-delivery',
  /** The demo bank's pain.002 and camt.053 for a delivered file, DEMO_BANK_DELAY_MS after delivery. */
  demoBankReply: 'demo-bank-reply',
  /** Polls every connection with a channel of its own for the bank's files and ingests them. */
  bankPickup: 'bank-pickup',
  /** Removes journal documents and activity events past their expiry. */
  journalRetention: 'journal-retention',
  /** The delivery relay's minute sweep, behind each worker's 100 ms polling loop (a safety net). */
  deliveryRelay: 'delivery-relay',
  /** Daily: renews web-services certificates inside their renewal window. */
  certificateRenewal: 'certificate-renewal',
  /** Webhooks: a minute sweep (dispatch the outbox, send due deliveries) behind each worker's polling loop. */
  webhooks: 'webhooks',
  /** Every minute: pending approvals past their 14 days expire and their documents are cancelled. */
  approvalExpiry: 'approval-expiry',
} as const;
export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

export type SendOptions = {
  /** Enqueue inside this transaction: the job exists only if the transaction commits. */
  tx?: Executor;
  startAfter?: Date;
  /** At most one queued job with this key: a repeated send (a retried delivery) adds nothing. */
  singletonKey?: string;
};

export type JobQueue = {
  send(queue: QueueName, data: object, options?: SendOptions): Promise<string | null>;
  /** Many jobs of one queue in one statement (optionally inside `tx`), with the queue's own policy. */
  sendMany(queue: QueueName, items: object[], options?: Pick<SendOptions, 'tx'>): Promise<void>;
};
