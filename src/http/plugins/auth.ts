import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app/context.ts';
import { AppError, forbidden, unauthorized } from '../../app/errors.ts';
import {
  authenticateApiKey,
  authenticateSession,
  confirmApiKey,
  watchApiKeyRevocations,
} from '../../app/identity/authenticate.ts';
import type { Principal, SessionPrincipal } from '../../app/identity/principal.ts';
import type { ClientInfo } from '../../app/identity/sessions.ts';
import { authenticateBearer } from '../../app/oauth/authenticate-token.ts';
import { databaseUnavailableOf } from '../../app/system/database-unavailable.ts';
import { accessOf, type Credentialed, isPublic, type RouteAccess } from '../access/route-access.ts';
import { cookieOf, csrfTokenFor, SESSION_COOKIE, sameSecret } from './browser-session.ts';
import { errorEnvelope } from './errors.ts';
import { parseForm } from './form-body.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** This route's line of the route access table (set when the route is registered). */
    access?: RouteAccess;
  }
  interface FastifyRequest {
    principal: Principal | null;
    /** The key of a `recent` principal was confirmed active by the route's own statement. */
    keyConfirmed: boolean;
    /** A browser session (cookie) on a route that reads one: the consent page. */
    browserSession: { principal: SessionPrincipal; token: string } | null;
  }
}

const REALM = 'Bearer realm="payops"';

export type RegisteredRoute = { method: string; url: string };
const registered = new WeakMap<FastifyInstance, RegisteredRoute[]>();

