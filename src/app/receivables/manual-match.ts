import type { CompanyScope, Tx } from '../../db/executor.ts';
import {
  applyIncomingSums,
  type ExpectedRow,
  expectedByIds,
  findMatch,
  type IncomingRow,
  incomingByIds,
  insertMatches,
  markUnmatched,
} from '../../db/repositories/receivables.ts';
import {
  type IncomingPaymentStatus,
  incomingPaymentTransition,
  incomingStatusOf,
} from '../../domain/lifecycle/index.ts';
import type { AppContext } from '../context.ts';
import { AppError, notFound } from '../errors.ts';
import type { Principal } from '../identity/principal.ts';
import { actorScope, tellPersonAct } from './actor.ts';
import { manualDebitMatch, unmatchDebit } from './manual-debit-match.ts';
import { manualLineMatch, unmatchLine } from './manual-line-match.ts';
import {
  applyExpectedChange,
  type ExpectedChange,
  type ManualActor,
  type ManualRow,
  type ManualSide,
  manualMatchView,
  manualRows,
} from './manual-rows.ts';
import { creditOf } from './match.ts';

/**
 * Manual reconciliation (DESIGN.md, "Receivables, returns and exceptions"; docs/adr/0069): a person
 * matches a credit to expected payments, or undoes any match, with a reason; the audit names them.
 */

const invalid = (path: string, message: string) =>
  new AppError('validation_failed', `${path}: ${message}`, { issues: [{ path, message }] });

/** Both sides' new sums and statuses through their transition functions; refuses what they refuse. */
async function applySums(
  ctx: AppContext,
  tx: Tx,
  scope: CompanyScope,
  sides: { expected: ExpectedRow[]; incoming: IncomingRow },
  change: { expected: ExpectedChange; incomingDelta: bigint },
) {
  const p = sides.incoming;
  const matchedMinor = p.matchedMinor + change.incomingDelta;
  const from = p.status as IncomingPaymentStatus;
  const t = incomingPaymentTransition(from, incomingStatusOf({ ...p, matchedMinor }));
  if (!t.ok) throw new AppError('conflict', t.reason);
  const expected = await applyExpectedChange(ctx, tx, scope, sides.expected, change.expected);
  await applyIncomingSums(tx, scope, [{ id: p.id, from, status: t.to, matchedMinor }]);
  return { expected, incoming: t.to };
}

type ManualBody = Parameters<typeof manualMatch>[2];

/** The two forms that name a statement entry; 400 when a form is mixed with another or incomplete. */
function entryForm(ctx: AppContext, principal: Principal, body: ManualBody) {
  const either = 'either incomingPaymentId and expectedPaymentIds, or entry with outboundLines or expectedPaymentIds';
  if (body.incomingPaymentId !== undefined) throw invalid('entry', either);
  if (body.entry === undefined) throw invalid('entry', 'required with outboundLines');
  if (body.outboundLines !== undefined && body.expectedPaymentIds !== undefined) throw invalid('entry', either);
  if (body.outboundLines !== undefined)
    return manualLineMatch(ctx, principal, { ...body, entry: body.entry, outboundLines: body.outboundLines });
  const ids = [...new Set(body.expectedPaymentIds ?? [])];
  if (ids.length === 0) throw invalid('expectedPaymentIds', 'at least one (or outboundLines) with entry');
  return manualDebitMatch(ctx, principal, { companyId: body.companyId, entry: body.entry, ids, reason: body.reason });
}

/**
 * POST /reconciliation/matches: a person says "this is the one". The credit's open amount goes to the
 * expected payments in the order given, each up to what it still takes (its most); one match each,
 * `manual`, rule `manual`, with the reason and the actor. 409 conflict when a side takes nothing more.
 */
