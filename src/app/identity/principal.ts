/** Who is calling: an API key (data plane) or an admin session (control plane). */
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
export type Principal = KeyPrincipal | SessionPrincipal;
