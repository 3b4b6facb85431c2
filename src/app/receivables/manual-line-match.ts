import type { CompanyScope, Tx } from '../../db/executor.ts';
import {
  type EntryRow,
  entryAt,
  entryById,
  findLineMatch,
  insertLineMatch,
  type LineMatchRow,
  linesAt,
  liveLineMatchOf,
  type MatchLine,
  markLineUnmatched,
  setEntryMatched,
  setLine,
} from '../../db/repositories/line-matches.ts';
import {
  type DeliveryMode,
  evidenceRefusal,
  type LineState,
  lineTransition,
  type OutboundStatus,
} from '../../domain/lifecycle/index.ts';
import { amountText } from '../../domain/receivables/expected.ts';
import type { AppContext } from '../context.ts';
import { AppError, notFound } from '../errors.ts';
import type { Principal } from '../identity/principal.ts';
import { actorScope, tellPersonAct } from './actor.ts';
import { moveManualDocuments } from './manual-line-documents.ts';

/**
 * Manual matching of outbound lines (docs/adr/0076): a person says which pending lines a statement
 * debit paid that no rule matched (the exceptions queue's `unanswered-outbound` items and their
 * candidate entries). The lines go to `cleared` through lineTransition (event `booked`), with evidence
 * `rule: manual`, the actor and the reason; the entry leaves the unmatched list. The amounts must agree
 * exactly (the lines' sum is the entry's amount, one currency): a person's match is strict, as a
 * rule's would be. Undoing it (`unmatch`) puts the lines back to `pending` with their answer window,
 * so the queue shows them again, and the entry back among the unmatched. Either way the documents of
 * the lines follow (docs/adr/0079): every line settled with one cleared makes a run `executed`, as the
 * bank's booking does, and the undo takes it back to `sent` (moveManualDocuments).
 */

type LineRef = { documentId: string; index: number };

function lineMatchView(m: LineMatchRow, entry: { documentId: string; entryIndex: number | null }, currency: string) {
  return {
    id: m.id,
    rule: 'manual' as const,
    manual: true,
    amount: amountText(m.amountMinor, currency),
    amountDelta: amountText(0n, currency),
    entry: { documentId: entry.documentId, entryIndex: entry.entryIndex },
    outboundLines: m.lines.map((l) => ({ documentId: l.documentId, index: l.index })),
    actorUserId: m.actorUserId,
    reason: m.reason,
    createdAt: m.createdAt.toISOString(),
    unmatchedAt: m.unmatchedAt?.toISOString() ?? null,
    unmatchReason: m.unmatchReason,
  };
}

const days = (from: string | null, to: string | null) =>
  from === null || to === null ? null : Math.round((Date.parse(to) - Date.parse(from)) / 86_400_000);

