/**
 * The scopes an installed application may be granted (contract, Authentication: OAuth 2.0 installed
 * applications, rule 6). What each one opens is decided by the route access table (src/http/access),
 * which names one of these per route; `webhooks:manage` is accepted at consent but opens no route.
 */
export const GRANTABLE_SCOPES = [
  'payments:submit',
  'payments:read',
  'statements:read',
  'engine:use',
  'banks:read',
  'webhooks:manage',
] as const;

export type Scope = (typeof GRANTABLE_SCOPES)[number];

/** What the consent page tells the admin each scope lets the application do. */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  'payments:submit': 'Submit payments to your banks and preview them',
  'payments:read': 'Read journal documents, payment lines, reconciliation, the audit trail, and export files',
  'statements:read': 'Read bank accounts, statements and balances',
  'engine:use': 'Use the conversion and validation engine, and bank and payment-type discovery',
  'banks:read': 'Read bank connections and their readiness',
  'webhooks:manage': 'Accepted, but webhook routes stay closed to applications',
};

export function isScope(value: string): value is Scope {
  return (GRANTABLE_SCOPES as readonly string[]).includes(value);
}

export type ScopeParse = { ok: true; scopes: Scope[] } | { ok: false; reason: string };

/**
 * A `scope` parameter (RFC 6749 §3.3: space-delimited, order irrelevant). Empty, unknown or
 * repeated scopes are refused: the application asks for exactly what it will use.
 */
export function parseScope(raw: string | undefined): ScopeParse {
  if (raw === undefined || raw.trim() === '') return { ok: false, reason: 'scope is required' };
  const parts = raw.split(' ').filter((p) => p !== '');
  const unknown = parts.filter((p) => !isScope(p));
  if (unknown.length > 0) return { ok: false, reason: `unknown scope ${JSON.stringify(unknown[0])}` };
  if (new Set(parts).size !== parts.length) return { ok: false, reason: 'a scope is repeated' };
  return { ok: true, scopes: sortScopes(parts as Scope[]) };
}

/** Scopes in the order of GRANTABLE_SCOPES, so equal sets print the same. */
export function sortScopes(scopes: readonly Scope[]): Scope[] {
  return GRANTABLE_SCOPES.filter((s) => scopes.includes(s));
}

export function formatScope(scopes: readonly Scope[]): string {
  return sortScopes(scopes).join(' ');
}
