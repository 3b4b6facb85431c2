import { findCompany, listCompanies } from '../../db/repositories/companies.ts';
import type { AppContext } from '../context.ts';
import { isCompanyAdmin, requireCompanyMember } from '../identity/access.ts';
import type { SessionPrincipal } from '../identity/principal.ts';

export type DashboardCompany = { id: string; name: string };

/** How many companies the workspace admin's switcher lists. */
const SWITCHER_LIMIT = 200;

export type CompanyNames = {
  /** The current company's name (null when it is gone). */
  current: string | null;
  /** What the company switcher offers (a workspace admin: the platform's companies; others: their own). */
  choices: DashboardCompany[];
};

export type Workspace = {
  /** The company the dashboard shows: the session's company context, else the user's own company. */
  companyId: string | null;
  /** Whether the user administers it (admin pages and actions). */
  admin: boolean;
  /**
   * The names for the header and the switcher, read while the page reads its data (one round trip
   * less per page); awaited when the page is drawn.
   */
  names: Promise<CompanyNames>;
};

async function companyNames(ctx: AppContext, session: SessionPrincipal, companyId: string | null) {
  const scope = { platformId: session.platformId };
  const choices = session.user.workspaceAdmin
    ? (await listCompanies(ctx.db, scope, undefined, SWITCHER_LIMIT)).map((c) => ({ id: c.id, name: c.name }))
    : [];
  if (companyId === null) return { current: null, choices };
  const row = choices.find((c) => c.id === companyId) ?? (await findCompany(ctx.db, scope, companyId));
  if (row && !session.user.workspaceAdmin) choices.push({ id: row.id, name: row.name });
  return { current: row?.name ?? null, choices };
}

/**
 * The dashboard's company for a signed-in user, checked as the API checks it: a member of the
 * company (a user of it, or a workspace admin of its platform). A workspace admin picks a company with
 * the switcher, which enters its company context (the same as POST /auth/company-context).
 */
export function dashboardWorkspace(ctx: AppContext, session: SessionPrincipal): Workspace {
  const companyId = session.companyContextId ?? session.user.companyId;
  if (companyId !== null) requireCompanyMember(session, session.platformId, companyId);
  const names = companyNames(ctx, session, companyId);
  // Awaited when the page is drawn; a page that fails first must not leave it unhandled.
  names.catch(() => {});
  return { companyId, admin: companyId !== null && isCompanyAdmin(session, companyId), names };
}
