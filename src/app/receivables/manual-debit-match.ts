import type { CompanyScope, Tx } from '../../db/executor.ts';
import { applyEntrySums, entriesByIds } from '../../db/repositories/debit-entries.ts';
import { type EntryRow, entryAt, liveLineMatchOf } from '../../db/repositories/line-matches.ts';
import {
  expectedByIds,
  insertMatches,
  liveMatches,
  type MatchRow,
  markUnmatched,
} from '../../db/repositories/receivables.ts';
import type { AppContext } from '../context.ts';
import { AppError, notFound } from '../errors.ts';
import type { Principal } from '../identity/principal.ts';
import { actorScope, tellPersonAct } from './actor.ts';
import { applyExpectedChange, type ManualActor, manualMatchView, manualRows } from './manual-rows.ts';
import { debitOf, entrySide } from './match-debits.ts';

/**
 * Manual matches of statement debits to debit expected payments (docs/adr/0077): `POST
 * /reconciliation/matches {entry {documentId, entryIndex}, expectedPaymentIds, reason}`, the debit
 * form of the credit's `{incomingPaymentId, expectedPaymentIds}` and built by the same `manualRows`
 * (the open amount given in the order named, each up to its most, rule `manual`, the actor and the
 * reason). The entry is a booked debit no outbound line took and no reversal; the unmatch
 * (`unmatchDebit`) gives both sides back their amounts, and the entry comes back to the unmatched list.
 */
export async function manualDebitMatch(
  ctx: AppContext,
  principal: Principal,
  body: { companyId: string; entry: { documentId: string; entryIndex: number }; ids: string[]; reason: string },
) {
  const { scope, actorUserId, actor } = await actorScope(ctx, principal, body.companyId);
  return ctx.db.transaction(async (tx) => {
    const entry = await entryAt(tx, scope, body.entry);
    if (!entry) throw notFound('statement entry');
    if (entry.direction !== 'debit' || entry.reversal)
      throw new AppError(
        'conflict',
        'only a booked debit pays a debit expected payment (a credit or a reversal does not)',
      );
    const byPerson = entry.matchedDocumentId !== null && entry.matchedMinor === 0n;
    if (byPerson || (await liveLineMatchOf(tx, scope, entry.id)))
      throw new AppError('conflict', 'the statement entry is matched to outbound lines');
    const found = await expectedByIds(tx, scope, body.ids);
    if (found.length !== body.ids.length) throw notFound('expected payment');
    const expected = body.ids.map((id) => found.find((e) => e.id === id)!);
    const by: ManualActor = { actorUserId, actor, reason: body.reason };
    const side = { direction: 'debit' as const, credit: debitOf(entry), columns: entrySide(entry), usable: true };
    const { rows, change, open } = await manualRows(ctx, tx, scope, { side, expected }, by);
    await insertMatches(tx, rows);
    await applyExpectedChange(ctx, tx, scope, expected, change);
    await applyEntrySums(
      tx,
      scope,
      [{ id: entry.id, matchedMinor: entry.amountMinor - open, expectedIds: body.ids }],
      ctx.clock.now(),
    );
    const views = rows.map((r) =>
      manualMatchView({ ...r, unmatchedAt: null, unmatchedBy: null, unmatchReason: null }, entry.currency),
    );
    const at = { documentId: entry.documentId, entryIndex: entry.entryIndex };
    await tellPersonAct(ctx, tx, scope, {
      type: 'reconciliation.manual_match',
      actorUserId,
      data: { entry: at, matches: views, reason: body.reason, actorUserId },
      message: `${actor} matched entry ${entry.documentId}#${entry.entryIndex} to ${body.ids.join(', ')}: ${body.reason}`,
      metadata: {
        entry: at,
        expectedPaymentIds: body.ids,
        matchIds: rows.map((r) => r.id),
        reason: body.reason,
        actor,
      },
    });
    return { matches: views };
  });
}

/**
 * DELETE of a match that names a statement debit: the expected payment's sum down by the match's
 * amount (a tolerance settlement undone with it) through its transition function, the entry's too (it
 * comes back among the unmatched), with `reconciliation.unmatched` and the audit naming the actor.
 */
export async function unmatchDebit(ctx: AppContext, tx: Tx, scope: CompanyScope, m: MatchRow, by: ManualActor) {
  const [entry] = await entriesByIds(tx, scope, [m.unmatchedEntryId!]);
  const [e] = await expectedByIds(tx, scope, [m.expectedPaymentId]);
  if (!entry || !e) throw notFound('match');
  if (e.status === 'archived') throw new AppError('conflict', 'the expected payment is archived');
  const done = await markUnmatched(tx, scope, m.id, { actor: by.actor, reason: by.reason, at: ctx.clock.now() });
  if (!done) throw new AppError('conflict', 'the match was already undone');
  await applyExpectedChange(
    ctx,
    tx,
    scope,
    [e],
    new Map([[e.id, { delta: -m.amountMinor, settled: m.settles ? false : null }]]),
  );
  await applyEntrySums(
    tx,
    scope,
    [
      {
        id: entry.id,
        matchedMinor: entry.matchedMinor - m.amountMinor,
        expectedIds: await stillMatching(tx, scope, entry),
      },
    ],
    ctx.clock.now(),
  );
  const view = manualMatchView(done, entry.currency);
  const at = { documentId: entry.documentId, entryIndex: entry.entryIndex };
  await tellPersonAct(ctx, tx, scope, {
    type: 'reconciliation.unmatched',
    actorUserId: by.actorUserId,
    data: { match: view, reason: by.reason, actorUserId: by.actorUserId },
    message: `${by.actor} unmatched ${m.id} (entry ${entry.documentId}#${entry.entryIndex} from ${e.id}): ${by.reason}`,
    metadata: { matchId: m.id, entry: at, expectedPaymentId: e.id, reason: by.reason, actor: by.actor },
  });
  return view;
}

/** The expected payments still matched to the entry (after the unmatch): its note when still matched in full. */
async function stillMatching(tx: Tx, scope: CompanyScope, entry: EntryRow): Promise<string[]> {
  return (await liveMatches(tx, scope, { entryIds: [entry.id] })).map((x) => x.expectedPaymentId);
}
