import { findCompany, listCompanies } from '../../db/repositories/companies.ts';
import type { AppContext } from '../context.ts';
import { isCompanyAdmin, requireCompanyMember } from '../identity/access.ts';
import type { SessionPrincipal } from '../identity/principal.ts';

export type DashboardCompany = { id: string; name: string };

/** How many companies the workspace admin's switcher lists. */
const SWITCHER_LIMIT = 200;

export type Workspace = {
  /** The company the dashboard shows: the session's company context, else the user's own company. */
  current: DashboardCompany | null;
  /** What the company switcher offers (a workspace admin: the platform's companies; others: their own). */
  choices: DashboardCompany[];
  /** Whether the user administers the current company (admin pages and actions). */
  admin: boolean;
};

/**
 * The dashboard's company for a signed-in user, checked as the API checks it: a member of the
 * company (a user of it, or a workspace admin of its platform). A workspace admin picks a company with
 * the switcher, which enters its company context (the same as POST /auth/company-context).
 */
export async function dashboardWorkspace(ctx: AppContext, session: SessionPrincipal): Promise<Workspace> {
  const scope = { platformId: session.platformId };
  const currentId = session.companyContextId ?? session.user.companyId;
  const choices = session.user.workspaceAdmin
    ? (await listCompanies(ctx.db, scope, undefined, SWITCHER_LIMIT)).map((c) => ({ id: c.id, name: c.name }))
    : [];
  let current: DashboardCompany | null = null;
  if (currentId !== null) {
    requireCompanyMember(session, session.platformId, currentId);
    const row = choices.find((c) => c.id === currentId) ?? (await findCompany(ctx.db, scope, currentId));
    current = row ? { id: row.id, name: row.name } : null;
  }
  if (!session.user.workspaceAdmin && current) choices.push(current);
  return { current, choices, admin: current !== null && isCompanyAdmin(session, current.id) };
}
