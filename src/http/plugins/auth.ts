import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app/context.ts';
import { AppError, forbidden, unauthorized } from '../../app/errors.ts';
import { authenticateApiKey, authenticateSession, confirmApiKey } from '../../app/identity/authenticate.ts';
import type { Principal } from '../../app/identity/principal.ts';
import { errorEnvelope } from './errors.ts';

/**
 * Which credentials a route takes (contract, Authentication / Failure table). An API key on a route
 * that does not take one answers as `key` says: 403 forbidden (control plane), 403 admin_required
 * (/connections) or 401 unauthorized (session-only identity routes).
 */
export type AuthRule = {
  session?: boolean;
  key?: true | 'forbidden' | 'admin_required' | 'unauthorized';
  /** No credential is fine too (bootstrap routes); a bad one is still 401. */
  optional?: boolean;
  /**
   * An API key this process found active before may be taken without a lookup. Only for a route whose
   * journaling statement checks the key itself and marks the request `keyConfirmed`; any other answer
   * is held until a lookup confirms the key (onSend below), so a revoked key never gets one.
   */
  recentKey?: true;
};

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthRule;
  }
  interface FastifyRequest {
    principal: Principal | null;
    /** The key of a `recent` principal was confirmed active by the route's own statement. */
    keyConfirmed: boolean;
  }
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function refuseKey(rule: AuthRule): never {
  switch (rule.key) {
    case 'admin_required':
      throw new AppError(403, 'admin_required', 'an admin session is required; API keys cannot use this route');
    case 'unauthorized':
      throw unauthorized();
    default:
      throw forbidden('API keys cannot use this route; use an admin session');
  }
}

async function resolve(ctx: AppContext, request: FastifyRequest, rule: AuthRule): Promise<Principal | null> {
  const key = header(request, 'x-api-key');
  if (key !== undefined) {
    const principal = await authenticateApiKey(ctx, key, { recent: rule.recentKey === true });
    if (!principal) throw unauthorized();
    if (rule.key !== true) refuseKey(rule);
    return principal;
  }
  const token = header(request, 'x-session-token');
  if (token !== undefined) {
    const principal = await authenticateSession(ctx, token);
    if (!principal) throw unauthorized();
    if (!rule.session) throw forbidden('this route takes an API key, not a session');
    return principal;
  }
  if (rule.optional) return null;
  throw unauthorized();
}

export function registerAuth(app: FastifyInstance, ctx: AppContext): void {
  app.decorateRequest('principal', null);
  app.decorateRequest('keyConfirmed', false);
  // onRequest: credentials are checked before the body is read or validated, so an unauthenticated
  // caller learns nothing about the route's schema and costs no parsing.
  app.addHook('onRequest', async (request) => {
    const rule = request.routeOptions.config.auth;
    if (rule) request.principal = await resolve(ctx, request, rule);
  });
  // A key taken from the recent keys and not confirmed by the route (an error, a replay answered
  // without the statement) is looked up before the answer leaves: revoked, the answer becomes 401.
  app.addHook('onSend', async (request, reply, payload) => {
    const principal = request.principal;
    if (principal?.kind !== 'key' || !principal.recent || request.keyConfirmed) return payload;
    if (await confirmApiKey(ctx, principal)) return payload;
    reply.removeHeader('idempotency-replayed');
    reply.code(401).type('application/json');
    return JSON.stringify(errorEnvelope(unauthorized()));
  });
}

/** The authenticated caller of a route whose rule is not optional. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw unauthorized();
  return request.principal;
}
