import { createHash } from 'node:crypto';
import type { CompanyScope, Tx } from '../../db/executor.ts';
import { holdStatusReports } from '../../db/repositories/held-status-reports.ts';
import {
  findInboundByDigest,
  findOutboundByEndToEndIds,
  findOutboundByMessageId,
  insertDocument,
  type JournalDocumentRow,
  type LineWrite,
  listPaymentLines,
  lockDocument,
  lockInboundContent,
  type NewJournalDocument,
  nextJournalNo,
  outboundOf,
  type PaymentLineRow,
  updateDocumentStatus,
  updatePaymentLineStates,
} from '../../db/repositories/journal-documents.ts';
import { NOT_PROVIDED } from '../../domain/canonical/generated-instruction-id.ts';
import type { NormalisedStatusReport } from '../../domain/inbound/index.ts';
import {
  applyStatusReport,
  type LifecycleLine,
  type LifecycleOutcome,
  type LifecycleReport,
} from '../../domain/journal/status-lifecycle.ts';
import { type DocumentStatus, lineSettled } from '../../domain/lifecycle/index.ts';
import type { AuditEvent } from '../audit/record.ts';
import { retentionUntil } from '../audit/retention-policy.ts';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import { emitPaymentEvent, type PaymentEvent } from '../events/outbox.ts';
import { type IngestWithin, inIngestTransaction } from './ingest-transaction.ts';

export function contentDigest(content: string): string {
  return createHash('sha256').update(content, 'utf8').digest('hex');
}

/** A pain.002 to journal: its content, as parsed, and where it came from. */
export type StatusReportInput = {
  content: string;
  report: NormalisedStatusReport;
  sourceFormat: string;
  bankKey: string | null;
  environment: string | null;
  importSource: string;
  /**
   * A report about a document whose delivery is under way (the bank has the file, the service has
   * not recorded it yet) is journaled and held (held_status_reports), not applied and not ignored:
   * the transaction that records the delivery applies it (held-reports.ts, docs/adr/0074). Before,
   * it was refused and left at the bank, which kept a whole EBICS download unconfirmed. A client's
   * upload is applied at once either way.
   */
  holdWhileDelivering: boolean;
};

/** Whether a report about this document waits for its delivery's record (StatusReportInput.holdWhileDelivering). */
export function deliveryUnrecorded(doc: JournalDocumentRow): boolean {
  return doc.status === 'converted' && (doc.deliveryStatus === 'in-progress' || doc.deliveryStatus === 'retrying');
}

/** What journaling a pain.002 left behind; stored in the report document's details for replays. */
export type StatusMatch = {
  documentId: string;
  journalNo: string;
  previousStatus: string;
  status: string;
  lineTransitions: number;
  lateRejections: number;
  unmatchedTransactions: number;
  ignored: boolean;
  /** Why a document that takes no evidence did not take this report. */
  ignoredReason?: string;
  /** Journaled while the document's delivery was under way: not applied yet (docs/adr/0074). */
  held?: boolean;
  /** A report that was held: when the delivery's record applied it. */
  heldUntil?: string;
};

export type JournaledStatusReport = {
  deduped: boolean;
  reportDocument: JournalDocumentRow;
  report: NormalisedStatusReport;
  match: StatusMatch;
};

function lifecycleReportOf(report: NormalisedStatusReport): LifecycleReport {
  return {
    groupStatusCode: report.groupStatusCode,
    groupReasons: report.groupReasons,
    paymentGroups: report.paymentGroups,
    extraTransactions: [...report.rejectedTransactions, ...report.acceptedTransactions, ...report.pendingTransactions],
  };
}

/** The end-to-end ids a report names; NOTPROVIDED (EPC132-08 AT-41) names no document and is left out. */
function endToEndIdsOf(report: NormalisedStatusReport): string[] {
  const ids = new Set<string>();
  for (const g of report.paymentGroups) for (const t of g.transactions) if (t.endToEndId) ids.add(t.endToEndId);
  for (const t of [...report.rejectedTransactions, ...report.acceptedTransactions, ...report.pendingTransactions]) {
    if (t.endToEndId) ids.add(t.endToEndId);
  }
  ids.delete(NOT_PROVIDED);
  return [...ids];
}

/**
 * The outbound document a report is about: by its original message id (unique per company), else the
 * one document that may take evidence and carries most of its end-to-end ids; `ambiguous` when two
 * carry as many (a reused end-to-end id proves nothing about either).
 */
