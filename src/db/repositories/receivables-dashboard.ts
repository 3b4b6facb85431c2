import { and, asc, ne, sql } from 'drizzle-orm';
import type { CompanyScope, Executor } from '../executor.ts';
import { expectedPayments } from '../schema/index.ts';
import { inCompany } from '../tenant.ts';
import type { ExpectedRow } from './receivables.ts';

/** The Receivables page's expected payments: overdue first, then by the end of their window. */
export async function expectedOverdueFirst(q: Executor, scope: CompanyScope, limit: number): Promise<ExpectedRow[]> {
  return q
    .select()
    .from(expectedPayments)
    .where(and(inCompany(expectedPayments, scope), ne(expectedPayments.status, 'archived')))
    .orderBy(
      sql`(${expectedPayments.status} = 'overdue') DESC`,
      sql`(${expectedPayments.status} = 'reconciled')`,
      asc(expectedPayments.dateTo),
      asc(expectedPayments.id),
    )
    .limit(limit);
}

export type DaySum = { day: string; currency: string; minor: bigint };

/**
 * Per day and currency, from `from` to `to` (YYYY-MM-DD): what was expected (the least amount of each
 * expected payment not archived, on the last day of its window) and what was received (each credit
 * not reversed, on its booking date).
 */
export async function dailySums(
  q: Executor,
  scope: CompanyScope,
  from: string,
  to: string,
): Promise<{ expected: DaySum[]; received: DaySum[] }> {
  const expected = await q.execute<{ day: string; currency: string; minor: string }>(sql`
    SELECT to_char(date_to, 'YYYY-MM-DD') AS day, currency, sum(amount_min_minor)::text AS minor
      FROM expected_payments
     WHERE platform_id = ${scope.platformId} AND company_id = ${scope.companyId} AND status <> 'archived'
       AND date_to BETWEEN ${from}::date AND ${to}::date
     GROUP BY 1, 2`);
  const received = await q.execute<{ day: string; currency: string; minor: string }>(sql`
    SELECT to_char(coalesce(booking_date, value_date), 'YYYY-MM-DD') AS day, currency, sum(amount_minor)::text AS minor
      FROM incoming_payments
     WHERE platform_id = ${scope.platformId} AND company_id = ${scope.companyId} AND status <> 'returned'
       AND coalesce(booking_date, value_date) BETWEEN ${from}::date AND ${to}::date
     GROUP BY 1, 2`);
  const of = (rows: { day: string; currency: string; minor: string }[]) =>
    rows.map((r) => ({ day: r.day, currency: r.currency, minor: BigInt(r.minor) }));
  return { expected: of(expected.rows), received: of(received.rows) };
}
