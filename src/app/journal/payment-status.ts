import { createHash } from 'node:crypto';
import type { CompanyScope, Tx } from '../../db/executor.ts';
import {
  findInboundByDigest,
  findOutboundByEndToEndIds,
  findOutboundByMessageId,
  insertDocument,
  type JournalDocumentRow,
  listPaymentLines,
  lockDocument,
  lockInboundContent,
  nextJournalNo,
  updateDocument,
  updatePaymentLineStates,
} from '../../db/repositories/journal-documents.ts';
import type { NormalisedStatusReport } from '../../domain/inbound/index.ts';
import {
  applyStatusReport,
  type LifecycleLine,
  type LifecycleOutcome,
  type LifecycleReport,
  type LineState,
} from '../../domain/journal/status-lifecycle.ts';
import { recordEvent } from '../audit/record.ts';
import { retentionUntil } from '../audit/retention-policy.ts';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import { emitPaymentEvent } from '../events/outbox.ts';

export function contentDigest(content: string): string {
  return createHash('sha256').update(content, 'utf8').digest('hex');
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

function endToEndIdsOf(report: NormalisedStatusReport): string[] {
  const ids = new Set<string>();
  for (const g of report.paymentGroups) for (const t of g.transactions) if (t.endToEndId) ids.add(t.endToEndId);
  for (const t of [...report.rejectedTransactions, ...report.acceptedTransactions, ...report.pendingTransactions]) {
    if (t.endToEndId) ids.add(t.endToEndId);
  }
  return [...ids];
}

async function matchOutbound(tx: Tx, scope: CompanyScope, report: NormalisedStatusReport) {
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
 * without re-running anything; a report that matches nothing is 422 unmatched_report, nothing kept.
 */
export async function journalStatusReport(
  ctx: AppContext,
  scope: CompanyScope,
  input: {
    content: string;
    report: NormalisedStatusReport;
    sourceFormat: string;
    bankKey: string | null;
    environment: string | null;
    importSource: string;
  },
): Promise<JournaledStatusReport> {
  const digest = contentDigest(input.content);
  return ctx.db.transaction(async (tx) => {
    await lockInboundContent(tx, scope.companyId, digest);
    const [existing] = await findInboundByDigest(tx, scope, digest);
    if (existing) {
      const report = JSON.parse(ctx.encryptor.decrypt(existing.payloadSealed ?? '')) as NormalisedStatusReport;
      return { deduped: true, reportDocument: existing, report, match: existing.details?.match as StatusMatch };
    }

    const matchedId = await matchOutbound(tx, scope, input.report);
    const outbound = matchedId ? await lockDocument(tx, scope, matchedId) : undefined;
    if (!outbound) {
      throw new AppError(422, 'unmatched_report', 'the status report matches no outbound payment of this company', {
        originalMessageId: input.report.originalMessageId,
      });
    }

    const now = ctx.clock.now();
    const bankKey = input.bankKey ?? outbound.bankKey;
    const environment = input.environment ?? outbound.environment;
    const reportId = ctx.ids.next('doc');
    const lines = await listPaymentLines(tx, scope, outbound.id);
    const outcome = applyStatusReport(
      outbound.status,
      lines.map(
        (l): LifecycleLine => ({
          index: l.lineIndex,
          endToEndId: l.endToEndId,
          instructionId: l.instructionId,
          paymentId: l.paymentId,
          amount: l.amount,
          currency: l.currency,
          state: l.state as LineState,
        }),
      ),
      lifecycleReportOf(input.report),
      { documentId: reportId, date: input.report.createdAt ?? now.toISOString() },
    );
    const match: StatusMatch = {
      documentId: outbound.id,
      journalNo: outbound.journalNo,
      previousStatus: outcome.from,
      status: outcome.to,
      lineTransitions: outcome.transitions.length,
      lateRejections: outcome.lateRejections,
      unmatchedTransactions: outcome.unmatchedTransactions,
      ignored: outcome.ignored,
    };

    const journalNo = await nextJournalNo(tx, scope.companyId, 'inbound');
    const r = input.report;
    const txCount = new Set([
      ...r.paymentGroups.flatMap((g) => g.transactions),
      ...r.rejectedTransactions,
      ...r.acceptedTransactions,
      ...r.pendingTransactions,
    ]).size;
    const groupWord = r.groupStatusCode ?? r.paymentGroups.find((g) => g.statusCode)?.statusCode ?? 'per transaction';
    const reportDocument = await insertDocument(tx, {
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
      summary: `pain.002 ${groupWord} for ${outbound.journalNo} (${r.originalMessageId ?? 'end-to-end ids'}): ${outcome.from} -> ${outcome.to}`,
      contentDigest: digest,
      blockIndex: 0,
      payloadSealed: ctx.encryptor.encrypt(JSON.stringify(r)),
      fileSealed: ctx.encryptor.encrypt(input.content),
      details: { match },
      createdAt: now,
      updatedAt: now,
      expiresAt: retentionUntil(now, environment),
    });
    await recordEvent(ctx, tx, {
      platformId: scope.platformId,
      companyId: scope.companyId,
      type: 'journal.document.ingested',
      message: `${journalNo} pain.002 journaled, matched to ${outbound.journalNo}`,
      metadata: {
        documentId: reportId,
        journalNo,
        type: 'pain.002',
        contentDigest: digest,
        matchedDocumentId: outbound.id,
      },
      bankKey,
      environment,
    });

    await applyOutcome(ctx, tx, scope, outbound, outcome, reportDocument);
    return { deduped: false, reportDocument, report: r, match };
  });
}

async function applyOutcome(
  ctx: AppContext,
  tx: Tx,
  scope: CompanyScope,
  outbound: JournalDocumentRow,
  outcome: LifecycleOutcome,
  reportDocument: JournalDocumentRow,
): Promise<void> {
  const now = ctx.clock.now();
  if (outcome.lineChanges.length > 0) {
    await updatePaymentLineStates(
      tx,
      scope,
      outbound.id,
      outcome.lineChanges.map((c) => ({ index: c.index, state: c.to, evidence: c.evidence })),
      now,
    );
  }
  if (outcome.to !== outcome.from) await updateDocument(tx, scope, outbound.id, { status: outcome.to, updatedAt: now });

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
  if (outcome.ignored) {
    await recordEvent(ctx, tx, {
      ...event,
      type: 'payment.status_report_ignored',
      message: `${reportDocument.journalNo} not applied: ${outbound.journalNo} is ${outbound.status}`,
      metadata: base,
    });
    return;
  }
  if (outcome.to !== outcome.from) {
    const cause = outcome.transitions.find((c) => c.to === outcome.to || c.to === 'rejected');
    await emitPaymentEvent(ctx, tx, outbound, outcome.to, {
      endToEndId: cause?.endToEndId ?? null,
      reason: cause?.evidence.reason ?? null,
    });
    await recordEvent(ctx, tx, {
      ...event,
      type: 'payment.status_changed',
      message: `${outbound.journalNo} ${outcome.from} -> ${outcome.to} (${reportDocument.journalNo})`,
      metadata: base,
    });
  } else if (outcome.transitions.length > 0) {
    await recordEvent(ctx, tx, {
      ...event,
      type: 'payment.lines_updated',
      message: `${outbound.journalNo}: ${outcome.transitions.length} line(s) changed (${reportDocument.journalNo})`,
      metadata: base,
    });
  }
  if (outcome.lateRejections > 0) {
    await recordEvent(ctx, tx, {
      ...event,
      type: 'payment.late_rejection',
      message: `${outbound.journalNo}: ${outcome.lateRejections} cleared line(s) rejected afterwards (${reportDocument.journalNo})`,
      metadata: base,
    });
  }
}
