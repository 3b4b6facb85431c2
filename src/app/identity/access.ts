import { AppError, forbidden } from '../errors.ts';
import type { Principal, SessionPrincipal, TokenUser } from './principal.ts';

/**
 * Authorisation rules shared by the identity routes. A stated scope outside the credential's
 * platform is 403 forbidden, never a 404, so ids of other tenants reveal nothing either way.
 */
export function assertPlatform(principal: Principal, platformId: string): void {
  if (principal.platformId !== platformId) throw forbidden('the platform is outside this credential');
}

export function requireSession(principal: Principal): SessionPrincipal {
  if (principal.kind !== 'session') throw forbidden('this route needs an admin session');
  return principal;
}

export function requireWorkspaceAdmin(principal: Principal, platformId: string): SessionPrincipal {
  const session = requireSession(principal);
  assertPlatform(session, platformId);
  if (!session.user.workspaceAdmin) throw forbidden('workspace admin required');
  return session;
}

/** Company admin: an admin user of the company, or a workspace admin inside its company context. */
export function isCompanyAdmin(session: SessionPrincipal, companyId: string): boolean {
  if (session.user.companyId === companyId && session.user.roles.includes('admin')) return true;
  return session.user.workspaceAdmin && session.companyContextId === companyId;
}

export function requireCompanyAdmin(principal: Principal, platformId: string, companyId: string): SessionPrincipal {
  const session = requireSession(principal);
  assertPlatform(session, platformId);
  if (isCompanyAdmin(session, companyId)) return session;
  if (session.user.workspaceAdmin) {
    throw new AppError('forbidden', 'select a company context first (POST /auth/company-context)');
  }
  throw forbidden('company admin required');
}

/** Any member: a user of the company, or a workspace admin of its platform. */
export function requireCompanyMember(principal: Principal, platformId: string, companyId: string): SessionPrincipal {
  const session = requireSession(principal);
  assertPlatform(session, platformId);
  if (session.user.workspaceAdmin || session.user.companyId === companyId) return session;
  throw forbidden('not a member of this company');
}

/**
 * Whether the user behind an OAuth token administers a company now (DESIGN.md: a token is limited
 * to the companies its consenting user administers at the time of each request). A workspace admin
 * administers every company of the platform: a session needs a company context only to pick one.
 */
export function userAdministers(user: TokenUser, companyId: string): boolean {
  return user.workspaceAdmin || (user.companyId === companyId && user.roles.includes('admin'));
}

/** Whether a user may consent for an installed application at all: a company or workspace admin. */
export function mayConsent(user: Pick<TokenUser, 'workspaceAdmin' | 'roles'>): boolean {
  return user.workspaceAdmin || user.roles.includes('admin');
}

/** An OAuth token reaches only the companies its user administers now; other principals pass. */
export function assertTokenReaches(principal: Principal, companyId: string): void {
  if (principal.kind === 'token' && !userAdministers(principal.user, companyId)) {
    throw forbidden('the company is outside this token: its user does not administer it');
  }
}

/**
 * A company admin's session, or an OAuth token of a user who administers the company (routes the
 * route access table opens to a token with its scope, such as GET /connections with banks:read).
 */
export function requireCompanyAdminOrToken(principal: Principal, platformId: string, companyId: string): void {
  if (principal.kind !== 'token') {
    requireCompanyAdmin(principal, platformId, companyId);
    return;
  }
  assertPlatform(principal, platformId);
  assertTokenReaches(principal, companyId);
}