/** POST /reconciliation/matches with `{entry, outboundLines}`: 201 `{matches: [the one match]}`. */
export async function manualLineMatch(
  ctx: AppContext,
  principal: Principal,
  body: {
    companyId: string;
    entry: { documentId: string; entryIndex: number };
    outboundLines: LineRef[];
    reason: string;
  },
) {
  const { scope, actorUserId, actor } = await actorScope(ctx, principal, body.companyId);
  const refs = body.outboundLines;
  if (refs.length === 0) throw invalidLines('at least one');
  if (new Set(refs.map((l) => `${l.documentId}\u0000${l.index}`)).size !== refs.length)
    throw invalidLines('a line is named twice');
  return ctx.db.transaction(async (tx) => {
    const lines = await linesAt(tx, scope, refs);
    const found = refs.map((r) => lines.find((l) => l.documentId === r.documentId && l.lineIndex === r.index));
    if (found.some((l) => l === undefined || l.direction !== 'outbound')) throw notFound('outbound line');
    const entry = await entryAt(tx, scope, body.entry);
    if (!entry) throw notFound('statement entry');
    if (entry.direction !== 'debit' || entry.reversal)
      throw new AppError('conflict', 'only a booked debit pays outbound lines (a credit or a reversal does not)');
    // Matched (even in part) to debit expected payments (docs/adr/0077) counts as matched.
    if (entry.matchedDocumentId !== null || entry.matchedMinor > 0n || (await liveLineMatchOf(tx, scope, entry.id)))
      throw new AppError('conflict', 'the statement entry is matched already');
    const now = ctx.clock.now();
    const matchId = ctx.ids.next('mat');
    const writes = pendingLines(found.map((l) => l!));
    const currency = entry.currency;
    checkAmounts(
      found.map((l) => l!),
      entry,
    );
    const row = await insertLineMatch(tx, {
      id: matchId,
      ...scope,
      unmatchedEntryId: entry.id,
      lines: writes.map((w) => ({
        documentId: w.line.documentId,
        index: w.line.lineIndex,
        openUntil: w.line.openUntil?.toISOString() ?? null,
      })),
      amountMinor: entry.amountMinor,
      actorUserId,
      actor,
      reason: body.reason,
      createdAt: now,
    });
    await clearLines(tx, scope, writes, { entry, matchId, actor, actorUserId, reason: body.reason, at: now });
    await setEntryMatched(tx, scope, entry.id, { documentId: entry.documentId, at: now });
    const view = lineMatchView(row, entry, currency);
    await tellLineMatch(ctx, tx, scope, { view, entry, refs, matchId }, { actor, actorUserId, reason: body.reason });
    const cleared = writes.map(({ line: l }) => ({
      documentId: l.documentId,
      index: l.lineIndex,
      endToEndId: l.endToEndId,
    }));
    await moveManualDocuments(ctx, tx, scope, {
      how: 'matched',
      lines: cleared,
      matchId,
      entry,
      actor,
      actorUserId,
      at: now,
    });
    return { matches: [view] };
  });
}

type LineWrite = { line: MatchLine; to: LineState };
type LineActor = { actor: string; actorUserId: string | null; reason: string };

/** Each named line with where `booked` takes it; 409 unless it is pending and its document takes evidence. */
function pendingLines(found: MatchLine[]): LineWrite[] {
  return found.map((line) => {
    const refusal = evidenceRefusal({
      status: line.documentStatus as OutboundStatus,
      deliveryMode: line.deliveryMode as DeliveryMode,
    });
    if (refusal !== undefined) throw new AppError('conflict', `${line.journalNo}: ${refusal}`);
    const move = lineTransition(line.state, { type: 'booked' });
    if (line.state !== 'pending' || !move.ok)
      throw new AppError('conflict', `line ${line.lineIndex} of ${line.journalNo} is ${line.state}, not pending`);
    return { line, to: move.to };
  });
}

/** 422 amounts_differ unless the lines are in the entry's currency and add up to it exactly. */
function checkAmounts(found: MatchLine[], entry: EntryRow): void {
  const currency = entry.currency;
  const sum = found.reduce((s, l) => s + l.amountMinor, 0n);
  if (found.some((l) => l.currency !== currency) || sum !== entry.amountMinor)
    throw new AppError('amounts_differ', 'the outbound lines do not add up to the statement entry', {
      entryAmount: entry.amount,
      linesAmount: found.every((l) => l.currency === currency) ? amountText(sum, currency) : 'mixed currencies',
      currency,
    });
}

/** Each line cleared with the manual evidence: the entry, the actor and the reason. */
async function clearLines(
  tx: Tx,
  scope: CompanyScope,
  writes: LineWrite[],
  m: LineActor & { entry: EntryRow; matchId: string; at: Date },
): Promise<void> {
  const { entry, actor } = m;
  for (const w of writes) {
    const evidence = {
      source: 'manual',
      rule: 'manual',
      manual: true,
      matchId: m.matchId,
      actor,
      actorUserId: m.actorUserId,
      reason: m.reason,
      documentId: entry.documentId,
      entryIndex: entry.entryIndex,
      bankRef: entry.bankRef,
      bookingDate: entry.bookingDate,
      amount: w.line.amount,
      daysDelta: days(w.line.executionDate, entry.bookingDate),
      summary: `matched by ${actor} to ${entry.amount} ${entry.currency} booked ${entry.bookingDate ?? '(no date)'}`,
    };
    await setLine(
      tx,
      scope,
      { documentId: w.line.documentId, index: w.line.lineIndex },
      { state: w.to, evidence, openUntil: null, at: m.at },
    );
  }
}

