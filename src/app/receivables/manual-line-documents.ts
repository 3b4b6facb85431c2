import type { CompanyScope, Tx } from '../../db/executor.ts';
import { lockDocuments, outboundOf, updateDocumentStatuses } from '../../db/repositories/journal-documents.ts';
import { lineStatesOf } from '../../db/repositories/recon-lines.ts';
import { type DocumentEvent, documentTransition, type OutboundStatus } from '../../domain/lifecycle/index.ts';
import { type AuditEvent, recordEvents } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import { emitPaymentEvents, type PaymentEvent } from '../events/outbox.ts';

/**
 * The documents of the lines a person's manual match cleared, or its undo released (docs/adr/0079):
 * each one's status after, from all of its lines, through documentTransition (`evidence` for the
 * match, as the bank's booking would move it; `manual-unmatched` for the undo, the one move back from
 * `executed` to `sent`). A document that moves gets its payment event (`payment.executed`,
 * `payment.sent`) and a `payment.status_changed` audit event naming the person, as the statement path
 * gives it. Called after the lines are written, in their transaction; the documents are locked
 * already (linesAt), so the conditional update only repeats what was read.
 */
export async function moveManualDocuments(
  ctx: AppContext,
  tx: Tx,
  scope: CompanyScope,
  m: {
    how: 'matched' | 'unmatched';
    /** The lines this act moved, by document, with their end-to-end ids (the event's cause). */
    lines: Array<{ documentId: string; index: number; endToEndId: string | null }>;
    matchId: string;
    entry: { documentId: string; entryIndex: number | null };
    actor: string;
    actorUserId: string | null;
    at: Date;
  },
): Promise<void> {
  const ids = [...new Set(m.lines.map((l) => l.documentId))].sort();
  if (ids.length === 0) return;
  const documents = await lockDocuments(tx, scope, ids);
  const states = await lineStatesOf(tx, scope, ids);
  const moves: Array<{ id: string; from: OutboundStatus; to: OutboundStatus }> = [];
  const events: PaymentEvent[] = [];
  const audit: AuditEvent[] = [];
  for (const doc of documents) {
    const outbound = outboundOf(doc);
    const lines = [...(states.get(doc.id)?.values() ?? [])];
    const event: DocumentEvent =
      m.how === 'matched' ? { type: 'evidence', lines } : { type: 'manual-unmatched', lines };
    const move = documentTransition(outbound, event);
    if (!move.ok || !move.changed) continue;
    const mine = m.lines.filter((l) => l.documentId === doc.id);
    moves.push({ id: doc.id, from: outbound.status, to: move.to });
    events.push({ doc, status: move.to, cause: { endToEndId: mine[0]?.endToEndId ?? null } });
    audit.push({
      ...scope,
      type: 'payment.status_changed',
      actorUserId: m.actorUserId,
      message: `${doc.journalNo} ${outbound.status} -> ${move.to} by ${m.how === 'matched' ? 'manual match' : 'the undoing of manual match'} ${m.matchId} (${m.actor})`,
      metadata: {
        documentId: doc.id,
        journalNo: doc.journalNo,
        from: outbound.status,
        to: move.to,
        matchId: m.matchId,
        manual: true,
        actor: m.actor,
        evidenceDocumentId: m.entry.documentId,
        entryIndex: m.entry.entryIndex,
        lines: mine.map((l) => ({ index: l.index, state: m.how === 'matched' ? 'cleared' : 'pending' })),
        lineCount: mine.length,
      },
      bankKey: doc.bankKey,
      environment: doc.environment,
    });
  }
  await updateDocumentStatuses(tx, scope, moves, m.at);
  await emitPaymentEvents(ctx, tx, events);
  if (audit.length > 0) await recordEvents(ctx, tx, audit);
}