export async function matchOutbound(tx: Tx, scope: CompanyScope, report: NormalisedStatusReport) {
  if (report.originalMessageId) {
    const byMessage = await findOutboundByMessageId(tx, scope, report.originalMessageId);
    if (byMessage) return byMessage.id;
  }
  return findOutboundByEndToEndIds(tx, scope, endToEndIdsOf(report));
}

/**
 * POST /inbound/payment-status and a pain.002 sent to POST /journal/ingest: in one transaction the
 * report is matched to its outbound document (original message id, then end-to-end ids), journaled
 * as an inbound `pain.002` document, and the document and its lines advanced (status-lifecycle.ts),
 * each change with its audit event. The same content again answers the first outcome (deduped)
 * without re-running anything; a report that matches nothing, or matches ambiguously, is 422
 * unmatched_report, nothing kept. A document that takes no evidence (terminal, awaiting approval, or
 * host-to-host and never delivered) keeps its status and lines; the report is journaled as ignored.
 * Locks in the pipeline's order (docs/adr/0012): content digest, inbound journal counter, the
 * outbound document, its lines, and the chain head last.
 */
export async function journalStatusReport(
  ctx: AppContext,
  scope: CompanyScope,
  input: StatusReportInput,
  within?: IngestWithin,
): Promise<JournaledStatusReport> {
  const digest = contentDigest(input.content);
  // The audit events are recorded last, after every document row (docs/adr/0012).
  return inIngestTransaction(ctx, 'ingest of a status report', within, async (tx, audit) => {
    await lockInboundContent(tx, scope.companyId, digest);
    const [existing] = await findInboundByDigest(tx, scope, digest);
    if (existing) {
      const report = JSON.parse(ctx.encryptor.decrypt(existing.payloadSealed ?? '')) as NormalisedStatusReport;
      return { deduped: true, reportDocument: existing, report, match: existing.details?.match as StatusMatch };
    }

    const matchedId = await matchOutbound(tx, scope, input.report);
    if (matchedId === undefined || matchedId === 'ambiguous') {
      throw new AppError(
        'unmatched_report',
        matchedId === 'ambiguous'
          ? 'the status report names end-to-end ids that several outbound payments of this company share; it matches none of them'
          : 'the status report matches no outbound payment of this company',
        { originalMessageId: input.report.originalMessageId, ...(matchedId ? { reason: 'ambiguous' } : {}) },
      );
    }
    const journalNo = await nextJournalNo(tx, scope.companyId, 'inbound');
    const outbound = await lockDocument(tx, scope, matchedId);
    if (!outbound) throw new AppError('unmatched_report', 'the matched outbound payment is gone');
    if (input.holdWhileDelivering && deliveryUnrecorded(outbound)) {
      const held = heldEntry(ctx, scope, input, outbound, journalNo, digest);
      const reportDocument = await insertDocument(tx, held.row);
      await holdStatusReports(
        tx,
        scope,
        [{ reportDocumentId: reportDocument.id, outboundDocumentId: outbound.id }],
        ctx.clock.now(),
      );
      audit.push(held.ingested);
      return { deduped: false, reportDocument, report: input.report, match: held.match };
    }

    const lines = await listPaymentLines(tx, scope, outbound.id);
    const { row, match, outcome, ingested } = reportEntry(ctx, scope, input, outbound, lines, journalNo, digest);
    const reportDocument = await insertDocument(tx, row);
    const events = await applyOutcome(ctx, tx, scope, outbound, outcome, reportDocument);
    audit.push(ingested, ...events);
    return { deduped: false, reportDocument, report: input.report, match };
  });
}

/** What the report does to the document and its lines (status-lifecycle.ts). */
export function lifecycleOutcome(
  outbound: JournalDocumentRow,
  lines: PaymentLineRow[],
  report: NormalisedStatusReport,
  evidence: { documentId: string; date: string },
): LifecycleOutcome {
  return applyStatusReport(
    outboundOf(outbound),
    lines.map(
      (l): LifecycleLine => ({
        index: l.lineIndex,
        endToEndId: l.endToEndId,
        instructionId: l.instructionId,
        paymentId: l.paymentId,
        amount: l.amount,
        currency: l.currency,
        state: l.state,
      }),
    ),
    lifecycleReportOf(report),
    evidence,
  );
}

export function statusMatchOf(outbound: JournalDocumentRow, outcome: LifecycleOutcome): StatusMatch {
  return {
    documentId: outbound.id,
    journalNo: outbound.journalNo,
    previousStatus: outcome.from,
    status: outcome.to,
    lineTransitions: outcome.transitions.length,
    lateRejections: outcome.lateRejections,
    unmatchedTransactions: outcome.unmatchedTransactions,
    ignored: outcome.ignored !== null,
    ...(outcome.ignored !== null ? { ignoredReason: outcome.ignored } : {}),
  };
}

