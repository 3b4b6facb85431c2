import type { CompanyScope, Tx } from '../../db/executor.ts';
import {
  listPaymentLines,
  lockDocument,
  updateDocument,
  updatePaymentLineStates,
} from '../../db/repositories/journal-documents.ts';
import { listReconCandidates, type ReconCandidate } from '../../db/repositories/recon-lines.ts';
import type { NormalisedStatement } from '../../domain/inbound/types.ts';
import { documentStatusFrom, type LineState } from '../../domain/journal/status-lifecycle.ts';
import { matchEntries } from '../../domain/recon/match-entries.ts';
import { bookingEvidence, statementEntries } from '../../domain/recon/statement-entries.ts';
import type { ReconLine } from '../../domain/recon/types.ts';
import { recordEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import { emitPaymentEvent } from '../events/outbox.ts';

/** Statement evidence names a statement format as its source (camt.05x, mt940 ...). */
function bookedByStatement(c: ReconCandidate): boolean {
  const source = c.evidence?.['source'];
  return typeof source === 'string' && source !== 'pain.002';
}

type LineUpdate = { index: number; state: LineState; evidence: Record<string, unknown>; endToEndId: string | null };

/**
 * Reconciles one journaled statement against the company's open payment lines, in the ingest
 * transaction: booked debits clear their lines, reversals and returns reject cleared ones, ambiguous
 * candidates stay pending with the reason on the line. Documents whose lines changed get their
 * status from their lines (the same rule as for pain.002), an audit event and a payment event.
 */
export async function reconcileStatement(
  ctx: AppContext,
  tx: Tx,
  scope: CompanyScope,
  input: { documentId: string; statement: NormalisedStatement; source: string; environment: string },
): Promise<{ cleared: number; reversed: number; ambiguous: number }> {
  const { entries, sources } = statementEntries(input.statement);
  if (entries.length === 0) return { cleared: 0, reversed: 0, ambiguous: 0 };
  const candidates = await listReconCandidates(tx, scope, input.environment);
  if (candidates.length === 0) return { cleared: 0, reversed: 0, ambiguous: 0 };

  const lines: ReconLine[] = candidates.map((c) => ({
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
  }));
  const result = matchEntries(lines, entries);

  const updates = new Map<string, LineUpdate[]>();
  const add = (c: ReconCandidate, update: Omit<LineUpdate, 'index' | 'endToEndId'>) => {
    const list = updates.get(c.documentId) ?? [];
    list.push({ index: c.lineIndex, endToEndId: c.endToEndId, ...update });
    updates.set(c.documentId, list);
  };
  let cleared = 0;
  let reversed = 0;
  for (const m of result.matches) {
    const c = candidates[m.line]!;
    const evidence = bookingEvidence(sources[m.entry]!, entries[m.entry]!, {
      source: input.source,
      documentId: input.documentId,
      rule: m.rule,
    });
    if (m.rule === 'reversal') {
      reversed++;
      add(c, { state: 'rejected', evidence: { ...evidence, reversal: true } });
    } else if (c.state === 'pending') {
      cleared++;
      add(c, { state: 'cleared', evidence });
    } else {
      add(c, { state: 'cleared', evidence: { ...evidence, statusReport: c.evidence } });
    }
  }
  for (const a of result.ambiguous) {
    const c = candidates[a.line]!;
    if (c.state !== 'pending') continue;
    add(c, {
      state: 'pending',
      evidence: {
        source: input.source,
        summary: `not matched: ${a.reason}`,
        reason: 'ambiguous',
        documentId: input.documentId,
      },
    });
  }

  for (const [documentId, changes] of updates) await applyToDocument(ctx, tx, scope, documentId, changes, input);
  return { cleared, reversed, ambiguous: result.ambiguous.length };
}

async function applyToDocument(
  ctx: AppContext,
  tx: Tx,
  scope: CompanyScope,
  documentId: string,
  changes: LineUpdate[],
  input: { documentId: string; source: string },
): Promise<void> {
  const doc = await lockDocument(tx, scope, documentId);
  if (!doc) return;
  const now = ctx.clock.now();
  await updatePaymentLineStates(tx, scope, documentId, changes, now);
  const states = (await listPaymentLines(tx, scope, documentId)).map((l) => l.state as LineState);
  const to = documentStatusFrom(doc.status, states);
  const transitions = changes.filter((c) => c.state !== 'pending');
  if (to !== doc.status) {
    await updateDocument(tx, scope, documentId, { status: to, updatedAt: now });
    const cause = transitions.find((c) => c.state === (to === 'rejected' ? 'rejected' : 'cleared'));
    await emitPaymentEvent(ctx, tx, doc, to, {
      endToEndId: cause?.endToEndId ?? null,
      reason: (cause?.evidence.reason as string | null | undefined) ?? null,
    });
  }
  await recordEvent(ctx, tx, {
    platformId: scope.platformId,
    companyId: scope.companyId,
    type: to !== doc.status ? 'payment.status_changed' : 'payment.lines_reconciled',
    message: `${doc.journalNo} ${to !== doc.status ? `${doc.status} -> ${to}` : 'lines reconciled'} by ${input.source} ${input.documentId}`,
    metadata: {
      documentId,
      journalNo: doc.journalNo,
      from: doc.status,
      to,
      evidenceDocumentId: input.documentId,
      lines: changes.slice(0, 100).map((c) => ({ index: c.index, state: c.state, reason: c.evidence.reason ?? null })),
      lineCount: changes.length,
    },
    bankKey: doc.bankKey,
    environment: doc.environment,
  });
}
