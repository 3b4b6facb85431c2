/** Who is calling: an API key (data plane) or an admin session (control plane). */
export type SessionUser = {
  id: string;
  email: string;
  name: string;
  roles: string[];
  workspaceAdmin: boolean;
  companyId: string | null;
};

export type KeyPrincipal = { kind: 'key'; platformId: string; keyId: string };
export type SessionPrincipal = {
  kind: 'session';
  platformId: string;
  sessionId: string;
  user: SessionUser;
  companyContextId: string | null;
};
export type Principal = KeyPrincipal | SessionPrincipal;
