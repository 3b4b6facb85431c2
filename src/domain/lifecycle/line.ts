import { moveTo, refuse, type Transition, unknownStatus } from './transition.ts';

/**
 * A payment line's reconciliation state (contract: Reconciliation record): what the bank's evidence
 * says of one transaction of an outbound document.
 *
 *   pending  -> cleared   a status report settles it (ACSC, ACCC) or a statement books it
 *   pending  -> rejected  a status report rejects it (RJCT, CANC) or a statement returns it
 *   cleared  -> cleared   a booking confirms a line a status report cleared (evidence from both files)
 *   cleared  -> rejected  a late rejection (pain.002 after booking) or a reversal on a later statement
 *   cleared  -> pending   a person undoes their manual match of the line to a statement entry (0076)
 *   rejected              final: nothing moves it again
 * Pending status codes (RCVD, ACTC ... PDNG) keep a pending line pending with the report as evidence.
 */
export const LINE_STATES = ['pending', 'cleared', 'rejected'] as const;
export type LineState = (typeof LINE_STATES)[number];

/**
 * A line is open, a reconciliation candidate, until its bank's answer window closes after submit, or
 * sooner when it settles: a statement booked it, or it was rejected. A line cleared by a status report
 * only stays open for the booking that confirms it. Returns reach settled lines by their identifiers.
 */
export const ANSWER_WINDOW_DAYS = 45;
const DAY_MS = 86_400_000;

export function answerDeadline(submittedAt: Date, windowDays: number = ANSWER_WINDOW_DAYS): Date {
  return new Date(submittedAt.getTime() + windowDays * DAY_MS);
}

/** Whether a line in this state, with evidence from this kind of file, no longer takes evidence by matching. */
export function lineSettled(state: LineState, evidenceSource: 'status-report' | 'statement'): boolean {
  switch (state) {
    case 'pending':
      return false;
    case 'cleared':
      return evidenceSource === 'statement';
    case 'rejected':
      return true;
    default:
      return unknownStatus(state, 'line state');
  }
}

export type LineEvent =
  /** A status report's verdict for the line (its TxSts, else its group's, else the file's). */
  | { type: 'report'; verdict: LineState }
  /** A statement entry booked the payment (matched one to one). */
  | { type: 'booked' }
  /** A statement entry returned or reversed the payment. */
  | { type: 'reversed' }
  /** A person undid the manual match that cleared the line (docs/adr/0076); only a manual clearing. */
  | { type: 'unmatched'; manual: boolean };

/** `late`: a rejection of a line that was already cleared (its document, once executed, stays so). */
export type LineTransition = Transition<LineState> & { late?: true };

export function lineTransition(from: LineState, event: LineEvent): LineTransition {
  switch (from) {
    case 'rejected':
      return refuse('a rejected line is final');
    case 'pending':
      switch (event.type) {
        case 'report':
          return moveTo(from, event.verdict);
        case 'booked':
          return moveTo(from, 'cleared');
        case 'reversed':
          return moveTo(from, 'rejected');
        case 'unmatched':
          return refuse('a pending line has no match to undo');
        default:
          return unknownStatus(event, 'line event');
      }
    case 'cleared':
      switch (event.type) {
        case 'report':
          return event.verdict === 'rejected'
            ? { ...moveTo(from, 'rejected'), late: true }
            : refuse('no news for a cleared line');
        case 'booked':
          return moveTo(from, 'cleared');
        case 'reversed':
          return { ...moveTo(from, 'rejected'), late: true };
        case 'unmatched':
          return event.manual ? moveTo(from, 'pending') : refuse('only a manual match is undone by a person');
        default:
          return unknownStatus(event, 'line event');
      }
    default:
      return unknownStatus(from, 'line state');
  }
}
