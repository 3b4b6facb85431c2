import type { CompanyScope, Tx } from '../../db/executor.ts';
import { applyExpectedSums, type ExpectedRow, type MatchRow } from '../../db/repositories/receivables.ts';
import {
  type ExpectedPaymentStatus,
  expectedPaymentTransition,
  expectedStatusOf,
} from '../../domain/lifecycle/index.ts';
import { explainPair } from '../../domain/receivables/explain.ts';
import type { IncomingCredit } from '../../domain/receivables/matcher.ts';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import { emitEvents, type OutboxEvent } from '../events/outbox.ts';
import { matchView } from './expected-payments.ts';
import { candidateOf, type MatchSide, settingsOf } from './match.ts';
import { overdueEvent, todayOf } from './overdue.ts';

/**
 * What a person's match of either side shares (docs/adr/0069, 0077): the rows it writes, the expected
 * payments' new sums, and the view the manual-match routes answer.
 */

export type ExpectedChange = Map<string, { delta: bigint; settled: boolean | null }>;

/**
 * The expected payments' new sums and statuses through their transition function (409 for what it
 * refuses), written, with `expected_payment.overdue` for one an unmatch or a late partial match leaves
 * overdue (told once, docs/adr/0075). Shared by the credit and the debit forms (docs/adr/0077).
 */
export async function applyExpectedChange(
  ctx: AppContext,
  tx: Tx,
  scope: CompanyScope,
  expected: ExpectedRow[],
  change: ExpectedChange,
) {
  const today = todayOf(ctx);
  const writes = expected.map((e) => {
    const c = change.get(e.id)!;
    const matchedMinor = e.matchedMinor + c.delta;
    const settled = c.settled ?? e.settled;
    const from = e.status as ExpectedPaymentStatus;
    const to = expectedStatusOf({ ...e, matchedMinor, settled }, today);
    const t = expectedPaymentTransition(from, to);
    if (!t.ok) throw new AppError('conflict', t.reason);
    return { id: e.id, from, status: t.to, matchedMinor, settled };
  });
  await applyExpectedSums(tx, scope, writes, ctx.clock.now());
  const overdue: OutboxEvent[] = writes.flatMap((w) => {
    const e = expected.find((x) => x.id === w.id)!;
    return w.status === 'overdue' && w.from !== 'overdue' ? [overdueEvent(scope, { ...e, ...w }, w.from)] : [];
  });
  await emitEvents(ctx, tx, overdue);
  return writes;
}

/** A match with its undoing, as the manual-match routes answer it. */
export function manualMatchView(m: MatchRow, currency: string) {
  return {
    ...matchView(m, currency),
    unmatchedAt: m.unmatchedAt?.toISOString() ?? null,
    unmatchReason: m.unmatchReason,
  };
}

export type ManualActor = { actorUserId: string | null; actor: string; reason: string };
export type ManualRow = Omit<MatchRow, 'unmatchedAt' | 'unmatchedBy' | 'unmatchReason'>;

/** The matched side of a manual match: a credit (incoming payment) or a statement debit (docs/adr/0077). */
export type ManualSide = {
  direction: 'credit' | 'debit';
  /** As the matcher and the explanation read it. */
  credit: IncomingCredit;
  /** What the match row names. */
  columns: MatchSide;
  /** False when the side takes no match at all (a returned credit). */
  usable: boolean;
};

/**
 * The side's open amount given to the expected payments in the order named, each up to what it still
 * takes; 409 conflict for a currency or direction that differs, a side that takes nothing more, or a
 * credit (debit) used up before the last one.
 */
export async function manualRows(
  ctx: AppContext,
  tx: Tx,
  scope: CompanyScope,
  { side, expected }: { side: ManualSide; expected: ExpectedRow[] },
  by: ManualActor,
) {
  const now = ctx.clock.now();
  const p = side.credit;
  const what = side.direction === 'credit' ? 'the credit' : 'the debit';
  let open = p.amountMinor - p.matchedMinor;
  if (!side.usable || open <= 0n)
    throw new AppError(
      'conflict',
      side.direction === 'credit'
        ? 'the incoming payment has nothing left to match'
        : 'the statement entry has nothing left to match',
    );
  const settings = await settingsOf(tx, scope);
  const rows: ManualRow[] = [];
  const change: ExpectedChange = new Map();
  for (const e of expected) {
    if (e.currency !== p.currency)
      throw new AppError('conflict', `${e.id} is in ${e.currency}, ${what} in ${p.currency}`);
    if (e.direction !== side.direction)
      throw new AppError(
        'conflict',
        side.direction === 'credit'
          ? `${e.id} expects a debit; an incoming payment is a credit`
          : `${e.id} expects a credit; a statement debit is a debit`,
      );
    const room = e.settled || e.status === 'archived' ? 0n : e.amountMaxMinor - e.matchedMinor;
    if (room <= 0n) throw new AppError('conflict', `${e.id} takes no more`);
    if (open <= 0n) throw new AppError('conflict', `${what} is used up before ${e.id}`);
    const amount = open < room ? open : room;
    const explained = explainPair(p, candidateOf(e), settings);
    rows.push({
      id: ctx.ids.next('mat'),
      ...scope,
      incomingPaymentId: null,
      unmatchedEntryId: null,
      entryDocumentId: null,
      entryIndex: null,
      ...side.columns,
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
