import type { DeliveryStatus } from './delivery.ts';
import type { LineState } from './line.ts';
import { moveTo, refuse, type Transition, unknownStatus } from './transition.ts';

/**
 * The lifecycle of a journal document (DESIGN.md, "Lifecycle of an outbound document"):
 *
 *   submit                      -> pending-approval (a policy matched) | converted
 *   pending-approval -> converted      the approval policy is satisfied
 *   pending-approval -> cancelled      an approver rejects, the approval expires, or the client cancels
 *   converted        -> cancelled      the client cancels before delivery started
 *   converted        -> sent           host-to-host: the channel confirmed the upload (and only that);
 *                                      converted-only: matched bank evidence shows the bank has the file
 *   converted | sent -> executed       every line settled, at least one cleared
 *   converted | sent -> rejected       every line rejected
 *   executed         -> rejected       a statement returned a line and now every line came back
 *                                      rejected (docs/adr/0070); until then a return is news on its
 *                                      line, and a late pain.002 rejection stays news on its line
 *   executed         -> sent           a person undid their manual match of a line (docs/adr/0079),
 *                                      which is pending again; only that event: no bank evidence
 *                                      ever takes an executed document back
 *   rejected, cancelled                final
 * A host-to-host document that was never delivered takes no bank evidence at all: a booking or a report
 * that seems to name it is about some other payment (a reused end-to-end id), never proof of this one.
 * Inbound documents are `ingested`, or `quarantined` when a statement block could not be read.
 */
export const OUTBOUND_STATUSES = [
  'pending-approval',
  'converted',
  'sent',
  'executed',
  'rejected',
  'cancelled',
] as const;
export type OutboundStatus = (typeof OUTBOUND_STATUSES)[number];
export const INBOUND_STATUSES = ['ingested', 'quarantined'] as const;
export type InboundStatus = (typeof INBOUND_STATUSES)[number];
export type DocumentStatus = OutboundStatus | InboundStatus;

export const DELIVERY_MODES = ['converted-only', 'host-to-host'] as const;
export type DeliveryMode = (typeof DELIVERY_MODES)[number];

export const DIRECTIONS = ['inbound', 'outbound'] as const;

export const ENVIRONMENTS = ['test', 'production'] as const;

/** An outbound document's status, from a row the caller knows is outbound. */
export function outboundStatusOf(status: DocumentStatus): OutboundStatus {
  switch (status) {
    case 'ingested':
    case 'quarantined':
      throw new Error(`an inbound status ${status} where an outbound document was expected`);
    default:
      return status;
  }
}

/** Terminal for re-submission (contract, States and transitions): the messageId is used up. */
export function endedForResubmit(status: OutboundStatus): boolean {
  switch (status) {
    case 'rejected':
    case 'cancelled':
      return true;
    case 'pending-approval':
    case 'converted':
    case 'sent':
    case 'executed':
      return false;
    default:
      return unknownStatus(status, 'document status');
  }
}

/** What a submit journals: pending-approval when a policy matched, else converted, with its delivery state. */
export function submittedAs(
  deliveryMode: DeliveryMode,
  needsApproval: boolean,
): { status: OutboundStatus; deliveryStatus: DeliveryStatus } {
  const status = needsApproval ? 'pending-approval' : 'converted';
  switch (deliveryMode) {
    case 'converted-only':
      return { status, deliveryStatus: 'not-applicable' };
    case 'host-to-host':
      return { status, deliveryStatus: needsApproval ? 'awaiting-approval' : 'queued' };
    default:
      return unknownStatus(deliveryMode, 'delivery mode');
  }
}

