import type { Scope } from '../../domain/oauth/scopes.ts';

/**
 * THE table of who may call each route: every route the app registers has one line here, keyed
 * `METHOD /path` exactly as registered (Fastify's `:param` syntax; HEAD follows GET). The auth plugin
 * (../plugins/auth.ts) reads it; a route missing from it refuses every credential (deny by default),
 * and test/http/route-access.test.ts, generated from the registered routes, fails naming the line to add.
 *
 * A line is either `PUBLIC` (no credential needed; credentials sent are ignored) or says, for each
 * kind of credential, what it gets:
 * - key, an API key (X-API-Key): 'accept', or the refusal the contract's Failure table gives it:
 *   'forbidden' (403, control plane), 'admin_required' (403, /connections), 'unauthorized' (401,
 *   session-only identity routes).
 * - session, an admin session (X-Session-Token): 'accept' or 'forbidden' (403).
 * - token, an installed application's OAuth access token (Authorization: Bearer): the scope it must
 *   hold (DESIGN.md, OAuth: scope per route; 403 insufficient_scope without it), or 'never' (403
 *   forbidden: never delegable, or simply not delegated). A scope added to a route here is the whole
 *   change needed to open it to tokens; the use case still limits a token to the companies its user
 *   administers (companyScope).
 * Options: `optional` (no credential at all is let through, for bootstrap routes), `recentKey`
 * (see AuthRule.recentKey in ../plugins/auth.ts), `browser` (the consent form: a browser session
 * cookie is taken too, only with the CSRF token of the page that posted it).
 */
export type KeyAnswer = 'accept' | 'forbidden' | 'admin_required' | 'unauthorized';
export type TokenAnswer = Scope | 'never';

export type Credentialed = {
  key: KeyAnswer;
  session: 'accept' | 'forbidden';
  token: TokenAnswer;
  optional?: true;
  recentKey?: true;
  browser?: 'accept';
};
export type Public = {
  public: true;
  /**
   * 'optional': the route reads a browser session cookie if one is sent (the consent page), never
   * requires it. 'dashboard': a dashboard page: API credentials are not read; the dashboard's own guard
   * (src/http/dashboard/guard.ts) requires the browser session cookie, sending a browser without one to
   * the sign-in page, and takes a form post only with the CSRF token of the page that made the form.
   */
  browser?: 'optional' | 'dashboard';
};
export type RouteAccess = Public | Credentialed;

const PUBLIC: Public = { public: true };
/** A dashboard page or form (browser session cookie and CSRF token, checked by the dashboard's guard). */
const DASHBOARD: Public = { public: true, browser: 'dashboard' };
/** The dashboard's sign-in pages: open, reading a session cookie if sent (to skip the form). */
const DASHBOARD_SIGN_IN: Public = { public: true, browser: 'optional' };

/** Refuses every credential: what a route missing from the table gets. */
export const DENY_ALL: Credentialed = { key: 'forbidden', session: 'forbidden', token: 'never' };

