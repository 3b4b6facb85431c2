import type { CompanyScope, Tx } from '../../db/executor.ts';
import {
  type LineWrite,
  lockDocuments,
  outboundOf,
  updateDocumentStatuses,
  updateLinesOfDocuments,
} from '../../db/repositories/journal-documents.ts';
import { lineStatesOf, listReconCandidates, type ReconCandidate } from '../../db/repositories/recon-lines.ts';
import {
  type DocumentStatus,
  documentTransition,
  type LineEvent,
  type LineState,
  lineSettled,
  lineTransition,
} from '../../domain/lifecycle/index.ts';
import type { ReturnLookups, StatementMatchOutcome } from '../../domain/recon/statement-match.ts';
import type { ReconLine } from '../../domain/recon/types.ts';
import type { AuditEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import { emitPaymentEvents, emitReturnEvents, type PaymentEvent, type ReturnEvent } from '../events/outbox.ts';

/** Statement evidence names a statement format as its source (camt.05x, mt940 ...). */
function bookedByStatement(c: ReconCandidate): boolean {
  const source = c.evidence?.['source'];
  return typeof source === 'string' && source !== 'pain.002';
}

function linesOf(candidates: ReconCandidate[]): ReconLine[] {
  return candidates.map((c) => ({
    endToEndId: c.endToEndId,
    instructionId: c.instructionId,
    messageId: c.messageId,
    paymentInfoId: c.paymentId,
    amountMinor: c.amountMinor,
    currency: c.currency,
    creditorIban: c.payeeIban,
    executionDate: c.executionDate,
    // Cleared by a statement already: settled. Cleared by a status report only: a booking may still
    // confirm it, so the line ends with evidence from both files.
    settled: c.state === 'cleared' && bookedByStatement(c),
    // Returned already (read for a return without identifiers): known by that return's bank reference.
    ...(c.state === 'rejected' ? { returned: { bankRef: textOf(c.evidence?.['bankRef']) } } : {}),
  }));
}

const textOf = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** What one statement entry says of one line: a booking, a return, or an ambiguity note. */
type LineNews = {
  index: number;
  endToEndId: string | null;
  amount: string;
  currency: string;
  event: LineEvent | null;
  evidence: (previous: Record<string, unknown> | null) => Record<string, unknown>;
};

export type StatementRecon = { cleared: number; reversed: number; ambiguous: number };

/**
 * A statement's booked entries, wherever they are held: matched against candidate lines on request.
 * A large file's entries stay in the ingest's file worker (app/bank-files/file-worker.ts), so only the
 * lines go there and only the matches come back.
 */
export type StatementEntries = {
  /** Whether any entry is booked (nothing to match otherwise). */
  hasEntries: boolean;
  /** What the returns and reversals name: lines a booking already cleared may be named by them. */
  returned: ReturnLookups;
  /**
   * The end-to-end ids the entries carry (NamedEndToEndIds): the open lines they name are the first
   * candidates; null when there are none or too many to look up one by one.
   */
  named: string[] | null;
  match(lines: ReconLine[], context: { source: string; documentId: string }): Promise<StatementMatchOutcome>;
};

/**
 * Reconciles one journaled statement against the company's open payment lines, in the ingest
 * transaction: booked debits clear their lines, returns and reversals reject them, and a rule with more
 * than one candidate matches nothing: those lines stay pending with the reason as a note, and their
 * documents are neither moved nor announced (no audit or payment event). Documents whose lines moved
 * get their status from the state machine (documentTransition, event `evidence`) and a payment event;
 * each returned line also gets `payment.returned`, and its document an audit event of its returns
 * (docs/adr/0070).
 *
 * Lock order (docs/adr/0012): the documents concerned, in id order, then their lines; the audit events
 * are pushed onto `audit`, which the caller records last. Line states are read again under the locks:
 * what was read to match may have moved meanwhile.
 */
export async function reconcileStatement(
  ctx: AppContext,
  tx: Tx,
  scope: CompanyScope,
  input: { documentId: string; entries: StatementEntries; source: string; environment: string },
  audit: AuditEvent[],
): Promise<StatementRecon> {
  const none = { cleared: 0, reversed: 0, ambiguous: 0 };
  if (!input.entries.hasEntries) return none;
  const now = ctx.clock.now();
  const matched = await matchCandidates(tx, scope, input, now);
  if (matched === undefined) return none;
  const { candidates, result } = matched;
  const news = newsOf(candidates, result, input);
  if (news.size === 0) return { ...none, ambiguous: result.ambiguous.length };

  const counts = { cleared: 0, reversed: 0, ambiguous: result.ambiguous.length };
  const documents = await lockDocuments(tx, scope, [...news.keys()]);
  const states = await lineStatesOf(tx, scope, [...news.keys()]);
  const evidenceOf = new Map(candidates.map((c) => [`${c.documentId}\u0000${c.lineIndex}`, c.evidence]));
  // The writes of every document in one statement each (docs/adr/0051): lines, statuses, events.
  const writes: DocumentWrites = { lines: [], statusMoves: [], paymentEvents: [], returnEvents: [] };
  for (const doc of documents) {
    const current = states.get(doc.id) ?? new Map<number, LineState>();
    const previous = (index: number) => evidenceOf.get(`${doc.id}\u0000${index}`) ?? null;
    const { changes, moved } = lineChangesOf(news.get(doc.id) ?? [], current, previous, counts);
    if (changes.length === 0) continue;
    writes.lines.push(...changes.map((c) => ({ documentId: doc.id, ...c })));
    if (moved.length === 0) continue;
    const returned = returnsOf(input, doc, changes, moved);
    if (returned.length > 0) {
      writes.returnEvents.push(...returned);
      audit.push(returnedAudit(scope, input, doc, returned));
    }
    audit.push(documentMoved(scope, input, doc, [...current.values()], { changes, moved }, writes));
  }
  await updateLinesOfDocuments(tx, scope, writes.lines, now);
  await updateDocumentStatuses(tx, scope, writes.statusMoves, now);
  await emitReturnEvents(ctx, tx, writes.returnEvents);
  await emitPaymentEvents(ctx, tx, writes.paymentEvents);
  return counts;
}

/** The document's lines this statement returned, as `payment.returned` events (docs/adr/0070). */
function returnsOf(
  input: StatementInput,
  doc: ReturnEvent['doc'],
  changes: LineWrite[],
  moved: LineNews[],
): ReturnEvent[] {
  const evidenceAt = new Map(changes.map((c) => [c.index, c.evidence]));
  return moved
    .filter((m) => m.event?.type === 'reversed')
    .map((m) => {
      const evidence = evidenceAt.get(m.index) ?? {};
      return {
        doc,
        line: { index: m.index, endToEndId: m.endToEndId, amount: m.amount, currency: m.currency },
        reason: textOf(evidence['reason']),
        matchedBy: textOf(evidence['matchedBy']),
        evidenceDocumentId: input.documentId,
      };
    });
}

/** The audit trail's record of a document's returned lines (one event per document and statement). */
function returnedAudit(
  scope: CompanyScope,
  input: StatementInput,
  doc: ReturnEvent['doc'],
  returned: ReturnEvent[],
): AuditEvent {
  const reasons = [...new Set(returned.map((r) => r.reason ?? 'no reason given'))].join(', ');
  return {
    platformId: scope.platformId,
    companyId: scope.companyId,
    type: 'payment.returned',
    message: `${doc.journalNo} ${returned.length} line(s) returned (${reasons}) by ${input.source} ${input.documentId}`,
    metadata: {
      documentId: doc.id,
      journalNo: doc.journalNo,
      evidenceDocumentId: input.documentId,
      lines: returned.slice(0, 100).map((r) => ({
        index: r.line.index,
        endToEndId: r.line.endToEndId,
        amount: r.line.amount,
        currency: r.line.currency,
        reason: r.reason,
        matchedBy: r.matchedBy,
      })),
      lineCount: returned.length,
    },
    bankKey: doc.bankKey,
    environment: doc.environment,
  };
}

type DocumentWrites = {
  lines: Array<LineWrite & { documentId: string }>;
  statusMoves: Array<{ id: string; from: DocumentStatus; to: DocumentStatus }>;
  paymentEvents: PaymentEvent[];
  returnEvents: ReturnEvent[];
};
type StatementInput = { documentId: string; entries: StatementEntries; source: string; environment: string };

/**
 * First the open lines the entries name by end-to-end id (payment_lines_e2e_idx); every open line
 * of the answer window (payment_lines_open_idx) only when an entry is left that a later rule
 * (instruction id, reference and amount, batch total) may match. The end-to-end rule sees the same
 * lines either way, so the outcome is the same; the cost follows the statement's entries, not the
 * payments in flight (docs/adr/0013). The entries stay in the file worker; only lines go there.
 */
async function matchCandidates(
  tx: Tx,
  scope: CompanyScope,
  input: StatementInput,
  now: Date,
): Promise<{ candidates: ReconCandidate[]; result: StatementMatchOutcome } | undefined> {
  const { entries } = input;
  const context = { source: input.source, documentId: input.documentId };
  let candidates: ReconCandidate[] = [];
  let result: StatementMatchOutcome | undefined;
  if (entries.named !== null) {
    candidates = await listReconCandidates(tx, scope, input.environment, now, entries.returned, {
      openNamed: entries.named,
    });
    result = await entries.match(linesOf(candidates), context);
  }
  if (result === undefined || result.left) {
    candidates = await listReconCandidates(tx, scope, input.environment, now, entries.returned);
    if (candidates.length === 0) return undefined;
    result = await entries.match(linesOf(candidates), context);
  }
  return candidates.length === 0 ? undefined : { candidates, result };
}

/** What the match says of each line, by document: bookings, reversals and ambiguity notes. */
function newsOf(
  candidates: ReconCandidate[],
  result: StatementMatchOutcome,
  input: StatementInput,
): Map<string, LineNews[]> {
  const news = new Map<string, LineNews[]>();
  const add = (c: ReconCandidate, item: Omit<LineNews, 'index' | 'endToEndId' | 'amount' | 'currency'>) => {
    const list = news.get(c.documentId) ?? [];
    list.push({ index: c.lineIndex, endToEndId: c.endToEndId, amount: c.amount, currency: c.currency, ...item });
    news.set(c.documentId, list);
  };
  for (const m of result.matches) {
    const c = candidates[m.line]!;
    const evidence = m.evidence;
    if (m.rule === 'return') {
      // The evidence the line had (its booking, a status report) stays beside the return that undid it.
      add(c, {
        event: { type: 'reversed' },
        evidence: (previous) => ({ ...evidence, reversal: true, ...(previous ? { before: previous } : {}) }),
      });
    } else {
      // A line a status report cleared keeps that report beside the booking that confirms it.
      add(c, {
        event: { type: 'booked' },
        evidence: (previous) =>
          previous && previous['source'] === 'pain.002' ? { ...evidence, statusReport: previous } : evidence,
      });
    }
  }
  for (const a of result.ambiguous) {
    const c = candidates[a.line]!;
    if (c.state !== 'pending') continue;
    add(c, {
      event: null,
      evidence: () => ({
        source: input.source,
        summary: `not matched: ${a.reason}`,
        reason: 'ambiguous',
        documentId: input.documentId,
      }),
    });
  }
  return news;
}

/** A document's line changes (each through lineTransition), counted into `counts`; `current` follows them. */
function lineChangesOf(
  items: LineNews[],
  current: Map<number, LineState>,
  previous: (index: number) => Record<string, unknown> | null,
  counts: StatementRecon,
): { changes: LineWrite[]; moved: LineNews[] } {
  const changes: LineWrite[] = [];
  const moved: LineNews[] = [];
  for (const item of items) {
    const from = current.get(item.index);
    if (from === undefined) continue;
    if (item.event === null) {
      // An ambiguity note: only on a line still pending, and it moves nothing.
      if (from === 'pending')
        changes.push({ index: item.index, state: from, evidence: item.evidence(previous(item.index)), settled: false });
      continue;
    }
    const move = lineTransition(from, item.event);
    if (!move.ok) continue;
    changes.push({
      index: item.index,
      state: move.to,
      evidence: item.evidence(previous(item.index)),
      settled: lineSettled(move.to, 'statement'),
    });
    current.set(item.index, move.to);
    moved.push(item);
    if (item.event.type === 'reversed') counts.reversed++;
    else if (from === 'pending') counts.cleared++;
  }
  return { changes, moved };
}

/** The document's status after its lines moved (its transition), its payment event, and its audit event. */
function documentMoved(
  scope: CompanyScope,
  input: StatementInput,
  doc: Parameters<typeof outboundOf>[0],
  lines: LineState[],
  moves: { changes: LineWrite[]; moved: LineNews[] },
  writes: DocumentWrites,
): AuditEvent {
  const { changes, moved } = moves;
  const outbound = outboundOf(doc);
  const returned = moved.some((m) => m.event?.type === 'reversed');
  const transition = documentTransition(outbound, { type: 'evidence', lines, returned });
  const to = transition.ok ? transition.to : outbound.status;
  if (to !== outbound.status) {
    writes.statusMoves.push({ id: doc.id, from: outbound.status, to });
    const cause = moved.find((m) => (to === 'rejected' ? m.event?.type === 'reversed' : m.event?.type === 'booked'));
    const causeChange = changes.find((c) => c.index === cause?.index);
    writes.paymentEvents.push({
      doc,
      status: to,
      cause: {
        endToEndId: cause?.endToEndId ?? null,
        reason: (causeChange?.evidence['reason'] as string | null | undefined) ?? null,
      },
    });
  }
  return {
    platformId: scope.platformId,
    companyId: scope.companyId,
    type: to !== outbound.status ? 'payment.status_changed' : 'payment.lines_reconciled',
    message: `${doc.journalNo} ${to !== outbound.status ? `${outbound.status} -> ${to}` : 'lines reconciled'} by ${input.source} ${input.documentId}`,
    metadata: {
      documentId: doc.id,
      journalNo: doc.journalNo,
      from: outbound.status,
      to,
      evidenceDocumentId: input.documentId,
      lines: changes
        .filter((c) => moved.some((m) => m.index === c.index))
        .slice(0, 100)
        .map((c) => ({ index: c.index, state: c.state, reason: c.evidence['reason'] ?? null })),
      lineCount: moved.length,
    },
    bankKey: doc.bankKey,
    environment: doc.environment,
  };
}
