import type { CompanyScope, Tx } from '../../db/executor.ts';
import {
  applyExpectedSums,
  applyIncomingSums,
  type ExpectedRow,
  expectedByIds,
  findMatch,
  type IncomingRow,
  incomingByIds,
  insertMatches,
  type MatchRow,
  markUnmatched,
} from '../../db/repositories/receivables.ts';
import {
  type ExpectedPaymentStatus,
  expectedPaymentTransition,
  expectedStatusOf,
  type IncomingPaymentStatus,
  incomingPaymentTransition,
  incomingStatusOf,
} from '../../domain/lifecycle/index.ts';
import { explainPair } from '../../domain/receivables/explain.ts';
import type { AppContext } from '../context.ts';
import { AppError, notFound } from '../errors.ts';
import { emitEvents, type OutboxEvent } from '../events/outbox.ts';
import type { Principal } from '../identity/principal.ts';
import { actorScope, tellPersonAct } from './actor.ts';
import { matchView } from './expected-payments.ts';
import { manualLineMatch, unmatchLine } from './manual-line-match.ts';
import { candidateOf, creditOf, settingsOf } from './match.ts';
import { overdueEvent, todayOf } from './overdue.ts';

/**
 * Manual reconciliation (DESIGN.md, "Receivables, returns and exceptions"; docs/adr/0069): a person
 * matches a credit to expected payments, or undoes any match, with a reason; the audit names them.
 */

const invalid = (path: string, message: string) =>
  new AppError('validation_failed', `${path}: ${message}`, { issues: [{ path, message }] });

type Sides = { expected: ExpectedRow[]; incoming: IncomingRow };

/** Both sides' new sums and statuses through their transition functions; refuses what they refuse. */
async function applySums(
  ctx: AppContext,
  tx: Tx,
  scope: CompanyScope,
  sides: Sides,
  change: { expected: Map<string, { delta: bigint; settled: boolean | null }>; incomingDelta: bigint },
) {
  const today = todayOf(ctx);
  const writes = sides.expected.map((e) => {
    const c = change.expected.get(e.id)!;
    const matchedMinor = e.matchedMinor + c.delta;
    const settled = c.settled ?? e.settled;
    const from = e.status as ExpectedPaymentStatus;
    const to = expectedStatusOf({ ...e, matchedMinor, settled }, today);
    const t = expectedPaymentTransition(from, to);
    if (!t.ok) throw new AppError('conflict', t.reason);
    return { id: e.id, from, status: t.to, matchedMinor, settled };
  });
  const p = sides.incoming;
  const matchedMinor = p.matchedMinor + change.incomingDelta;
  const from = p.status as IncomingPaymentStatus;
  const t = incomingPaymentTransition(from, incomingStatusOf({ ...p, matchedMinor }));
  if (!t.ok) throw new AppError('conflict', t.reason);
  await applyExpectedSums(tx, scope, writes, ctx.clock.now());
  // An unmatch after the window, or a late partial match, leaves it overdue: told once (docs/adr/0075).
  const overdue: OutboxEvent[] = writes.flatMap((w) => {
    const e = sides.expected.find((x) => x.id === w.id)!;
    return w.status === 'overdue' && w.from !== 'overdue' ? [overdueEvent(scope, { ...e, ...w }, w.from)] : [];
  });
  await emitEvents(ctx, tx, overdue);
  await applyIncomingSums(tx, scope, [{ id: p.id, from, status: t.to, matchedMinor }]);
  return { expected: writes, incoming: t.to };
}

/** A match with its undoing, as the manual-match routes answer it. */
function manualMatchView(m: MatchRow, currency: string) {
  return {
    ...matchView(m, currency),
    unmatchedAt: m.unmatchedAt?.toISOString() ?? null,
    unmatchReason: m.unmatchReason,
  };
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
  // The outbound form: a statement debit and the lines it paid (manual-line-match.ts, docs/adr/0076).
  if (body.entry !== undefined || body.outboundLines !== undefined) {
    if (body.incomingPaymentId !== undefined || body.expectedPaymentIds !== undefined)
      throw invalid('entry', 'either incomingPaymentId and expectedPaymentIds, or entry and outboundLines');
    if (body.entry === undefined) throw invalid('entry', 'required with outboundLines');
    if (body.outboundLines === undefined) throw invalid('outboundLines', 'required with entry');
    return manualLineMatch(ctx, principal, { ...body, entry: body.entry, outboundLines: body.outboundLines });
  }
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
    const { rows, change, open } = await manualRows(ctx, tx, scope, { p, expected }, by);
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

type ManualActor = { actorUserId: string | null; actor: string; reason: string };
type ManualRow = Omit<MatchRow, 'unmatchedAt' | 'unmatchedBy' | 'unmatchReason'>;

/**
 * The credit's open amount given to the expected payments in the order named, each up to what it still
 * takes; 409 conflict for a currency or direction that differs, a side that takes nothing more, or a
 * credit used up before the last one.
 */
async function manualRows(
  ctx: AppContext,
  tx: Tx,
  scope: CompanyScope,
  { p, expected }: { p: IncomingRow; expected: ExpectedRow[] },
  by: ManualActor,
) {
  const now = ctx.clock.now();
  let open = p.amountMinor - p.matchedMinor;
  if (p.status === 'returned' || open <= 0n)
    throw new AppError('conflict', 'the incoming payment has nothing left to match');
  const settings = await settingsOf(tx, scope);
  const rows: ManualRow[] = [];
  const change = new Map<string, { delta: bigint; settled: boolean | null }>();
  for (const e of expected) {
    if (e.currency !== p.currency)
      throw new AppError('conflict', `${e.id} is in ${e.currency}, the credit in ${p.currency}`);
    if (e.direction !== 'credit')
      throw new AppError('conflict', `${e.id} expects a debit; an incoming payment is a credit`);
    const room = e.settled || e.status === 'archived' ? 0n : e.amountMaxMinor - e.matchedMinor;
    if (room <= 0n) throw new AppError('conflict', `${e.id} takes no more`);
    if (open <= 0n) throw new AppError('conflict', `the credit is used up before ${e.id}`);
    const amount = open < room ? open : room;
    const explained = explainPair(creditOf(p), candidateOf(e), settings);
    rows.push({
      id: ctx.ids.next('mat'),
      ...scope,
      incomingPaymentId: p.id,
      expectedPaymentId: e.id,
      rule: 'manual',
      manual: true,
      settles: false,
      amountMinor: amount,
      amountDeltaMinor: explained.amountDeltaMinor,
      daysDelta: explained.daysDelta,
      actorUserId: by.actorUserId,
      reason: by.reason,
      createdAt: now,
    });
    change.set(e.id, { delta: amount, settled: null });
    open -= amount;
  }
  return { rows, change, open };
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
    const [p] = await incomingByIds(tx, scope, [m.incomingPaymentId]);
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