/** The `reconciliation.manual_match` event and the audit event naming the actor. */
async function tellLineMatch(
  ctx: AppContext,
  tx: Tx,
  scope: CompanyScope,
  m: { view: ReturnType<typeof lineMatchView>; entry: EntryRow; refs: LineRef[]; matchId: string },
  by: LineActor,
): Promise<void> {
  const { view, entry } = m;
  const { actor, actorUserId, reason } = by;
  await tellPersonAct(ctx, tx, scope, {
    type: 'reconciliation.manual_match',
    actorUserId,
    data: { entry: view.entry, matches: [view], reason, actorUserId },
    message: `${actor} matched entry ${entry.documentId}#${entry.entryIndex} to ${m.refs.length} outbound line(s): ${reason}`,
    metadata: { entry: view.entry, outboundLines: view.outboundLines, matchId: m.matchId, reason, actor },
  });
}

const invalidLines = (message: string) =>
  new AppError('validation_failed', `outboundLines: ${message}`, { issues: [{ path: 'outboundLines', message }] });

/**
 * DELETE /reconciliation/matches/{id} of a line match: each line back to `pending` (lineTransition,
 * event `unmatched`, manual) with no evidence and the answer window it had, the entry back among the
 * unmatched. Undefined when the id is no line match (the caller tries the receivables' matches).
 */
export async function unmatchLine(
  ctx: AppContext,
  principal: Principal,
  id: string,
  body: { companyId: string; reason: string },
) {
  const { scope, actorUserId, actor } = await actorScope(ctx, principal, body.companyId);
  return ctx.db.transaction(async (tx) => {
    const m = await findLineMatch(tx, scope, id);
    if (!m) return undefined;
    if (m.unmatchedAt !== null) throw new AppError('conflict', 'the match was already undone');
    const lines = await linesAt(tx, scope, m.lines);
    const entry = await entryById(tx, scope, m.unmatchedEntryId);
    if (!entry) throw notFound('match');
    const now = ctx.clock.now();
    const released: Array<{ documentId: string; index: number; endToEndId: string | null }> = [];
    for (const ref of m.lines) {
      const line = lines.find((l) => l.documentId === ref.documentId && l.lineIndex === ref.index);
      if (!line) continue;
      // Only a line this match cleared: a later return (rejected) or booking stays as the bank said.
      if (line.evidence?.['matchId'] !== m.id) continue;
      const move = lineTransition(line.state, { type: 'unmatched', manual: true });
      if (!move.ok) throw new AppError('conflict', `line ${ref.index} of ${line.journalNo}: ${move.reason}`);
      await setLine(tx, scope, ref, {
        state: move.to,
        evidence: null,
        openUntil: ref.openUntil === null ? null : new Date(ref.openUntil),
        at: now,
      });
      released.push({ documentId: ref.documentId, index: ref.index, endToEndId: line.endToEndId });
    }
    const done = await markLineUnmatched(tx, scope, id, { actor, reason: body.reason, at: now });
    if (!done) throw new AppError('conflict', 'the match was already undone');
    await setEntryMatched(tx, scope, entry.id, null);
    const view = lineMatchView(done, entry, entry.currency);
    await tellPersonAct(ctx, tx, scope, {
      type: 'reconciliation.unmatched',
      actorUserId,
      data: { match: view, reason: body.reason, actorUserId },
      message: `${actor} unmatched ${m.id} (entry ${entry.documentId}#${entry.entryIndex}): ${body.reason}`,
      metadata: { matchId: m.id, entry: view.entry, outboundLines: view.outboundLines, reason: body.reason, actor },
    });
    const by = { matchId: m.id, entry, actor, actorUserId, at: now };
    await moveManualDocuments(ctx, tx, scope, { how: 'unmatched', lines: released, ...by });
    return view;
  });
}