export const ROUTE_ACCESS: Readonly<Record<string, RouteAccess>> = {
  // System, onboarding and documentation
  'GET /health': PUBLIC,
  'GET /version': PUBLIC,
  'GET /ready': PUBLIC,
  // Prometheus scrapes: no tenant credential; METRICS_TOKEN (a bearer token) is checked by the route.
  'GET /metrics': PUBLIC,
  'GET /fx/rates': PUBLIC,
  'POST /sandbox/provision': PUBLIC,
  'GET /openapi.json': PUBLIC,
  'GET /docs': PUBLIC,
  'GET /docs/': PUBLIC,
  'GET /docs/static/index.html': PUBLIC,
  'GET /docs/static/swagger-initializer.js': PUBLIC,
  'GET /docs/json': PUBLIC,
  'GET /docs/yaml': PUBLIC,
  'GET /docs/static/*': PUBLIC,

  // Identity (control plane)
  'POST /auth/login': PUBLIC,
  'POST /auth/set-password': PUBLIC,
  'POST /auth/login/2fa': PUBLIC,
  'POST /auth/change-password': { key: 'unauthorized', session: 'accept', token: 'never' },
  'GET /me/sessions': { key: 'unauthorized', session: 'accept', token: 'never' },
  'DELETE /me/sessions/:id': { key: 'unauthorized', session: 'accept', token: 'never' },
  'GET /2fa/status': { key: 'unauthorized', session: 'accept', token: 'never' },
  'POST /2fa/setup': { key: 'unauthorized', session: 'accept', token: 'never' },
  'POST /2fa/enable': { key: 'unauthorized', session: 'accept', token: 'never' },
  'POST /2fa/disable': { key: 'unauthorized', session: 'accept', token: 'never' },
  'POST /2fa/recovery-codes': { key: 'unauthorized', session: 'accept', token: 'never' },
  'POST /auth/logout': { key: 'unauthorized', session: 'accept', token: 'never' },
  'GET /auth/me': { key: 'unauthorized', session: 'accept', token: 'never' },
  'POST /auth/company-context': { key: 'forbidden', session: 'accept', token: 'never' },
  'DELETE /auth/company-context': { key: 'forbidden', session: 'accept', token: 'never' },
  'GET /users': { key: 'forbidden', session: 'accept', token: 'never' },
  'POST /users': { key: 'accept', session: 'accept', token: 'never' },
  // A key re-roles only among approver and viewer, never an admin; reset and erase refuse it (use case).
  'PATCH /users/:id': { key: 'accept', session: 'accept', token: 'never' },
  'POST /users/:id/reset-password': { key: 'forbidden', session: 'accept', token: 'never' },
  'DELETE /users/:id': { key: 'forbidden', session: 'accept', token: 'never' },

  // Billing (DESIGN.md): prices are public; the status answers a key or a member's session.
  'GET /billing/packages': PUBLIC,
  'GET /billing/status': { key: 'accept', session: 'accept', token: 'never' },

  // Workspace admin
  'GET /platforms/:platformId/companies': { key: 'forbidden', session: 'accept', token: 'never' },
  'POST /platforms/:platformId/companies': { key: 'forbidden', session: 'accept', token: 'never' },
  'GET /platforms/:platformId/api-keys': { key: 'forbidden', session: 'accept', token: 'never' },
  'POST /platforms/:platformId/api-keys': { key: 'forbidden', session: 'accept', token: 'never' },
  'DELETE /platforms/:platformId/api-keys/:keyId': { key: 'forbidden', session: 'accept', token: 'never' },
  'GET /platforms/:platformId/admins': { key: 'forbidden', session: 'accept', token: 'never' },
  'POST /platforms/:platformId/admins': { key: 'forbidden', session: 'accept', token: 'never', optional: true },

  // Discovery
  'GET /profiles': { key: 'accept', session: 'accept', token: 'engine:use' },
  'GET /payment-types': { key: 'accept', session: 'accept', token: 'engine:use' },
  'GET /banks/:bankKey/payment-types': { key: 'accept', session: 'accept', token: 'engine:use' },
  'GET /banks/:bankKey/status': PUBLIC,
  'GET /connectivity/profiles': PUBLIC,

  // Conversion engine
  'POST /validate/:bankKey': { key: 'accept', session: 'forbidden', token: 'engine:use' },
  'POST /convert/:bankKey': { key: 'accept', session: 'forbidden', token: 'engine:use' },
  'POST /convert-async/:bankKey': { key: 'accept', session: 'forbidden', token: 'engine:use' },
  'GET /convert-jobs/:id': { key: 'accept', session: 'forbidden', token: 'engine:use' },

  // Inbound: the stateless statement parse is engine use; a payment-status report changes payments
  'POST /inbound/statement': { key: 'accept', session: 'forbidden', token: 'engine:use' },
  'POST /inbound/payment-status': { key: 'accept', session: 'forbidden', token: 'never' },

  // Journal
  // A company admin's session submits too: the signed-in maker of maker-checker (DESIGN.md, Approvals)
  'POST /journal/payments': { key: 'accept', session: 'accept', token: 'payments:submit', recentKey: true },
  'POST /journal/payments/preview': { key: 'accept', session: 'forbidden', token: 'payments:submit' },
  'POST /journal/documents/:id/cancel': { key: 'accept', session: 'forbidden', token: 'never' },
  'POST /journal/ingest': { key: 'accept', session: 'forbidden', token: 'never' },
  'GET /journal/documents': { key: 'accept', session: 'forbidden', token: 'payments:read' },
  'GET /journal/list': { key: 'accept', session: 'forbidden', token: 'payments:read' },
  'POST /journal/export': { key: 'accept', session: 'accept', token: 'payments:read' },
  'GET /journal/documents/:id': { key: 'accept', session: 'forbidden', token: 'payments:read' },
  // A member's session too: canApprove and blockReason are computed for the caller
  'GET /journal/documents/:id/payments': { key: 'accept', session: 'accept', token: 'payments:read' },
  'GET /journal/documents/:id/file': { key: 'accept', session: 'forbidden', token: 'payments:read' },
  'GET /journal/payment-types': { key: 'accept', session: 'forbidden', token: 'payments:read' },
  'GET /journal/reconciliation': { key: 'accept', session: 'forbidden', token: 'payments:read' },
  'GET /journal/events': { key: 'accept', session: 'forbidden', token: 'payments:read' },

  // Accounts and statements
  'GET /accounts': { key: 'forbidden', session: 'accept', token: 'statements:read' },
  'GET /accounts/statements': { key: 'forbidden', session: 'accept', token: 'statements:read' },

  // Receivables (DESIGN.md): API key, session, or payments:read (reads) and payments:submit (writes)
  'POST /references': { key: 'accept', session: 'accept', token: 'payments:submit' },
  'GET /references/validate': { key: 'accept', session: 'accept', token: 'payments:read' },
  'POST /expected-payments': { key: 'accept', session: 'accept', token: 'payments:submit' },
  'GET /expected-payments': { key: 'accept', session: 'accept', token: 'payments:read' },
  'GET /expected-payments/:id': { key: 'accept', session: 'accept', token: 'payments:read' },
  'PATCH /expected-payments/:id': { key: 'accept', session: 'accept', token: 'payments:submit' },
  'POST /expected-payments/:id/archive': { key: 'accept', session: 'accept', token: 'payments:submit' },
  'GET /incoming-payments': { key: 'accept', session: 'accept', token: 'payments:read' },
  'GET /incoming-payments/:id': { key: 'accept', session: 'accept', token: 'payments:read' },
  'PUT /reconciliation/settings': { key: 'accept', session: 'accept', token: 'payments:submit' },
  'GET /reconciliation/exceptions': { key: 'accept', session: 'accept', token: 'payments:read' },
  // Manual reconciliation: an admin's or approver's session, or an API key; never delegated.
  'POST /reconciliation/matches': { key: 'accept', session: 'accept', token: 'never' },
  'DELETE /reconciliation/matches/:id': { key: 'accept', session: 'accept', token: 'never' },

  // Bank connections: reading them is banks:read; setup and activation are never delegable
  'GET /connections': { key: 'admin_required', session: 'accept', token: 'banks:read' },
  'GET /connections/:id': { key: 'admin_required', session: 'accept', token: 'banks:read' },
  'POST /connections': { key: 'admin_required', session: 'accept', token: 'never' },
  'PUT /connections/:id/signing-cert': { key: 'admin_required', session: 'accept', token: 'never' },
  'POST /connections/:id/activate-op': { key: 'admin_required', session: 'accept', token: 'never' },
  'POST /connections/:id/activate-nordea': { key: 'admin_required', session: 'accept', token: 'never' },
  'PUT /connections/:id/settings': { key: 'admin_required', session: 'accept', token: 'never' },
  'POST /connections/:id/test-payment': { key: 'admin_required', session: 'accept', token: 'never' },
  'POST /connections/:id/ebics/init': { key: 'admin_required', session: 'accept', token: 'never' },
  'GET /connections/:id/ebics/letter': { key: 'admin_required', session: 'accept', token: 'never' },
  'POST /connections/:id/ebics/bank-keys': { key: 'admin_required', session: 'accept', token: 'never' },
  'POST /connections/:id/ebics/confirm-bank-keys': { key: 'admin_required', session: 'accept', token: 'never' },
  // Per-company bank settings belong with the connections (an admin's to change, a member's to read)
  'GET /bank-settings/:bankKey': { key: 'admin_required', session: 'accept', token: 'never' },
  'PUT /bank-settings/:bankKey': { key: 'admin_required', session: 'accept', token: 'never' },

  // Maker-checker approvals: policies are a company admin's; the queue any member's; decisions a
  // checker's session. Never delegable to an installed application, and an API key cannot decide.
  'GET /approval-policies': { key: 'forbidden', session: 'accept', token: 'never' },
  'POST /approval-policies': { key: 'forbidden', session: 'accept', token: 'never' },
  'PUT /approval-policies/:id': { key: 'forbidden', session: 'accept', token: 'never' },
  'DELETE /approval-policies/:id': { key: 'forbidden', session: 'accept', token: 'never' },
  'GET /approvals': { key: 'forbidden', session: 'accept', token: 'never' },
  'GET /approvals/:id': { key: 'forbidden', session: 'accept', token: 'never' },
  'POST /approvals/:id/approve': { key: 'forbidden', session: 'accept', token: 'never' },
  'POST /approvals/:id/reject': { key: 'forbidden', session: 'accept', token: 'never' },

  // Webhooks: closed to tokens even with webhooks:manage (DESIGN.md)
  'POST /webhooks': { key: 'accept', session: 'accept', token: 'never' },
  'GET /webhooks': { key: 'accept', session: 'accept', token: 'never' },
  'GET /webhooks/:id': { key: 'accept', session: 'accept', token: 'never' },
  'DELETE /webhooks/:id': { key: 'accept', session: 'accept', token: 'never' },
  'POST /webhooks/:id/enable': { key: 'accept', session: 'accept', token: 'never' },
  'POST /webhooks/:id/disable': { key: 'accept', session: 'accept', token: 'never' },
  'POST /webhooks/:id/re-enable': { key: 'accept', session: 'accept', token: 'never' },
  'POST /webhooks/:id/test': { key: 'accept', session: 'accept', token: 'never' },
  'POST /webhooks/:id/rotate-secret': { key: 'accept', session: 'accept', token: 'never' },
  'GET /webhooks/:id/deliveries': { key: 'accept', session: 'accept', token: 'never' },
  'POST /webhooks/:id/deliveries/:deliveryId/redeliver': { key: 'accept', session: 'accept', token: 'never' },
  'POST /webhooks/:id/redeliver-failed': { key: 'accept', session: 'accept', token: 'never' },

  // OAuth 2.0 for installed applications: the protocol endpoints authenticate clients their own way
  'GET /.well-known/oauth-authorization-server': PUBLIC,
  'GET /oauth/authorize': { public: true, browser: 'optional' },
  'POST /oauth/authorize/sign-in': PUBLIC,
  'POST /oauth/authorize/sign-in/2fa': PUBLIC,
  'POST /oauth/authorize/decision': { key: 'forbidden', session: 'accept', token: 'never', browser: 'accept' },
  'POST /oauth/token': PUBLIC,
  'POST /oauth/revoke': PUBLIC,
  // Managing applications and grants is never delegable to an application
  'GET /oauth/grants': { key: 'forbidden', session: 'accept', token: 'never' },
  'DELETE /oauth/grants/:id': { key: 'forbidden', session: 'accept', token: 'never' },
  'GET /platforms/:platformId/oauth-clients': { key: 'forbidden', session: 'accept', token: 'never' },
  'POST /platforms/:platformId/oauth-clients': { key: 'forbidden', session: 'accept', token: 'never' },
  'DELETE /platforms/:platformId/oauth-clients/:clientId': { key: 'forbidden', session: 'accept', token: 'never' },

  // The tenant dashboard (server-rendered, browser session cookie only; src/http/dashboard)
  'GET /dashboard/assets/:name': PUBLIC,
  'GET /dashboard/sign-in': DASHBOARD_SIGN_IN,
  'POST /dashboard/sign-in': PUBLIC,
  'POST /dashboard/sign-in/2fa': PUBLIC,
  'POST /dashboard/sign-out': DASHBOARD,
  'POST /dashboard/company': DASHBOARD,
  'GET /dashboard': DASHBOARD,
  'GET /dashboard/journal': DASHBOARD,
  'GET /dashboard/journal/:id': DASHBOARD,
  'GET /dashboard/journal/:id/file': DASHBOARD,
  'POST /dashboard/journal/:id/cancel': DASHBOARD,
  'GET /dashboard/reconciliation': DASHBOARD,
  'GET /dashboard/receivables': DASHBOARD,
  'GET /dashboard/exceptions': DASHBOARD,
  'POST /dashboard/exceptions/match': DASHBOARD,
  'GET /dashboard/accounts': DASHBOARD,
  'GET /dashboard/connections': DASHBOARD,
  'POST /dashboard/connections': DASHBOARD,
  'POST /dashboard/connections/:id/:action': DASHBOARD,
  'GET /dashboard/connections/:id/ebics-letter': DASHBOARD,
  'GET /dashboard/users': DASHBOARD,
  'POST /dashboard/users': DASHBOARD,
  'POST /dashboard/users/:id/:action': DASHBOARD,
  'POST /dashboard/api-keys': DASHBOARD,
  'POST /dashboard/api-keys/:id/revoke': DASHBOARD,
  'GET /dashboard/security': DASHBOARD,
  'POST /dashboard/security/:area/:id/:action': DASHBOARD,
  'POST /dashboard/security/2fa/:action': DASHBOARD,
  'GET /dashboard/security/password': DASHBOARD,
  'POST /dashboard/security/password': DASHBOARD,
  'GET /dashboard/approvals': DASHBOARD,
  'POST /dashboard/approvals/:id/:decision': DASHBOARD,
  'POST /dashboard/approval-policies': DASHBOARD,
  'GET /dashboard/approval-policies/new': DASHBOARD,
  'GET /dashboard/approval-policies/:id': DASHBOARD,
  'POST /dashboard/approval-policies/:id': DASHBOARD,
  'POST /dashboard/approval-policies/:id/delete': DASHBOARD,
  'GET /dashboard/sandbox': DASHBOARD,
  'POST /dashboard/sandbox/first-payment': DASHBOARD,
  'GET /dashboard/webhooks': DASHBOARD,
  'POST /dashboard/webhooks': DASHBOARD,
  'GET /dashboard/webhooks/:id': DASHBOARD,
  'POST /dashboard/webhooks/:id/:action': DASHBOARD,
  'POST /dashboard/webhooks/:id/deliveries/:deliveryId/redeliver': DASHBOARD,
};

export function routeKey(method: string, url: string): string {
  return `${method === 'HEAD' ? 'GET' : method} ${url}`;
}

/** The access line of a registered route; DENY_ALL when it has none. */
export function accessOf(method: string, url: string): { access: RouteAccess; listed: boolean } {
  const access = ROUTE_ACCESS[routeKey(method, url)];
  return access ? { access, listed: true } : { access: DENY_ALL, listed: false };
}

export function isPublic(access: RouteAccess): access is Public {
  return 'public' in access;
}