export type DocumentEvent =
  | { type: 'approved' }
  /** The approval was rejected or expired: the document will never go out. */
  | { type: 'approval-closed' }
  /** The client's cancel (the caller checks that delivery has not started: deliveryStarted). */
  | { type: 'cancel' }
  /** The channel confirmed the upload of a host-to-host document. */
  | { type: 'delivery-confirmed' }
  /**
   * Bank evidence matched the document one to one; `lines` are its line states after applying it;
   * `returned`: the evidence returned one of its lines (a statement's return or reversal). A person's
   * manual match of a statement debit to lines (docs/adr/0079) is this event too: the booking is the
   * bank's, the person only says which lines it paid, so the document moves as for the bank's match.
   */
  | { type: 'evidence'; lines: readonly LineState[]; returned?: boolean }
  /**
   * A person undid their manual match (docs/adr/0079); `lines` are the line states after the undo
   * (the lines it had cleared are pending again). The one event that takes `executed` back to `sent`.
   */
  | { type: 'manual-unmatched'; lines: readonly LineState[] };

export type OutboundDocument = { status: OutboundStatus; deliveryMode: DeliveryMode };

export function documentTransition(doc: OutboundDocument, event: DocumentEvent): Transition<OutboundStatus> {
  const from = doc.status;
  switch (event.type) {
    case 'approved':
      return from === 'pending-approval' ? moveTo(from, 'converted') : refuse(`the document is ${from}`);
    case 'approval-closed':
      return from === 'pending-approval' ? moveTo(from, 'cancelled') : refuse(`the document is ${from}`);
    case 'cancel':
      return from === 'pending-approval' || from === 'converted'
        ? moveTo(from, 'cancelled')
        : refuse(`the document cannot be cancelled in status ${from}`);
    case 'delivery-confirmed':
      if (doc.deliveryMode !== 'host-to-host') return refuse('a converted-only document is never delivered');
      return from === 'converted' ? moveTo(from, 'sent') : refuse(`the document is ${from}`);
    case 'evidence': {
      const why = evidenceRefusal(doc);
      if (why !== undefined) return refuse(why);
      if (from === 'executed') return moveTo(from, event.returned && allRejected(event.lines) ? 'rejected' : from);
      return moveTo(from, statusFromLines(event.lines, from === 'converted' ? 'sent' : from));
    }
    case 'manual-unmatched': {
      const why = evidenceRefusal(doc);
      if (why !== undefined) return refuse(why);
      // Executed needs every line settled: a line pending again makes the run `sent` (also a converted-
      // only run: the entry the person had named was a booking on the bank's statement). Elsewhere no
      // move: what the bank's own evidence set stays.
      if (from === 'executed') return moveTo(from, event.lines.includes('pending') ? 'sent' : from);
      return moveTo(from, from);
    }
    default:
      return unknownStatus(event, 'document event');
  }
}

/**
 * Whether bank evidence (a status report, a statement booking) may apply to the document; undefined
 * when it may, else why not. The store's candidate queries filter by the same rule (takesEvidenceSql in
 * src/db/repositories/recon-lines.ts; a test holds the two together).
 */
export function evidenceRefusal(doc: OutboundDocument): string | undefined {
  switch (doc.status) {
    case 'pending-approval':
      return 'the document awaits approval';
    case 'rejected':
    case 'cancelled':
      return `the document is ${doc.status}`;
    case 'converted':
      return doc.deliveryMode === 'host-to-host' ? 'the document was never delivered to the bank' : undefined;
    case 'sent':
    case 'executed':
      return undefined;
    default:
      return unknownStatus(doc.status, 'document status');
  }
}

const allRejected = (lines: readonly LineState[]) => lines.length > 0 && lines.every((s) => s === 'rejected');

/** Every line rejected: rejected; none pending and one cleared: executed; otherwise `otherwise`. */
function statusFromLines(lines: readonly LineState[], otherwise: OutboundStatus): OutboundStatus {
  if (allRejected(lines)) return 'rejected';
  if (!lines.includes('pending') && lines.includes('cleared')) return 'executed';
  return otherwise;
}

/** The webhook event a document sends when it reaches a status, if any (DESIGN.md, Events). */
export function paymentEventOf(
  status: OutboundStatus,
): 'payment.sent' | 'payment.executed' | 'payment.rejected' | null {
  switch (status) {
    case 'sent':
      return 'payment.sent';
    case 'executed':
      return 'payment.executed';
    case 'rejected':
      return 'payment.rejected';
    case 'pending-approval':
    case 'converted':
    case 'cancelled':
      return null;
    default:
      return unknownStatus(status, 'document status');
  }
}
