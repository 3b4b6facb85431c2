import { type Static, type TSchema, Type } from 'typebox';
import { Value } from 'typebox/value';
import type { Executor } from '../db/executor.ts';

/**
 * The durable job catalogue (docs/adr/0002-job-queue.md, 0013-pipeline-workers.md): one queue per
 * kind of work, each with the schema of its payload (checked when a job is enqueued and again when
 * it runs) and its retry policy beside it. `leaseSeconds` is how long a worker may hold a claimed
 * job before the queue gives it to another (a killed worker's jobs come back after it); `notify`
 * wakes the worker processes through LISTEN/NOTIFY the moment such a job is committed.
 */
const Scope = { platformId: Type.String({ minLength: 1 }), companyId: Type.String({ minLength: 1 }) };
const Empty = Type.Object({});

export type JobPolicy = {
  retryLimit: number;
  /** Seconds before the first retry; doubled each time when `retryBackoff`. */
  retryDelay: number;
  retryBackoff: boolean;
  leaseSeconds: number;
  notify: boolean;
};

function job<N extends string, S extends TSchema>(name: N, payload: S, policy: JobPolicy) {
  return { name, payload, policy } as const;
}

export const JOBS = {
  sandboxRetention: job('sandbox-retention', Empty, {
    retryLimit: 2,
    retryDelay: 60,
    retryBackoff: true,
    leaseSeconds: 900,
    notify: false,
  }),
  conversion: job(
    'conversion',
    Type.Object({ jobId: Type.String({ minLength: 1 }), platformId: Type.String({ minLength: 1 }) }),
    { retryLimit: 2, retryDelay: 1, retryBackoff: true, leaseSeconds: 300, notify: true },
  ),
  /** Delivers an outbound document to its bank (host-to-host); the delivery relay writes it. */
  bankDelivery: job('bank-delivery', Type.Object({ documentId: Type.String({ minLength: 1 }), ...Scope }), {
    retryLimit: 10,
    retryDelay: 5,
    retryBackoff: true,
    leaseSeconds: 120,
    notify: true,
  }),
  /** The demo bank's pain.002 and camt.053 for a file it received, DEMO_BANK_DELAY_MS after receipt. */
  demoBankReply: job(
    'demo-bank-reply',
    Type.Object({ documentId: Type.String({ minLength: 1 }), ...Scope, replyAt: Type.String({ format: 'date-time' }) }),
    { retryLimit: 5, retryDelay: 2, retryBackoff: true, leaseSeconds: 120, notify: false },
  ),
  /** Polls every connection with a channel of its own for the bank's files and ingests them. */
  bankPickup: job('bank-pickup', Empty, {
    retryLimit: 1,
    retryDelay: 30,
    retryBackoff: false,
    leaseSeconds: 900,
    notify: false,
  }),
  /**
   * The pickup of one connection soon after a delivery to it (EBICS: the bank answers at once, and the
   * minute's sweep would make every payment wait for it). One per connection per few seconds
   * (singletonSeconds): a burst of deliveries makes a pickup every few seconds, not one per file.
   */
  connectionPickup: job(
    'connection-pickup',
    Type.Object({
      ...Scope,
      bankKey: Type.String({ minLength: 1 }),
      environment: Type.String({ minLength: 1 }),
    }),
    { retryLimit: 1, retryDelay: 5, retryBackoff: false, leaseSeconds: 300, notify: false },
  ),
  /** Removes journal documents and activity events past their expiry. */
  journalRetention: job('journal-retention', Empty, {
    retryLimit: 2,
    retryDelay: 60,
    retryBackoff: true,
    leaseSeconds: 900,
    notify: false,
  }),
  /** The delivery relay's minute sweep, behind each worker's own relay loop (a safety net). */
  deliveryRelay: job('delivery-relay', Empty, {
    retryLimit: 0,
    retryDelay: 60,
    retryBackoff: false,
    leaseSeconds: 300,
    notify: false,
  }),
  /** Daily: renews web-services certificates inside their renewal window. */
  certificateRenewal: job('certificate-renewal', Empty, {
    retryLimit: 2,
    retryDelay: 300,
    retryBackoff: true,
    leaseSeconds: 900,
    notify: false,
  }),
  /** Webhooks: a minute sweep (dispatch the outbox, send due deliveries) behind each worker's loop. */
  webhooks: job('webhooks', Empty, {
    retryLimit: 0,
    retryDelay: 60,
    retryBackoff: false,
    leaseSeconds: 300,
    notify: false,
  }),
  /** Every minute: pending approvals past their 14 days expire and their documents are cancelled. */
  approvalExpiry: job('approval-expiry', Empty, {
    // The next minute's run is the retry.
    retryLimit: 0,
    retryDelay: 60,
    retryBackoff: false,
    leaseSeconds: 300,
    notify: false,
  }),
  /**
   * Every five minutes: expected payments whose window passed with an open amount become overdue,
   * each with its expected_payment.overdue (src/app/receivables/overdue.ts).
   */
  expectedOverdue: job('expected-overdue', Empty, {
    // The next run is the retry.
    retryLimit: 0,
    retryDelay: 60,
    retryBackoff: false,
    leaseSeconds: 300,
    notify: false,
  }),
} as const;

