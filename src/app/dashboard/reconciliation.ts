import { listOverdueLines, listRejectedLines } from '../../db/repositories/recon-lines.ts';
import { countUnmatchedEntries, listUnmatchedEntries } from '../../db/repositories/unmatched-entries.ts';
import type { AppContext } from '../context.ts';
import { badRequest } from '../errors.ts';
import { requireCompanyMember } from '../identity/access.ts';
import { companyScope } from '../identity/company-scope.ts';
import type { SessionPrincipal } from '../identity/principal.ts';
import { reconciliationPage } from '../journal/reconciliation.ts';
import { decodeCursor, encodeCursor } from '../pagination.ts';
import { USUAL_ANSWER_MS } from './overview.ts';

const LISTED = 100;
/** Unmatched statement entries per page. */
const ENTRIES_PAGE = 50;
/** Rejected lines are listed from the documents of this many days. */
const REJECTED_DAYS = 90;

function entriesBefore(cursor: string | undefined): number | undefined {
  const key = decodeCursor(cursor);
  if (key === undefined) return undefined;
  const id = Number(key);
  if (!Number.isSafeInteger(id) || id < 1) throw badRequest('invalid cursor');
  return id;
}

/**
 * The reconciliation page: pending lines past the usual answer time (oldest first), rejected lines
 * with their reason, booked statement entries that matched no payment line (newest first, keyset
 * paged by `entriesCursor`; docs/adr/0047), and the newest documents' reconciliation states
 * (GET /journal/reconciliation).
 */
export async function dashboardReconciliation(
  ctx: AppContext,
  session: SessionPrincipal,
  companyId: string,
  cursor: string | undefined,
  entriesCursor?: string | undefined,
) {
  requireCompanyMember(session, session.platformId, companyId);
  const scope = await companyScope(ctx, session, companyId);
  const now = ctx.clock.now();
  const before = entriesBefore(entriesCursor);
  const [late, rejected, documents, entries, unmatchedTotal] = await Promise.all([
    listOverdueLines(ctx.db, scope, new Date(now.getTime() - USUAL_ANSWER_MS), LISTED),
    listRejectedLines(ctx.db, scope, new Date(now.getTime() - REJECTED_DAYS * 86_400_000), LISTED),
    reconciliationPage(ctx, session, { companyId, limit: 50, cursor }),
    listUnmatchedEntries(ctx.db, scope, before, ENTRIES_PAGE + 1),
    countUnmatchedEntries(ctx.db, scope),
  ]);
  const more = entries.length > ENTRIES_PAGE;
  const shown = more ? entries.slice(0, ENTRIES_PAGE) : entries;
  const age = (at: Date) => Math.floor((now.getTime() - at.getTime()) / 86_400_000);
  return {
    late: late.map((l) => ({ ...l, ageDays: age(l.updatedAt) })),
    rejected,
    documents,
    unmatched: {
      items: shown,
      total: unmatchedTotal,
      nextCursor: more ? encodeCursor(String(shown[shown.length - 1]!.id)) : null,
    },
  };
}
