import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app/context.ts';
import { AppError, forbidden, unauthorized } from '../../app/errors.ts';
import { authenticateApiKey, authenticateSession } from '../../app/identity/authenticate.ts';
import type { Principal } from '../../app/identity/principal.ts';

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
};

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthRule;
  }
  interface FastifyRequest {
    principal: Principal | null;
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
    const principal = await authenticateApiKey(ctx, key);
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
  // onRequest: credentials are checked before the body is read or validated, so an unauthenticated
  // caller learns nothing about the route's schema and costs no parsing.
  app.addHook('onRequest', async (request) => {
    const rule = request.routeOptions.config.auth;
    if (rule) request.principal = await resolve(ctx, request, rule);
  });
}

/** The authenticated caller of a route whose rule is not optional. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw unauthorized();
  return request.principal;
}