type Catalogue = typeof JOBS;
export type JobKind = keyof Catalogue;
export type JobPayload<K extends JobKind> = Static<Catalogue[K]['payload']>;

/** Queue names by kind, for schedules and the workers. */
export const QUEUES = Object.fromEntries(Object.entries(JOBS).map(([kind, j]) => [kind, j.name])) as {
  [K in JobKind]: Catalogue[K]['name'];
};

/** A payload that does not fit its job's schema: a bug in the caller, never retried. */
export class JobPayloadError extends Error {
  readonly kind: JobKind;
  constructor(kind: JobKind, detail: string) {
    super(`${JOBS[kind].name} job payload is invalid: ${detail}`);
    this.name = 'JobPayloadError';
    this.kind = kind;
  }
}

/** Checks a payload against its job's schema (at enqueue and at run); answers it typed or throws. */
export function checkPayload<K extends JobKind>(kind: K, data: unknown): JobPayload<K> {
  const schema = JOBS[kind].payload;
  if (Value.Check(schema, data)) return data as JobPayload<K>;
  const first = Value.Errors(schema, data)[0];
  throw new JobPayloadError(kind, first ? `${first.instancePath || '/'} ${first.message}` : 'does not match');
}

export type SendOptions = {
  /** Enqueue inside this transaction: the job exists only if the transaction commits. */
  tx?: Executor;
  startAfter?: Date;
  /** At most one queued job with this key: a repeated send (a retried delivery) adds nothing. */
  singletonKey?: string;
  /** With `singletonKey`: at most one job with the key per slot of this many seconds (a throttle). */
  singletonSeconds?: number;
  /**
   * With `singletonSeconds`: when the current slot has its job already (perhaps one that ran before
   * what this send announces), the job goes into the next slot instead of being dropped.
   */
  singletonNextSlot?: boolean;
};

export type JobQueue = {
  send<K extends JobKind>(kind: K, data: JobPayload<K>, options?: SendOptions): Promise<string | null>;
  /** Many jobs of one kind in one statement (optionally inside `tx`), with the kind's own policy. */
  sendMany<K extends JobKind>(
    kind: K,
    items: JobPayload<K>[],
    options?: Pick<SendOptions, 'tx' | 'startAfter'>,
  ): Promise<void>;
  /**
   * Calls `wake` in this process when a job of `kind` that this process sent with `startAfter`
   * becomes due (no NOTIFY announces a delayed job): the worker fetches at once instead of polling.
   * Jobs another process sent are found by the worker's backstop poll.
   */
  whenDue?(kind: JobKind, wake: () => void): void;
};
