import { moveTo, refuse, type Transition, unknownStatus } from './transition.ts';

/**
 * Host-to-host delivery of an outbound document (contract: `delivery.status`; DESIGN.md lifecycle):
 *
 *   not-applicable                 a converted-only document: nothing is delivered, ever
 *   awaiting-approval -> queued    the approval policy is satisfied
 *   awaiting-approval -> cancelled the document is cancelled or its approval rejected or expired
 *   queued            -> cancelled the document is cancelled before a worker claims it
 *   queued | retrying -> in-progress   a worker claims it (with a lease)
 *   in-progress       -> in-progress   another worker takes it over after the lease expired
 *   in-progress       -> delivered     the channel confirmed the upload
 *   in-progress       -> retrying      a retryable failure with attempts left
 *   in-progress       -> failed        a permanent failure, or the last attempt failed
 * delivered, failed and cancelled are final; from in-progress on, the document can no longer be
 * cancelled (the bank may already have the file).
 */
export const DELIVERY_STATUSES = [
  'not-applicable',
  'awaiting-approval',
  'queued',
  'in-progress',
  'retrying',
  'delivered',
  'failed',
  'cancelled',
] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export type DeliveryEvent =
  | { type: 'approved' }
  | { type: 'cancelled' }
  | { type: 'claimed' }
  | { type: 'confirmed' }
  /** An attempt failed: `permanent` when no retry can succeed, `attemptsLeft` counts the retries left. */
  | { type: 'attempt-failed'; permanent: boolean; attemptsLeft: number };

export function deliveryTransition(from: DeliveryStatus, event: DeliveryEvent): Transition<DeliveryStatus> {
  switch (event.type) {
    case 'approved':
      return from === 'awaiting-approval'
        ? moveTo(from, 'queued')
        : refuse(`delivery is ${from}, not awaiting approval`);
    case 'cancelled':
      return from === 'awaiting-approval' || from === 'queued'
        ? moveTo(from, 'cancelled')
        : refuse(`delivery is ${from}: it has started or ended`);
    case 'claimed':
      return from === 'queued' || from === 'retrying' || from === 'in-progress'
        ? moveTo(from, 'in-progress')
        : refuse(`delivery is ${from}: nothing to send`);
    case 'confirmed':
      return from === 'in-progress' ? moveTo(from, 'delivered') : refuse(`delivery is ${from}, not in progress`);
    case 'attempt-failed':
      if (from !== 'in-progress') return refuse(`delivery is ${from}, not in progress`);
      return moveTo(from, event.permanent || event.attemptsLeft <= 0 ? 'failed' : 'retrying');
    default:
      return unknownStatus(event, 'delivery event');
  }
}

/** Whether the bank may already have the file: the delivery got past the point where it can be called off. */
export function deliveryStarted(status: DeliveryStatus): boolean {
  switch (status) {
    case 'not-applicable':
    case 'awaiting-approval':
    case 'queued':
    case 'cancelled':
      return false;
    case 'in-progress':
    case 'retrying':
    case 'delivered':
    case 'failed':
      return true;
    default:
      return unknownStatus(status, 'delivery status');
  }
}
