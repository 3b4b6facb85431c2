import type { Scope } from '../../domain/oauth/scopes.ts';

/**
 * Who is calling: an API key (data plane), an admin session (control plane) or an installed
 * application's OAuth access token (acting for the user who consented, within its scopes).
 */
export type SessionUser = {
  id: string;
  email: string;
  name: string;
  roles: string[];
  workspaceAdmin: boolean;
  companyId: string | null;
};

export type KeyPrincipal = {
  kind: 'key';
  platformId: string;
  keyId: string;
  /** Taken from the process's recent keys without a lookup (AuthRule.recentKey): not yet confirmed active. */
  recent?: true;
};
export type SessionPrincipal = {
  kind: 'session';
  platformId: string;
  sessionId: string;
  user: SessionUser;
  companyContextId: string | null;
};
/** The consenting user as read with the token on this request: what they administer now. */
export type TokenUser = { id: string; workspaceAdmin: boolean; companyId: string | null; roles: string[] };
export type TokenPrincipal = {
  kind: 'token';
  platformId: string;
  grantId: string;
  clientId: string;
  scopes: readonly Scope[];
  user: TokenUser;
};
export type Principal = KeyPrincipal | SessionPrincipal | TokenPrincipal;
