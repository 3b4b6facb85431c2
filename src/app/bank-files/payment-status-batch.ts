import type { CompanyScope, Tx } from '../../db/executor.ts';
import { holdStatusReports } from '../../db/repositories/held-status-reports.ts';
import {
  findInboundByDigests,
  findOutboundByMessageIds,
  insertDocuments,
  type JournalDocumentRow,
  listPaymentLinesOf,
  lockDocuments,
  lockInboundContents,
  type NewJournalDocument,
  nextJournalNos,
  type PaymentLineRow,
  updateDocumentStatuses,
  updateLinesOfDocuments,
} from '../../db/repositories/journal-documents.ts';
import type { AuditEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import { emitPaymentEvents, type PaymentEvent } from '../events/outbox.ts';
import {
  contentDigest,
  deliveryUnrecorded,
  heldEntry,
  type OutcomeEffects,
  outcomeEffects,
  reportEntry,
  type StatusMatch,
  type StatusReportInput,
} from './payment-status.ts';

/**
 * What became of one report of a batch: journaled (or found journaled already: `deduped`), or
 * `alone`: not taken set-wise (no outbound document by its original message id, a second report
 * for the same document, the same content twice in the batch); the caller journals it through
 * journalStatusReport, in the same transaction, after the batch.
 */
export type BatchReportOutcome =
  | { kind: 'journaled'; deduped: boolean; reportDocument: JournalDocumentRow; match: StatusMatch }
  | { kind: 'alone' };

/** An outbound document of the batch was not found under its lock: the caller answers the batch file by file. */
class BatchDocumentGone extends Error {}

/**
 * journalStatusReport for a batch of pain.002 files of one company, in the caller's transaction,
 * one statement per table for the batch instead of some ten round trips per file (docs/adr/0051):
 * the contents locked (digest order) and looked up, the outbound documents found by original
 * message id, the inbound journal numbers taken, the documents locked (id order) and their lines
 * read, then the reports' documents inserted, the lines, statuses and payment events written. The
 * outcome of each report is the one journalStatusReport gives (reportEntry and outcomeEffects are
 * shared); the locks are taken in the pipeline's order (content, counter, documents, lines; the
 * caller records `audit` last). What the batch does not take is left `alone`.
 */
export async function journalStatusReportBatch(
  ctx: AppContext,
  tx: Tx,
  scope: CompanyScope,
  inputs: StatusReportInput[],
  audit: AuditEvent[],
): Promise<BatchReportOutcome[]> {
  const outcomes: BatchReportOutcome[] = inputs.map(() => ({ kind: 'alone' }));
  if (inputs.length === 0) return outcomes;
  const digests = inputs.map((i) => contentDigest(i.content));
  await lockInboundContents(tx, scope.companyId, digests);
  const existing = new Map<string, JournalDocumentRow>();
  for (const row of await findInboundByDigests(tx, scope, digests)) {
    if (row.contentDigest && !existing.has(row.contentDigest)) existing.set(row.contentDigest, row);
  }
  const byMessage = await findOutboundByMessageIds(
    tx,
    scope,
    inputs.flatMap((i) => (i.report.originalMessageId ? [i.report.originalMessageId] : [])),
  );

  const taken = reportsTaken(inputs, digests, existing, byMessage, outcomes);
  if (taken.length === 0) return outcomes;

  const journalNos = await nextJournalNos(tx, scope.companyId, 'inbound', taken.length);
  const outbound = new Map(
    (
      await lockDocuments(
        tx,
        scope,
        taken.map((t) => t.outboundId),
      )
    ).map((d) => [d.id, d]),
  );
  // Journal numbers are taken: a document gone now would leave a gap, so the batch is undone whole.
  if (outbound.size !== taken.length) throw new BatchDocumentGone('an outbound document of the batch is gone');
  // A report about a document whose delivery is not recorded yet is journaled and held (docs/adr/0074).
  const held = new Set(
    taken
      .filter((t) => inputs[t.at]!.holdWhileDelivering && deliveryUnrecorded(outbound.get(t.outboundId)!))
      .map((t) => t.at),
  );
  const lines = await listPaymentLinesOf(
    tx,
    scope,
    taken.filter((t) => !held.has(t.at)).map((t) => t.outboundId),
  );

  await writeTaken(ctx, tx, scope, { inputs, taken, journalNos, outbound, lines, held }, audit, outcomes);
  return outcomes;
}

type Taken = { at: number; outboundId: string; digest: string };

/**
 * Which reports the batch takes: new content, matched by message id, one report per document; a
 * report already journaled answers as deduped (into `outcomes`).
 */
function reportsTaken(
  inputs: StatusReportInput[],
  digests: string[],
  existing: Map<string, JournalDocumentRow>,
  byMessage: Map<string, string>,
  outcomes: BatchReportOutcome[],
): Taken[] {
  const taken: Taken[] = [];
  const seenDigests = new Set<string>();
  const seenDocuments = new Set<string>();
  for (const [at, input] of inputs.entries()) {
    const digest = digests[at]!;
    const found = existing.get(digest);
    if (found) {
      outcomes[at] = {
        kind: 'journaled',
        deduped: true,
        reportDocument: found,
        match: found.details?.match as StatusMatch,
      };
      continue;
    }
    const outboundId = input.report.originalMessageId ? byMessage.get(input.report.originalMessageId) : undefined;
    if (!outboundId || seenDigests.has(digest) || seenDocuments.has(outboundId)) continue;
    seenDigests.add(digest);
    seenDocuments.add(outboundId);
    taken.push({ at, outboundId, digest });
  }
  return taken;
}

/**
 * The taken reports' documents inserted, then every line, status and payment event they cause, set-wise;
 * a held report's document is inserted and its hold recorded, nothing applied.
 */
async function writeTaken(
  ctx: AppContext,
  tx: Tx,
  scope: CompanyScope,
  batch: {
    inputs: StatusReportInput[];
    taken: Taken[];
    journalNos: string[];
    outbound: Map<string, JournalDocumentRow>;
    lines: Map<string, PaymentLineRow[]>;
    held: Set<number>;
  },
  audit: AuditEvent[],
  outcomes: BatchReportOutcome[],
): Promise<void> {
  const { inputs, taken, journalNos, outbound, lines, held } = batch;
  const rows: NewJournalDocument[] = [];
  const effects: OutcomeEffects[] = [];
  const matches: StatusMatch[] = [];
  const ingested: AuditEvent[] = [];
  for (const [n, t] of taken.entries()) {
    const doc = outbound.get(t.outboundId)!;
    if (held.has(t.at)) {
      const entry = heldEntry(ctx, scope, inputs[t.at]!, doc, journalNos[n]!, t.digest);
      rows.push(entry.row);
      matches.push(entry.match);
      effects.push({ lineChanges: [], statusMove: null, paymentEvent: null, audit: [] });
      ingested.push(entry.ingested);
      continue;
    }
    const entry = reportEntry(ctx, scope, inputs[t.at]!, doc, lines.get(doc.id) ?? [], journalNos[n]!, t.digest);
    rows.push(entry.row);
    matches.push(entry.match);
    effects.push(outcomeEffects(scope, doc, entry.outcome, { id: entry.row.id!, journalNo: entry.row.journalNo }));
    ingested.push(entry.ingested);
  }
  const inserted = new Map((await insertDocuments(tx, rows)).map((d) => [d.id, d]));
  const now = ctx.clock.now();
  await holdStatusReports(
    tx,
    scope,
    taken.flatMap((t, n) =>
      held.has(t.at) ? [{ reportDocumentId: rows[n]!.id!, outboundDocumentId: t.outboundId }] : [],
    ),
    now,
  );
  await updateLinesOfDocuments(
    tx,
    scope,
    taken.flatMap((t, n) => effects[n]!.lineChanges.map((c) => ({ documentId: t.outboundId, ...c }))),
    now,
  );
  await updateDocumentStatuses(
    tx,
    scope,
    taken.flatMap((t, n) => {
      const move = effects[n]!.statusMove;
      return move ? [{ id: t.outboundId, ...move }] : [];
    }),
    now,
  );
  await emitPaymentEvents(
    ctx,
    tx,
    effects.flatMap((e): PaymentEvent[] => (e.paymentEvent ? [e.paymentEvent] : [])),
  );
  for (const [n, t] of taken.entries()) {
    audit.push(ingested[n]!, ...effects[n]!.audit);
    outcomes[t.at] = {
      kind: 'journaled',
      deduped: false,
      reportDocument: inserted.get(rows[n]!.id!)!,
      match: matches[n]!,
    };
  }
}