/** The journal entry of a report matched to `outbound` (locked, with its lines): pure, written by the caller. */
export function reportEntry(
  ctx: AppContext,
  scope: CompanyScope,
  input: StatusReportInput,
  outbound: JournalDocumentRow,
  lines: PaymentLineRow[],
  journalNo: string,
  digest: string,
): { row: NewJournalDocument; match: StatusMatch; outcome: LifecycleOutcome; ingested: AuditEvent } {
  const now = ctx.clock.now();
  const reportId = ctx.ids.next('doc');
  const outcome = lifecycleOutcome(outbound, lines, input.report, {
    documentId: reportId,
    date: input.report.createdAt ?? now.toISOString(),
  });
  const match = statusMatchOf(outbound, outcome);
  const entry = journalEntry(
    ctx,
    scope,
    input,
    outbound,
    { reportId, journalNo, digest, match },
    (groupWord) =>
      `pain.002 ${groupWord} for ${outbound.journalNo} (${input.report.originalMessageId ?? 'end-to-end ids'}): ${outcome.from} -> ${outcome.to}`,
  );
  return { ...entry, match, outcome };
}

/**
 * The journal entry of a report held for its document's delivery record (docs/adr/0074): journaled
 * like any report, its match saying `held` and nothing applied; held-reports.ts applies it later.
 */
export function heldEntry(
  ctx: AppContext,
  scope: CompanyScope,
  input: StatusReportInput,
  outbound: JournalDocumentRow,
  journalNo: string,
  digest: string,
): { row: NewJournalDocument; match: StatusMatch; ingested: AuditEvent } {
  const reportId = ctx.ids.next('doc');
  const match: StatusMatch = {
    documentId: outbound.id,
    journalNo: outbound.journalNo,
    previousStatus: outbound.status,
    status: outbound.status,
    lineTransitions: 0,
    lateRejections: 0,
    unmatchedTransactions: 0,
    ignored: false,
    held: true,
  };
  const entry = journalEntry(
    ctx,
    scope,
    input,
    outbound,
    { reportId, journalNo, digest, match },
    (groupWord) =>
      `pain.002 ${groupWord} for ${outbound.journalNo} (${input.report.originalMessageId ?? 'end-to-end ids'}): held until its delivery is recorded`,
  );
  return { ...entry, match };
}

function journalEntry(
  ctx: AppContext,
  scope: CompanyScope,
  input: StatusReportInput,
  outbound: JournalDocumentRow,
  entry: { reportId: string; journalNo: string; digest: string; match: StatusMatch },
  summary: (groupWord: string) => string,
): { row: NewJournalDocument; ingested: AuditEvent } {
  const now = ctx.clock.now();
  const bankKey = input.bankKey ?? outbound.bankKey;
  const environment = input.environment ?? outbound.environment;
  const { reportId, journalNo, digest, match } = entry;
  const r = input.report;
  const txCount = new Set([
    ...r.paymentGroups.flatMap((g) => g.transactions),
    ...r.rejectedTransactions,
    ...r.acceptedTransactions,
    ...r.pendingTransactions,
  ]).size;
  const groupWord = r.groupStatusCode ?? r.paymentGroups.find((g) => g.statusCode)?.statusCode ?? 'per transaction';
  const row: NewJournalDocument = {
    id: reportId,
    platformId: scope.platformId,
    companyId: scope.companyId,
    journalNo,
    direction: 'inbound',
    type: 'pain.002',
    sourceFormat: input.sourceFormat,
    bankKey,
    environment,
    status: 'ingested',
    messageId: r.messageId,
    importSource: input.importSource,
    transactionCount: txCount,
    totals: [],
    summary: summary(groupWord),
    contentDigest: digest,
    blockIndex: 0,
    payloadSealed: ctx.encryptor.encrypt(JSON.stringify(r)),
    fileSealed: ctx.encryptor.encrypt(input.content),
    details: { match },
    createdAt: now,
    updatedAt: now,
    expiresAt: retentionUntil(now, environment),
  };
  const ingested: AuditEvent = {
    platformId: scope.platformId,
    companyId: scope.companyId,
    type: 'journal.document.ingested',
    message: `${journalNo} pain.002 journaled, matched to ${outbound.journalNo}${match.held ? ', held until its delivery is recorded' : ''}`,
    metadata: {
      documentId: reportId,
      journalNo,
      type: 'pain.002',
      contentDigest: digest,
      matchedDocumentId: outbound.id,
      ...(match.held ? { held: true } : {}),
    },
    bankKey,
    environment,
  };
  return { row, ingested };
}

