import type { CompanyScope, Tx } from '../../db/executor.ts';
import {
  type HeldStatusReport,
  holdStatusReports,
  takeHeldStatusReports,
} from '../../db/repositories/held-status-reports.ts';
import {
  type JournalDocumentRow,
  listPaymentLinesOf,
  lockDocuments,
  type PaymentLineRow,
  updateDocumentStatuses,
  updateLinesOfDocuments,
} from '../../db/repositories/journal-documents.ts';
import type { NormalisedStatusReport } from '../../domain/inbound/index.ts';
import type { AuditEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import { emitPaymentEvents, type PaymentEvent } from '../events/outbox.ts';
import {
  deliveryUnrecorded,
  lifecycleOutcome,
  outcomeEffects,
  type StatusMatch,
  statusMatchOf,
} from './payment-status.ts';

/**
 * The pain.002 reports a bank's pickup journaled while their documents' deliveries were under way
 * (docs/adr/0074), applied by the transaction that records those deliveries (delivered, or failed for
 * good): each report does to its document and lines what it would have done had it come a moment
 * later (the same lifecycle, evidence, payment and audit events), and its journal entry's match says
 * so (`heldUntil`). Several reports about one document are applied in journal order, round by round,
 * each round set-wise. The caller holds the documents' row locks; the audit events go into `audit`,
 * recorded by the caller last (docs/adr/0012). A document still being delivered keeps its reports held.
 * Answers how many reports were applied.
 */
export async function applyHeldStatusReports(
  ctx: AppContext,
  tx: Tx,
  scope: CompanyScope,
  outboundIds: string[],
  audit: AuditEvent[],
): Promise<number> {
  const held = await takeHeldStatusReports(tx, scope, outboundIds);
  if (held.length === 0) return 0;
  const reports = new Map(
    (
      await lockDocuments(
        tx,
        scope,
        held.map((h) => h.reportDocumentId),
      )
    ).map((d) => [d.id, d]),
  );
  // Round k applies the k-th held report of each document.
  const rounds: HeldStatusReport[][] = [];
  const seen = new Map<string, number>();
  for (const h of held) {
    const k = seen.get(h.outboundDocumentId) ?? 0;
    seen.set(h.outboundDocumentId, k + 1);
    const round = rounds[k] ?? [];
    round.push(h);
    rounds[k] = round;
  }
  let applied = 0;
  for (const round of rounds) applied += await applyRound(ctx, tx, scope, round, reports, audit);
  return applied;
}

async function applyRound(
  ctx: AppContext,
  tx: Tx,
  scope: CompanyScope,
  round: HeldStatusReport[],
  reports: Map<string, JournalDocumentRow>,
  audit: AuditEvent[],
): Promise<number> {
  const ids = round.map((h) => h.outboundDocumentId);
  const outbound = new Map((await lockDocuments(tx, scope, ids)).map((d) => [d.id, d]));
  const stillHeld = round.filter((h) => {
    const doc = outbound.get(h.outboundDocumentId);
    return doc !== undefined && deliveryUnrecorded(doc);
  });
  const now = ctx.clock.now();
  await holdStatusReports(tx, scope, stillHeld, now);
  const due = round.filter((h) => outbound.has(h.outboundDocumentId) && reports.has(h.reportDocumentId));
  const ready = due.filter((h) => !stillHeld.includes(h));
  if (ready.length === 0) return 0;
  const lines = await listPaymentLinesOf(
    tx,
    scope,
    ready.map((h) => h.outboundDocumentId),
  );
  const lineChanges: Parameters<typeof updateLinesOfDocuments>[2] = [];
  const moves: Parameters<typeof updateDocumentStatuses>[2] = [];
  const events: PaymentEvent[] = [];
  for (const h of ready) {
    const doc = outbound.get(h.outboundDocumentId)!;
    const reportDoc = reports.get(h.reportDocumentId)!;
    const report = JSON.parse(ctx.encryptor.decrypt(reportDoc.payloadSealed ?? '')) as NormalisedStatusReport;
    const outcome = lifecycleOutcome(doc, linesOf(lines, doc.id), report, {
      documentId: reportDoc.id,
      date: report.createdAt ?? now.toISOString(),
    });
    const match: StatusMatch = { ...statusMatchOf(doc, outcome), heldUntil: now.toISOString() };
    const effects = outcomeEffects(scope, doc, outcome, reportDoc);
    lineChanges.push(...effects.lineChanges.map((c) => ({ documentId: doc.id, ...c })));
    if (effects.statusMove) moves.push({ id: doc.id, ...effects.statusMove });
    // The report's entry keeps its status; its match is now what was applied.
    moves.push({ id: reportDoc.id, from: reportDoc.status, to: reportDoc.status, details: { match } });
    if (effects.paymentEvent) events.push(effects.paymentEvent);
    audit.push(...effects.audit);
  }
  await updateLinesOfDocuments(tx, scope, lineChanges, now);
  await updateDocumentStatuses(tx, scope, moves, now);
  await emitPaymentEvents(ctx, tx, events);
  return ready.length;
}

function linesOf(lines: Map<string, PaymentLineRow[]>, documentId: string): PaymentLineRow[] {
  return lines.get(documentId) ?? [];
}
