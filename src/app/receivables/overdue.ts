import type { CompanyScope, Tx } from '../../db/executor.ts';
import { companiesWithOverdue, markOverdue } from '../../db/repositories/expected-overdue.ts';
import type { ExpectedRow } from '../../db/repositories/receivables.ts';
import type { ExpectedPaymentStatus } from '../../domain/lifecycle/index.ts';
import { amountText } from '../../domain/receivables/expected.ts';
import { recordEvents } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import { emitEvents, type OutboxEvent } from '../events/outbox.ts';

/** Companies swept per round (each in its own transaction). */
const COMPANIES = 100;

export const todayOf = (ctx: AppContext) => ctx.clock.now().toISOString().slice(0, 10);

/**
 * `expected_payment.overdue` of an expected payment that just became overdue (docs/adr/0075): the
 * amount still open is what a webhook's `minAmount` compares (`amount`), beside the expected amount.
 */
export function overdueEvent(scope: CompanyScope, e: ExpectedRow, from: ExpectedPaymentStatus): OutboxEvent {
  const open = e.settled || e.matchedMinor >= e.amountMinMinor ? 0n : e.amountMinMinor - e.matchedMinor;
  return {
    type: 'expected_payment.overdue',
    platformId: scope.platformId,
    companyId: scope.companyId,
    data: {
      expectedPaymentId: e.id,
      direction: e.direction,
      status: 'overdue',
      previousStatus: from,
      amount: amountText(open, e.currency),
      expectedAmount: amountText(e.amountMinMinor, e.currency),
      matchedAmount: amountText(e.matchedMinor, e.currency),
      currency: e.currency,
      dateFrom: e.dateFrom,
      dateTo: e.dateTo,
      reference: e.referenceValue,
      counterparty: { name: e.counterpartyName, iban: e.counterpartyIban },
    },
  };
}

/**
 * Moves the company's expected payments whose window passed with an open amount to `overdue` (the
 * statuses the transition table lets go there), in the caller's transaction, with one
 * `expected_payment.overdue` event each and one audit event for the lot. Readers call it before they
 * answer, the sweeper for every company: whichever comes first moves a payment, and only that one
 * emits its event.
 */
export async function moveOverdue(ctx: AppContext, tx: Tx, scope: CompanyScope): Promise<number> {
  const moved = await markOverdue(tx, scope, todayOf(ctx), ctx.clock.now());
  if (moved.length === 0) return 0;
  await emitEvents(
    ctx,
    tx,
    moved.map((m) => overdueEvent(scope, m.row, m.from)),
  );
  await recordEvents(ctx, tx, [
    {
      ...scope,
      type: 'expected_payment.overdue',
      message: `${moved.length} expected payments overdue (window passed with an open amount)`,
      metadata: { expectedPaymentIds: moved.map((m) => m.row.id) },
    },
  ]);
  return moved.length;
}

/** The overdue sweep (QUEUES.expectedOverdue): every company with a window passed, one transaction each. */
export async function sweepOverdue(ctx: AppContext): Promise<number> {
  let total = 0;
  for (;;) {
    const companies = await companiesWithOverdue(ctx.db, todayOf(ctx), COMPANIES);
    let moved = 0;
    for (const scope of companies) moved += await ctx.db.transaction((tx) => moveOverdue(ctx, tx, scope));
    total += moved;
    // A company whose rows were all locked by a match moved nothing: the next sweep takes it.
    if (companies.length < COMPANIES || moved === 0) break;
  }
  if (total > 0) ctx.logger.info({ overdue: total }, 'expected payments overdue');
  return total;
}