export async function manualMatch(
  ctx: AppContext,
  principal: Principal,
  body: {
    companyId: string;
    incomingPaymentId?: string | undefined;
    expectedPaymentIds?: string[] | undefined;
    reason: string;
    entry?: { documentId: string; entryIndex: number } | undefined;
    outboundLines?: { documentId: string; index: number }[] | undefined;
  },
) {
  // The statement-entry forms: a debit and the outbound lines it paid (manual-line-match.ts, docs/adr/0076),
  // or a debit and the debit expected payments it settles (manual-debit-match.ts, docs/adr/0077).
  if (body.entry !== undefined || body.outboundLines !== undefined) return entryForm(ctx, principal, body);
  const { scope, actorUserId, actor } = await actorScope(ctx, principal, body.companyId);
  if (!body.incomingPaymentId) throw invalid('incomingPaymentId', 'required');
  const ids = [...new Set(body.expectedPaymentIds ?? [])];
  if (ids.length === 0) throw invalid('expectedPaymentIds', 'at least one');
  const incomingId = body.incomingPaymentId;
  return ctx.db.transaction(async (tx) => {
    const [p] = await incomingByIds(tx, scope, [incomingId]);
    if (!p) throw notFound('incoming payment');
    const found = await expectedByIds(tx, scope, ids);
    if (found.length !== ids.length) throw notFound('expected payment');
    const expected = ids.map((id) => found.find((e) => e.id === id)!);
    const by: ManualActor = { actorUserId, actor, reason: body.reason };
    const side: ManualSide = {
      direction: 'credit',
      credit: creditOf(p),
      columns: { incomingPaymentId: p.id },
      usable: p.status !== 'returned',
    };
    const { rows, change, open } = await manualRows(ctx, tx, scope, { side, expected }, by);
    await insertMatches(tx, rows);
    await applySums(
      ctx,
      tx,
      scope,
      { expected, incoming: p },
      { expected: change, incomingDelta: p.amountMinor - p.matchedMinor - open },
    );
    const views = rows.map((r) =>
      manualMatchView({ ...r, unmatchedAt: null, unmatchedBy: null, unmatchReason: null }, p.currency),
    );
    await tellManualMatch(ctx, tx, scope, { p, ids, rows, views }, by);
    return { matches: views };
  });
}

/** The `reconciliation.manual_match` event and the audit event naming the actor. */
async function tellManualMatch(
  ctx: AppContext,
  tx: Tx,
  scope: CompanyScope,
  m: { p: IncomingRow; ids: string[]; rows: ManualRow[]; views: ReturnType<typeof manualMatchView>[] },
  by: ManualActor,
) {
  const { actorUserId, actor, reason } = by;
  await tellPersonAct(ctx, tx, scope, {
    type: 'reconciliation.manual_match',
    actorUserId,
    data: { incomingPaymentId: m.p.id, matches: m.views, reason, actorUserId },
    message: `${actor} matched ${m.p.id} to ${m.ids.join(', ')}: ${reason}`,
    metadata: {
      incomingPaymentId: m.p.id,
      expectedPaymentIds: m.ids,
      matchIds: m.rows.map((r) => r.id),
      reason,
      actor,
    },
  });
}

/** DELETE /reconciliation/matches/{id}: undoes a match (manual or automatic); both sides return to the queue. */
export async function unmatch(
  ctx: AppContext,
  principal: Principal,
  id: string,
  body: { companyId: string; reason: string },
) {
  const line = await unmatchLine(ctx, principal, id, body);
  if (line !== undefined) return line;
  const { scope, actorUserId, actor } = await actorScope(ctx, principal, body.companyId);
  return ctx.db.transaction(async (tx) => {
    const m = await findMatch(tx, scope, id);
    if (!m) throw notFound('match');
    if (m.unmatchedAt !== null) throw new AppError('conflict', 'the match was already undone');
    // A match naming a statement debit (a debit expected payment's, docs/adr/0077).
    if (m.unmatchedEntryId !== null)
      return unmatchDebit(ctx, tx, scope, m, { actorUserId, actor, reason: body.reason });
    const [p] = await incomingByIds(tx, scope, [m.incomingPaymentId!]);
    const [e] = await expectedByIds(tx, scope, [m.expectedPaymentId]);
    if (!p || !e) throw notFound('match');
    if (e.status === 'archived') throw new AppError('conflict', 'the expected payment is archived');
    const done = await markUnmatched(tx, scope, id, { actor, reason: body.reason, at: ctx.clock.now() });
    if (!done) throw new AppError('conflict', 'the match was already undone');
    await applySums(
      ctx,
      tx,
      scope,
      { expected: [e], incoming: p },
      {
        expected: new Map([[e.id, { delta: -m.amountMinor, settled: m.settles ? false : null }]]),
        incomingDelta: -m.amountMinor,
      },
    );
    const view = manualMatchView(done, p.currency);
    await tellPersonAct(ctx, tx, scope, {
      type: 'reconciliation.unmatched',
      actorUserId,
      data: { match: view, reason: body.reason, actorUserId },
      message: `${actor} unmatched ${m.id} (${p.id} from ${e.id}): ${body.reason}`,
      metadata: { matchId: m.id, incomingPaymentId: p.id, expectedPaymentId: e.id, reason: body.reason, actor },
    });
    return view;
  });
}
