import { listOverdueLines, listRejectedLines } from '../../db/repositories/recon-lines.ts';
import type { AppContext } from '../context.ts';
import { requireCompanyMember } from '../identity/access.ts';
import { companyScope } from '../identity/company-scope.ts';
import type { SessionPrincipal } from '../identity/principal.ts';
import { reconciliationPage } from '../journal/reconciliation.ts';
import { USUAL_ANSWER_MS } from './overview.ts';

const LISTED = 100;
/** Rejected lines are listed from the documents of this many days. */
const REJECTED_DAYS = 90;

/**
 * The reconciliation page: pending lines past the usual answer time (oldest first), rejected lines
 * with their reason, and the newest documents' reconciliation states (GET /journal/reconciliation).
 */
export async function dashboardReconciliation(
  ctx: AppContext,
  session: SessionPrincipal,
  companyId: string,
  cursor: string | undefined,
) {
  requireCompanyMember(session, session.platformId, companyId);
  const scope = await companyScope(ctx, session, companyId);
  const now = ctx.clock.now();
  const [late, rejected, documents] = await Promise.all([
    listOverdueLines(ctx.db, scope, new Date(now.getTime() - USUAL_ANSWER_MS), LISTED),
    listRejectedLines(ctx.db, scope, new Date(now.getTime() - REJECTED_DAYS * 86_400_000), LISTED),
    reconciliationPage(ctx, session, { companyId, limit: 50, cursor }),
  ]);
  const age = (at: Date) => Math.floor((now.getTime() - at.getTime()) / 86_400_000);
  return {
    late: late.map((l) => ({ ...l, ageDays: age(l.updatedAt) })),
    rejected,
    documents,
  };
}