/** Every route the app registered (HEAD twins included), as the route access table keys them. */
export function registeredRoutes(app: FastifyInstance): RegisteredRoute[] {
  return [...(registered.get(app) ?? [])];
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The token of `Authorization: Bearer <token>` (RFC 6750 §2.1; the scheme is case-insensitive). */
function bearerToken(request: FastifyRequest): string | undefined {
  const value = header(request, 'authorization');
  if (value === undefined) return undefined;
  const match = /^bearer +(\S+) *$/i.exec(value);
  return match ? match[1] : '';
}

function refuseKey(access: Credentialed): never {
  switch (access.key) {
    case 'admin_required':
      throw new AppError('admin_required', 'an admin session is required; API keys cannot use this route');
    case 'unauthorized':
      throw unauthorized();
    default:
      throw forbidden('API keys cannot use this route; use an admin session');
  }
}

const invalidToken = () =>
  new AppError('unauthorized', 'the access token is invalid, expired or revoked', undefined, {
    'www-authenticate': `${REALM}, error="invalid_token", error_description="the access token is invalid, expired or revoked"`,
  });

/**
 * An OAuth access token on this route: 403 forbidden where tokens never go, 403 insufficient_scope
 * (RFC 6750 §3.1) when the token lacks the route's scope.
 */
async function resolveBearer(ctx: AppContext, raw: string, access: Credentialed): Promise<Principal> {
  const principal = await authenticateBearer(ctx, raw);
  if (!principal) throw invalidToken();
  if (access.token === 'never') throw forbidden('installed-application tokens cannot use this route');
  const scope = access.token;
  if (!principal.scopes.includes(scope)) {
    throw new AppError(
      'insufficient_scope',
      `this route needs the ${scope} scope`,
      { requiredScope: scope },
      {
        'www-authenticate': `${REALM}, error="insufficient_scope", scope="${scope}"`,
      },
    );
  }
  return principal;
}

/** The browser session cookie, if any and live (the consent pages). */
async function browserSession(ctx: AppContext, request: FastifyRequest) {
  const token = cookieOf(request, SESSION_COOKIE);
  if (token === undefined) return null;
  const principal = await authenticateSession(ctx, token);
  return principal ? { principal, token } : null;
}

async function resolve(ctx: AppContext, request: FastifyRequest, access: Credentialed): Promise<Principal | null> {
  const key = header(request, 'x-api-key');
  const session = header(request, 'x-session-token');
  const bearer = bearerToken(request);
  const sent = [key, session, bearer].filter((c) => c !== undefined).length;
  // One request, one credential (RFC 6750 §2: one method per request): which one would win is not guessed.
  if (sent > 1) {
    throw new AppError('unauthorized', 'send one credential: X-API-Key, X-Session-Token or Authorization: Bearer');
  }
  if (key !== undefined) {
    const principal = await authenticateApiKey(ctx, key, { recent: access.recentKey === true });
    if (!principal) throw unauthorized();
    if (access.key !== 'accept') refuseKey(access);
    return principal;
  }
  if (session !== undefined) {
    const principal = await authenticateSession(ctx, session);
    if (!principal) throw unauthorized();
    if (access.session !== 'accept') throw forbidden('this route takes an API key, not a session');
    return principal;
  }
  if (bearer !== undefined) return resolveBearer(ctx, bearer, access);
  if (access.browser === 'accept' && cookieOf(request, SESSION_COOKIE) !== undefined) {
    request.browserSession = await browserSession(ctx, request);
    if (!request.browserSession) throw unauthorized();
    return request.browserSession.principal;
  }
  if (access.optional) return null;
  if (access.token !== 'never') {
    throw new AppError('unauthorized', 'missing or invalid credentials', undefined, { 'www-authenticate': REALM });
  }
  throw unauthorized();
}

/**
 * Authentication and route-level authorisation from the route access table (../access/route-access.ts).
 * Each route gets its line when registered; a route without one refuses every credential.
 */
export function registerAuth(app: FastifyInstance, ctx: AppContext): void {
  // Revoked keys are forgotten as they commit, whichever process revoked them (docs/adr/0049).
  const revocations = watchApiKeyRevocations(ctx);
  // Ready once it listens (until then every key is looked up), bounded should the database be slow.
  app.addHook('onReady', () => revocations.ready(5_000));
  app.addHook('onClose', () => revocations.close());
  app.decorateRequest('principal', null);
  app.decorateRequest('keyConfirmed', false);
  app.decorateRequest('browserSession', null);
  const routes: RegisteredRoute[] = [];
  registered.set(app, routes);
  app.addHook('onRoute', (route) => {
    const method = Array.isArray(route.method) ? String(route.method[0]) : String(route.method);
    routes.push({ method, url: route.url });
    const { access, listed } = accessOf(method, route.url);
    if (!listed) {
      app.log.warn(
        { route: `${method} ${route.url}` },
        'route missing from the route access table: it refuses every credential',
      );
    }
    route.config = { ...(route.config as object), access } as typeof route.config;
  });
  // onRequest: credentials are checked before the body is read or validated, so an unauthenticated
  // caller learns nothing about the route's schema and costs no parsing.
  app.addHook('onRequest', async (request) => {
    const access = request.routeOptions.config.access;
    if (!access) return; // no route matched: the not-found handler answers
    if (!isPublic(access)) request.principal = await resolve(ctx, request, access);
    else if (access.browser !== undefined) request.browserSession = await browserSession(ctx, request);
  });
  // A browser session is taken on a form post only with the CSRF token of the page that made the
  // form (checked once the body is read): another site can make the browser post, not read the page.
  app.addHook('preHandler', async (request) => {
    const access = request.routeOptions.config.access;
    if (!access || isPublic(access) || request.browserSession === null) return;
    const form = parseForm(request.body);
    const sent = form.ok ? form.params['csrf_token'] : undefined;
    if (!sameSecret(sent, csrfTokenFor(request.browserSession.token))) {
      throw forbidden('the form is stale or did not come from this service (CSRF token); reload the page');
    }
  });
  // A key taken from the recent keys and not confirmed by the route (an error, a replay answered
  // without the statement) is looked up before the answer leaves: revoked, the answer becomes 401.
  app.addHook('onSend', async (request, reply, payload) => {
    const principal = request.principal;
    if (principal?.kind !== 'key' || !principal.recent || request.keyConfirmed) return payload;
    // Answering 503 database_unavailable already: there is nothing to look the key up in.
    if (reply.statusCode === 503) return payload;
    let active: boolean;
    try {
      active = await confirmApiKey(ctx, principal);
    } catch (error) {
      const unavailable = databaseUnavailableOf(error);
      if (!unavailable) throw error;
      reply
        .code(503)
        .headers(unavailable.headers ?? {})
        .type('application/json');
      return JSON.stringify(errorEnvelope(unavailable));
    }
    if (active) return payload;
    reply.removeHeader('idempotency-replayed');
    reply.code(401).type('application/json');
    return JSON.stringify(errorEnvelope(unauthorized()));
  });
}

/** The authenticated caller of a route whose line is not optional. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw unauthorized();
  return request.principal;
}

/** Where a request comes from, as a login keeps it with the session (and per-IP limits count it). */
export function clientOf(request: FastifyRequest): ClientInfo {
  const agent = request.headers['user-agent'];
  return { ip: request.ip, userAgent: typeof agent === 'string' ? agent : null };
}
