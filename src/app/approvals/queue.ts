import type { Executor } from '../../db/executor.ts';
import {
  type ApprovalWithDocument,
  findApproval,
  findApprovalCompany,
  listApprovals,
  listLinesOf,
  userNames,
} from '../../db/repositories/approvals.ts';
import { APPROVAL_STATUSES, type ApprovalStatus } from '../../domain/lifecycle/index.ts';
import type { AppContext } from '../context.ts';
import { badRequest, notFound } from '../errors.ts';
import { assertPlatform, requireCompanyMember, requireSession } from '../identity/access.ts';
import { companyScope } from '../identity/company-scope.ts';
import type { Principal } from '../identity/principal.ts';
import { decodeCursor, encodeCursor } from '../pagination.ts';
import { hasSecondFactor } from './second-factor.ts';
import { type ApprovalView, approvalView, type Viewer, viewerOf } from './view.ts';

/** GET /approvals page size: default 50, at most 200. */
const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 200;

/** The viewer of approvals in a company; whether they have 2FA is read only when a rule needs it. */
export async function viewerFor(
  q: Executor,
  principal: Principal,
  companyId: string,
  needsTwoFactor: boolean,
): Promise<Viewer> {
  const enrolled =
    principal.kind === 'session' && needsTwoFactor
      ? await hasSecondFactor(q, principal.platformId, principal.user.id)
      : false;
  return viewerOf(principal, companyId, enrolled);
}

/** Views of approvals with their documents: the lines and the decision makers' names in one query each. */
export async function viewsOf(
  q: Executor,
  scope: { platformId: string; companyId: string },
  rows: ApprovalWithDocument[],
  viewer: Viewer,
): Promise<ApprovalView[]> {
  const lines = await listLinesOf(
    q,
    scope,
    rows.map((r) => r.approval.documentId),
  );
  const deciders = [...new Set(rows.flatMap((r) => r.approval.decisions.map((d) => d.userId)))];
  const names = await userNames(q, scope.platformId, deciders);
  return rows.map((r) =>
    approvalView(
      r.approval,
      {
        documentId: r.approval.documentId,
        journalNo: r.journalNo,
        messageId: r.messageId,
        totals: r.totals,
        lines: lines.filter((l) => l.documentId === r.approval.documentId),
      },
      viewer,
      names,
    ),
  );
}

/** GET /approvals/{id}: any member of the company (a workspace admin of its platform too). */
export async function readApproval(ctx: AppContext, principal: Principal, id: string): Promise<ApprovalView> {
  const session = requireSession(principal);
  const found = await findApprovalCompany(ctx.db, session.platformId, id);
  if (!found) throw notFound('approval');
  requireCompanyMember(session, session.platformId, found.companyId);
  const scope = { platformId: session.platformId, companyId: found.companyId };
  const row = await findApproval(ctx.db, scope, id);
  if (!row) throw notFound('approval');
  const viewer = await viewerFor(ctx.db, principal, scope.companyId, row.approval.rules.twoFactorRequired);
  const [view] = await viewsOf(ctx.db, scope, [row], viewer);
  return view!;
}

export type QueueQuery = {
  platformId: string;
  companyId: string;
  status?: string | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
};

function statusOf(text: string | undefined): ApprovalStatus {
  if (text === undefined || text === '') return 'pending';
  const found = APPROVAL_STATUSES.find((s) => s === text);
  if (!found) throw badRequest(`status must be one of ${APPROVAL_STATUSES.join(', ')}`, { field: 'status' });
  return found;
}

function afterOf(cursor: string | undefined): { createdAt: Date; id: string } | undefined {
  const key = decodeCursor(cursor);
  if (key === undefined) return undefined;
  const [at, id] = key.split('|');
  const createdAt = new Date(at ?? '');
  if (!id || Number.isNaN(createdAt.getTime())) throw badRequest('invalid cursor');
  return { createdAt, id };
}

/** GET /approvals: the company's approvals in one status (default pending), oldest first, keyset paged. */
export async function listQueue(ctx: AppContext, principal: Principal, query: QueueQuery) {
  const session = requireSession(principal);
  assertPlatform(session, query.platformId);
  requireCompanyMember(session, query.platformId, query.companyId);
  const status = statusOf(query.status);
  const limit = Math.min(Math.max(query.limit ?? DEFAULT_LIMIT, 1), MAX_LIMIT);
  // A company that does not exist is 404, one of another platform 403 (a workspace admin names any).
  const scope = await companyScope(ctx, principal, query.companyId, query.platformId);
  const rows = await listApprovals(ctx.db, scope, status, afterOf(query.cursor), limit + 1);
  const more = rows.length > limit;
  const pageRows = more ? rows.slice(0, limit) : rows;
  const viewer = await viewerFor(
    ctx.db,
    principal,
    scope.companyId,
    pageRows.some((r) => r.approval.rules.twoFactorRequired),
  );
  const items = await viewsOf(ctx.db, scope, pageRows, viewer);
  const last = pageRows[pageRows.length - 1]?.approval;
  return {
    items,
    nextCursor: more && last ? encodeCursor(`${last.createdAt.toISOString()}|${last.id}`) : null,
  };
}