/** What a report's outcome writes (line states, the document's status, its payment event) and its audit events. */
export type OutcomeEffects = {
  lineChanges: LineWrite[];
  statusMove: { from: DocumentStatus; to: DocumentStatus } | null;
  paymentEvent: PaymentEvent | null;
  audit: AuditEvent[];
};

/** Writes the report's outcome and answers the audit events it calls for (recorded by the caller, last). */
async function applyOutcome(
  ctx: AppContext,
  tx: Tx,
  scope: CompanyScope,
  outbound: JournalDocumentRow,
  outcome: LifecycleOutcome,
  reportDocument: JournalDocumentRow,
): Promise<AuditEvent[]> {
  const effects = outcomeEffects(scope, outbound, outcome, reportDocument);
  const now = ctx.clock.now();
  if (effects.lineChanges.length > 0) await updatePaymentLineStates(tx, scope, outbound.id, effects.lineChanges, now);
  if (effects.statusMove) await updateDocumentStatus(tx, scope, outbound.id, effects.statusMove, now);
  if (effects.paymentEvent) {
    const { doc, status, cause } = effects.paymentEvent;
    await emitPaymentEvent(ctx, tx, doc, status, cause);
  }
  return effects.audit;
}

/** The effects of a report's outcome on its outbound document (the single and the batch ingest write them). */
export function outcomeEffects(
  scope: CompanyScope,
  outbound: JournalDocumentRow,
  outcome: LifecycleOutcome,
  reportDocument: Pick<JournalDocumentRow, 'id' | 'journalNo'>,
): OutcomeEffects {
  const lineChanges = outcome.lineChanges.map((c) => ({
    index: c.index,
    state: c.to,
    evidence: c.evidence,
    settled: lineSettled(c.to, 'status-report'),
  }));
  const statusMove = outcome.to !== outcome.from ? { from: outcome.from, to: outcome.to } : null;

  const base = {
    documentId: outbound.id,
    journalNo: outbound.journalNo,
    messageId: outbound.messageId,
    reportDocumentId: reportDocument.id,
    reportJournalNo: reportDocument.journalNo,
    from: outcome.from,
    to: outcome.to,
    lineTransitions: outcome.transitions.slice(0, 100).map((c) => ({
      index: c.index,
      from: c.from,
      to: c.to,
      statusCode: c.statusCode,
      reason: c.evidence.reason,
    })),
    lineTransitionCount: outcome.transitions.length,
  };
  const event = {
    platformId: scope.platformId,
    companyId: scope.companyId,
    bankKey: outbound.bankKey,
    environment: outbound.environment,
  };
  const events: AuditEvent[] = [];
  let paymentEvent: PaymentEvent | null = null;
  if (outcome.ignored !== null) {
    events.push({
      ...event,
      type: 'payment.status_report_ignored',
      message: `${reportDocument.journalNo} not applied to ${outbound.journalNo}: ${outcome.ignored}`,
      metadata: { ...base, reason: outcome.ignored },
    });
    return { lineChanges, statusMove, paymentEvent, audit: events };
  }
  if (outcome.to !== outcome.from) {
    const cause = outcome.transitions.find((c) => c.to === outcome.to || c.to === 'rejected');
    paymentEvent = {
      doc: outbound,
      status: outcome.to,
      cause: { endToEndId: cause?.endToEndId ?? null, reason: cause?.evidence.reason ?? null },
    };
    events.push({
      ...event,
      type: 'payment.status_changed',
      message: `${outbound.journalNo} ${outcome.from} -> ${outcome.to} (${reportDocument.journalNo})`,
      metadata: base,
    });
  } else if (outcome.transitions.length > 0) {
    events.push({
      ...event,
      type: 'payment.lines_updated',
      message: `${outbound.journalNo}: ${outcome.transitions.length} line(s) changed (${reportDocument.journalNo})`,
      metadata: base,
    });
  }
  if (outcome.lateRejections > 0) {
    events.push({
      ...event,
      type: 'payment.late_rejection',
      message: `${outbound.journalNo}: ${outcome.lateRejections} cleared line(s) rejected afterwards (${reportDocument.journalNo})`,
      metadata: base,
    });
  }
  return { lineChanges, statusMove, paymentEvent, audit: events };
}
