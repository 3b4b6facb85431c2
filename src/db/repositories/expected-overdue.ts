import { and, inArray, sql } from 'drizzle-orm';
import {
  EXPECTED_PAYMENT_STATUSES,
  type ExpectedPaymentStatus,
  expectedPaymentTransition,
  statusesMovingTo,
} from '../../domain/lifecycle/index.ts';
import type { CompanyScope, Executor } from '../executor.ts';
import { expectedPayments } from '../schema/index.ts';
import { inCompany } from '../tenant.ts';
import type { ExpectedRow } from './receivables.ts';

/**
 * The statuses an expected payment with an open amount may leave for `overdue`, as the transition
 * table says (reconciled has nothing open; overdue is there already; archived is final).
 */
export const OVERDUE_FROM: ExpectedPaymentStatus[] = statusesMovingTo(
  EXPECTED_PAYMENT_STATUSES,
  expectedPaymentTransition,
  'overdue',
).filter((s) => s !== 'overdue' && s !== 'reconciled');

/**
 * The company's open expected payments whose window passed become overdue, set-wise; the rows moved
 * (with the status each left) come back, so each gets its `expected_payment.overdue` exactly once: a
 * second writer's conditional update finds them overdue already and moves nothing.
 */
export async function markOverdue(
  q: Executor,
  scope: CompanyScope,
  today: string,
  now: Date,
): Promise<Array<{ row: ExpectedRow; from: ExpectedPaymentStatus }>> {
  const before = await q
    .select({ id: expectedPayments.id, status: expectedPayments.status })
    .from(expectedPayments)
    .where(
      and(
        inCompany(expectedPayments, scope),
        inArray(expectedPayments.status, OVERDUE_FROM),
        sql`${expectedPayments.dateTo} < ${today}::date`,
      ),
    )
    .for('update', { skipLocked: true });
  if (before.length === 0) return [];
  const rows = await q
    .update(expectedPayments)
    .set({ status: 'overdue', updatedAt: now })
    .where(
      and(
        inCompany(expectedPayments, scope),
        inArray(
          expectedPayments.id,
          before.map((b) => b.id),
        ),
        inArray(expectedPayments.status, OVERDUE_FROM),
      ),
    )
    .returning();
  const from = new Map(before.map((b) => [b.id, b.status as ExpectedPaymentStatus]));
  return rows.sort((a, b) => (a.id < b.id ? -1 : 1)).map((row) => ({ row, from: from.get(row.id)! }));
}

/** The companies that have an open expected payment whose window passed (the sweeper's work list). */
export async function companiesWithOverdue(q: Executor, today: string, limit: number): Promise<CompanyScope[]> {
  return q
    .selectDistinct({ platformId: expectedPayments.platformId, companyId: expectedPayments.companyId })
    .from(expectedPayments)
    .where(and(inArray(expectedPayments.status, OVERDUE_FROM), sql`${expectedPayments.dateTo} < ${today}::date`))
    .limit(limit);
}
