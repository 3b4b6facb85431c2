import { liveMatches } from '../../db/repositories/receivables.ts';
import { dailySums, expectedOverdueFirst } from '../../db/repositories/receivables-dashboard.ts';
import type { AppContext } from '../context.ts';
import { requireCompanyMember } from '../identity/access.ts';
import { companyScope } from '../identity/company-scope.ts';
import type { SessionPrincipal } from '../identity/principal.ts';
import { expectedView } from '../receivables/expected-payments.ts';
import { moveOverdue, todayOf } from '../receivables/overdue.ts';

/** Expected payments shown on the page (overdue first). */
const LISTED = 100;
/** The chart's days: this many before today and after it. */
const DAYS_BACK = 30;
const DAYS_AHEAD = 14;
const DAY_MS = 86_400_000;

const dayText = (d: Date) => d.toISOString().slice(0, 10);

/**
 * The Receivables page: the company's expected payments against what was received for each (overdue
 * first, moved there first as every reader does), and per currency the amounts expected and received
 * per day from DAYS_BACK days ago to DAYS_AHEAD days ahead, every day of the range present.
 */
export async function dashboardReceivables(ctx: AppContext, session: SessionPrincipal, companyId: string) {
  requireCompanyMember(session, session.platformId, companyId);
  const scope = await companyScope(ctx, session, companyId);
  await ctx.db.transaction((tx) => moveOverdue(ctx, tx, scope));
  const today = new Date(`${todayOf(ctx)}T00:00:00Z`);
  const days: string[] = [];
  for (let d = -DAYS_BACK; d <= DAYS_AHEAD; d++) days.push(dayText(new Date(today.getTime() + d * DAY_MS)));
  const [rows, sums] = await Promise.all([
    expectedOverdueFirst(ctx.db, scope, LISTED),
    dailySums(ctx.db, scope, days[0]!, days[days.length - 1]!),
  ]);
  const matches = await liveMatches(ctx.db, scope, { expectedIds: rows.map((r) => r.id) });
  const currencies = [...new Set([...sums.expected, ...sums.received].map((s) => s.currency))].sort();
  const series = currencies.map((currency) => {
    const per = (list: typeof sums.expected) => {
      const byDay = new Map(list.filter((s) => s.currency === currency).map((s) => [s.day, s.minor]));
      return days.map((d) => byDay.get(d) ?? 0n);
    };
    return { currency, expected: per(sums.expected), received: per(sums.received) };
  });
  return {
    today: todayOf(ctx),
    expected: rows.map((r) =>
      expectedView(
        r,
        matches.filter((m) => m.expectedPaymentId === r.id),
      ),
    ),
    chart: { days, series },
  };
}
