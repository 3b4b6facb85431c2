import { listOverdueLines, tallyLineStates } from '../../db/repositories/recon-lines.ts';
import { OUTBOUND_STATUSES } from '../../domain/lifecycle/index.ts';
import { countApprovalsForMe } from '../approvals/for-me.ts';
import { listQueue } from '../approvals/queue.ts';
import { listCompanyConnections } from '../connections/connections.ts';
import type { AppContext } from '../context.ts';
import { isCompanyAdmin, requireCompanyMember } from '../identity/access.ts';
import { companyScope } from '../identity/company-scope.ts';
import type { SessionPrincipal } from '../identity/principal.ts';
import { listDocuments } from '../journal/read-documents.ts';
import { listCompanyEndpoints } from '../webhooks/endpoints.ts';

/**
 * How long a bank usually takes to answer a payment (a pain.002 the same day, the booking on the next
 * statement): pending lines older than this are worth a look. The matching window (45 days,
 * answerDeadline) is much longer; this is the "should have heard by now" mark.
 */
export const USUAL_ANSWER_MS = 2 * 24 * 60 * 60 * 1000;
/** The overview counts late lines up to this many (it says "at least" beyond). */
const LATE_COUNTED = 1000;
/** The overview names this many of the approvals waiting for the user (the oldest); the count is exact. */
const APPROVALS_NAMED = 10;

function utcDay(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/**
 * The dashboard's overview, read through the API's use cases: outbound documents by status today
 * and this month (GET /journal/documents totals), the pending approvals the user may decide
 * (GET /approvals), line reconciliation this month, late lines, and
 * for an admin the failing webhook endpoints and the connections that are not ready.
 */
export async function dashboardOverview(ctx: AppContext, session: SessionPrincipal, companyId: string) {
  requireCompanyMember(session, session.platformId, companyId);
  const scope = await companyScope(ctx, session, companyId);
  const now = ctx.clock.now();
  const today = utcDay(now);
  const monthStart = `${today.slice(0, 8)}01`;
  const count = async (status: string, dateFrom: string) =>
    (await listDocuments(ctx, session, { companyId, direction: 'outbound', status, dateFrom, limit: 1 })).total;
  const byStatus = await Promise.all(
    OUTBOUND_STATUSES.map(async (status) => ({
      status,
      today: await count(status, today),
      month: await count(status, monthStart),
    })),
  );
  const [lines, late, counts] = await Promise.all([
    tallyLineStates(ctx.db, scope, new Date(`${monthStart}T00:00:00Z`)),
    listOverdueLines(ctx.db, scope, new Date(now.getTime() - USUAL_ANSWER_MS), LATE_COUNTED + 1),
    countApprovalsForMe(ctx, session, scope),
  ]);
  // The oldest few the user may decide, named; read only when there are some.
  const queue =
    counts.forMe > 0
      ? (await listQueue(ctx, session, { platformId: scope.platformId, companyId, status: 'pending', limit: 200 }))
          .items
      : [];
  const admin = isCompanyAdmin(session, companyId);
  const endpoints = admin ? (await listCompanyEndpoints(ctx, session, { companyId, limit: 100 })).items : [];
  const connections = admin ? (await listCompanyConnections(ctx, session, scope.platformId, companyId)).items : [];
  return {
    byStatus,
    /** The oldest pending approvals the user may approve now (at most APPROVALS_NAMED of the oldest 200). */
    approvalsForMe: queue.filter((a) => a.canApprove).slice(0, APPROVALS_NAMED),
    /** How many pending approvals the user may approve now, and how many are pending: exact counts. */
    approvalsForMeCount: counts.forMe,
    pendingApprovals: counts.pending,
    lines: { ...lines, late: Math.min(late.length, LATE_COUNTED), lateMore: late.length > LATE_COUNTED },
    failingEndpoints: endpoints.filter((e) => e.status !== 'enabled' || e.consecutiveFailures > 0),
    unreadyConnections: connections
      .filter((c) => c.readiness['ready'] !== true)
      .map((c) => ({ id: c.id, bankName: c.bankName, environment: c.environment, missing: c.readiness['missing'] })),
    admin,
  };
}
