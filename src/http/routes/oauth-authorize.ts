import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError, badRequest, unauthorized } from '../../app/errors.ts';
import { mayConsent } from '../../app/identity/access.ts';
import type { SessionPrincipal } from '../../app/identity/principal.ts';
import { completeLoginChallenge, type LoginResult, login, type SessionOpened } from '../../app/identity/sessions.ts';
import {
  type AuthorizationCheck,
  type AuthorizationParams,
  checkAuthorizationRequest,
  errorRedirect,
} from '../../app/oauth/authorization-request.ts';
import { consentView, type Decision, decideConsent } from '../../app/oauth/consent.ts';
import {
  codePage,
  consentPage,
  notAdminPage,
  type RequestFields,
  signInPage,
  untrustedPage,
} from '../pages/oauth-pages.ts';
import { clientOf, principalOf } from '../plugins/auth.ts';
import {
  cookieOf,
  csrfTokenFor,
  issueSignInToken,
  SIGN_IN_COOKIE,
  sameSecret,
  setSessionCookie,
} from '../plugins/browser-session.ts';
import { parseForm } from '../plugins/form-body.ts';
import { errorResponses } from '../schemas/common.ts';
import { mediaResponse, NoBody } from '../schemas/responses.ts';
import type { HttpServices } from '../services.ts';
import type { RouteApp } from './route-app.ts';

/** The authorization request parameters under their OAuth names (query string and forms). */
const PARAMS = {
  responseType: 'response_type',
  clientId: 'client_id',
  redirectUri: 'redirect_uri',
  scope: 'scope',
  state: 'state',
  codeChallenge: 'code_challenge',
  codeChallengeMethod: 'code_challenge_method',
} as const satisfies Record<keyof AuthorizationParams, string>;

const oauthParam = Type.Optional(Type.String());
/** The sign-in forms of the consent page, as /openapi.json describes them (the route parses the form). */
const SignInForm = {
  content: {
    'application/x-www-form-urlencoded': {
      schema: Type.Object(
        {
          ...Object.fromEntries(Object.values(PARAMS).map((name) => [name, oauthParam])),
          email: oauthParam,
          password: oauthParam,
          challenge_token: oauthParam,
          code: oauthParam,
          sign_in_token: Type.String({ description: "the sign-in page's token (also in its cookie)" }),
        },
        { additionalProperties: true },
      ),
    },
  },
};
const signInResponses = (page200: string) => ({
  200: mediaResponse('text/html', page200),
  303: NoBody('signed in: back to the consent page (GET /oauth/authorize)'),
  400: mediaResponse('text/html', 'an untrusted authorization request, or a form that is not one'),
  401: mediaResponse('text/html', 'the sign-in page again: wrong email, password or code'),
  403: mediaResponse('text/html', 'the sign-in page again: the form expired'),
  429: mediaResponse('text/html', 'the sign-in page again: too many attempts (Retry-After)'),
});
/** The programmatic consent decision (DESIGN.md, OAuth): the OAuth parameters in camelCase. */
const DecisionBody = Type.Object({
  clientId: Type.String(),
  redirectUri: Type.String(),
  scope: Type.String(),
  state: Type.Optional(Type.String()),
  codeChallenge: Type.String(),
  codeChallengeMethod: Type.Literal('S256'),
  decision: Type.Union([Type.Literal('approve'), Type.Literal('deny')]),
});

/**
 * Reads the authorization parameters from a query or form. A parameter sent twice makes the request
 * untrusted when it names the client or the redirect URI, invalid otherwise (RFC 6749 §3.1).
 */
function readParams(source: Record<string, unknown>): { params: AuthorizationParams; repeated: string | undefined } {
  let repeated: string | undefined;
  const params = {} as AuthorizationParams;
  for (const [field, name] of Object.entries(PARAMS) as [keyof AuthorizationParams, string][]) {
    const value = source[name];
    if (Array.isArray(value)) repeated ??= name;
    // An empty parameter is an absent one (RFC 6749 §3.1).
    params[field] = typeof value === 'string' && value !== '' ? value : undefined;
  }
  return { params, repeated };
}

function fieldsOf(params: AuthorizationParams): RequestFields {
  return Object.fromEntries(
    Object.entries(PARAMS).map(([field, name]) => [name, params[field as keyof AuthorizationParams]]),
  );
}

async function check(
  ctx: HttpServices['ctx'],
  read: { params: AuthorizationParams; repeated: string | undefined },
): Promise<AuthorizationCheck> {
  if (read.repeated === 'client_id' || read.repeated === 'redirect_uri') {
    return { kind: 'untrusted', reason: `${read.repeated} is sent more than once` };
  }
  const result = await checkAuthorizationRequest(ctx, read.params);
  if (result.kind === 'untrusted' || read.repeated === undefined) return result;
  return {
    kind: 'redirect-error',
    redirectUri: result.kind === 'valid' ? result.request.redirectUri : result.redirectUri,
    state: undefined,
    error: 'invalid_request',
    description: `${read.repeated} is sent more than once`,
  };
}

function secureCookies(ctx: HttpServices['ctx']): boolean {
  return ctx.config.publicBaseUrl.startsWith('https:');
}

/** The authorization endpoint again, with the same request (after signing in). */
function authorizeUrl(fields: RequestFields): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) query.set(name, value);
  return `/oauth/authorize?${query.toString()}`;
}

/**
 * The browser half of the authorization code flow: the consent page (with sign-in first when the
 * browser has no admin session), and the decision, posted by that page's form or sent as JSON with
 * X-Session-Token by a program acting for a signed-in admin.
 */
export const oauthAuthorizeRoutes: FastifyPluginAsyncTypebox<HttpServices> = async (app, { ctx }) => {
  authorizePageRoutes(app, ctx);
  consentSignInRoutes(app, ctx);
  decisionRoutes(app, ctx);
};

/** The page for a valid request: sign-in without a session, a refusal for a non-admin, else the consent page. */
async function showRequest(
  ctx: HttpServices['ctx'],
  reply: FastifyReply,
  params: AuthorizationParams,
  session: { principal: SessionPrincipal; token: string } | null,
  result: Extract<AuthorizationCheck, { kind: 'valid' }>,
) {
  const fields = fieldsOf(params);
  if (!session) {
    return signInPage(reply, {
      status: 200,
      fields,
      signInToken: issueSignInToken(reply, secureCookies(ctx)),
      clientName: result.request.client.name,
    });
  }
  const csrfToken = csrfTokenFor(session.token);
  if (!mayConsent(session.principal.user)) {
    return notAdminPage(reply, {
      fields,
      csrfToken,
      clientName: result.request.client.name,
      email: session.principal.user.email,
    });
  }
  return consentPage(reply, { fields, csrfToken, view: await consentView(ctx, session.principal, result.request) });
}

/** The sign-in forms' common start: the request re-checked, the page's sign-in token matched. */
async function signInStep(ctx: HttpServices['ctx'], request: FastifyRequest, reply: FastifyReply) {
  const form = parseForm(request.body);
  if (!form.ok) throw badRequest(form.reason);
  const read = readParams(form.params);
  const result = await check(ctx, read);
  if (result.kind === 'untrusted') return { done: untrustedPage(reply, result.reason) };
  if (result.kind === 'redirect-error') {
    return { done: reply.redirect(errorRedirect(result, ctx.config.publicBaseUrl), 303) };
  }
  const fields = fieldsOf(read.params);
  const clientName = result.request.client.name;
  const again = (status: number, error: string) =>
    signInPage(reply, {
      status,
      fields,
      signInToken: issueSignInToken(reply, secureCookies(ctx)),
      clientName,
      error,
      email: form.params['email'] ?? '',
    });
  // Login CSRF: the post must carry the token of the page this browser was shown.
  if (!sameSecret(form.params['sign_in_token'], cookieOf(request, SIGN_IN_COOKIE))) {
    return { done: again(403, 'The sign-in form expired; please sign in again.') };
  }
  const signedIn = (opened: SessionOpened) => {
    setSessionCookie(reply, opened.sessionToken, new Date(opened.expiresAt), ctx.clock.now(), secureCookies(ctx));
    return reply.redirect(authorizeUrl(fields), 303);
  };
  return { form: form.params, fields, clientName, again, signedIn };
}

/** The authorization endpoint: the sign-in or consent page. */
function authorizePageRoutes(app: RouteApp, ctx: HttpServices['ctx']): void {
  app.get(
    '/oauth/authorize',
    {
      schema: {
        tags: ['oauth'],
        description:
          'Authorization endpoint (RFC 6749 §4.1.1 with PKCE S256): query response_type=code, client_id, redirect_uri, scope, state, code_challenge, code_challenge_method=S256. Answers an HTML page: sign-in, then consent. An unknown client or unregistered redirect_uri answers 400 and never redirects; other errors redirect with error and state.',
        response: {
          200: mediaResponse('text/html', 'the sign-in or consent page'),
          302: NoBody('to the redirect URI with error and state'),
          400: mediaResponse('text/html', 'an unknown client or an unregistered redirect_uri: never redirected'),
        },
      },
    },
    async (request, reply) => {
      const read = readParams(request.query as Record<string, unknown>);
      const result = await check(ctx, read);
      if (result.kind === 'untrusted') return untrustedPage(reply, result.reason);
      if (result.kind === 'redirect-error') return reply.redirect(errorRedirect(result, ctx.config.publicBaseUrl), 302);
      // A cookie of another platform's admin cannot approve this platform's client: treated as signed out.
      const session =
        request.browserSession?.principal.platformId === result.request.client.platformId
          ? request.browserSession
          : null;
      return showRequest(ctx, reply, read.params, session, result);
    },
  );
}

/** The consent page's sign-in forms: password, then the second factor. */
function consentSignInRoutes(app: RouteApp, ctx: HttpServices['ctx']): void {
  app.post(
    '/oauth/authorize/sign-in',
    {
      schema: {
        tags: ['oauth'],
        description:
          'The sign-in form of the consent page (application/x-www-form-urlencoded): email, password, the sign-in token of the page and the authorization request; signs in through the login use case (its limits apply) and returns to the consent page, or asks for the TOTP code of a user with 2FA.',
        documentedBody: SignInForm,
        response: signInResponses('the code page of a user with 2FA'),
      },
    },
    async (request, reply) => {
      const step = await signInStep(ctx, request, reply);
      if ('done' in step) return step.done;
      let outcome: LoginResult;
      try {
        outcome = await login(ctx, step.form['email'] ?? '', step.form['password'] ?? '', clientOf(request));
      } catch (error) {
        if (error instanceof AppError && error.status === 401) return step.again(401, 'Wrong email or password.');
        if (error instanceof AppError && error.status === 429) {
          if (error.headers) reply.headers(error.headers);
          return step.again(429, 'Too many sign-in attempts; please wait and try again.');
        }
        throw error;
      }
      if ('sessionToken' in outcome) return step.signedIn(outcome);
      return codePage(reply, {
        status: 200,
        fields: step.fields,
        signInToken: issueSignInToken(reply, secureCookies(ctx)),
        clientName: step.clientName,
        challengeToken: outcome.challengeToken,
      });
    },
  );

  app.post(
    '/oauth/authorize/sign-in/2fa',
    {
      schema: {
        tags: ['oauth'],
        description:
          'The second sign-in step of the consent page (form): the challenge token of the code page, a TOTP or recovery code and the sign-in token; then returns to the consent page.',
        documentedBody: SignInForm,
        response: signInResponses('never: a right code returns to the consent page'),
      },
    },
    async (request, reply) => {
      const step = await signInStep(ctx, request, reply);
      if ('done' in step) return step.done;
      const challengeToken = step.form['challenge_token'] ?? '';
      try {
        return step.signedIn(
          await completeLoginChallenge(ctx, challengeToken, step.form['code'] ?? '', clientOf(request)),
        );
      } catch (error) {
        if (error instanceof AppError && error.code === 'invalid_code') {
          return codePage(reply, {
            status: 401,
            fields: step.fields,
            signInToken: issueSignInToken(reply, secureCookies(ctx)),
            clientName: step.clientName,
            challengeToken,
            error: 'Wrong or already used code.',
          });
        }
        if (error instanceof AppError && error.status === 401) {
          return step.again(401, 'The sign-in expired or had too many wrong codes; please sign in again.');
        }
        if (error instanceof AppError && error.status === 429) {
          if (error.headers) reply.headers(error.headers);
          return step.again(429, 'Too many sign-in attempts; please wait and try again.');
        }
        throw error;
      }
    },
  );
}

/** The admin's decision on the request. */
function decisionRoutes(app: RouteApp, ctx: HttpServices['ctx']): void {
  app.post(
    '/oauth/authorize/decision',
    {
      schema: {
        tags: ['oauth'],
        description:
          "The admin's decision. Either the consent page's form (browser session cookie, csrf_token, OAuth parameter names, decision=approve|deny) or JSON with X-Session-Token: {clientId, redirectUri, scope, state, codeChallenge, codeChallengeMethod, decision}. Answers 302 to the redirect URI with code and state, or error=access_denied.",
        documentedBody: {
          content: {
            'application/json': { schema: DecisionBody },
            'application/x-www-form-urlencoded': {
              schema: { type: 'object', additionalProperties: { type: 'string' } },
            },
          },
        },
        response: {
          302: NoBody('to the redirect URI with code and state, or error=access_denied'),
          ...errorResponses(400, 401, 403),
        },
      },
    },
    async (request, reply) => {
      const browser = request.browserSession !== null;
      const { read, decision } = browser ? formDecision(request) : jsonDecision(request);
      const result = await check(ctx, read);
      if (result.kind === 'untrusted') {
        if (browser) return untrustedPage(reply, result.reason);
        throw badRequest(`${result.reason}; nothing was sent to the application`);
      }
      if (result.kind === 'redirect-error') return reply.redirect(errorRedirect(result, ctx.config.publicBaseUrl), 302);
      const session = principalOf(request);
      if (session.kind !== 'session') throw unauthorized();
      return reply.redirect(await decideConsent(ctx, session, result.request, decision), 302);
    },
  );
}

function decisionOf(value: unknown): Decision {
  if (value === 'approve' || value === 'deny') return value;
  throw badRequest('decision must be approve or deny', { field: 'decision' });
}

function formDecision(request: FastifyRequest) {
  const form = parseForm(request.body);
  if (!form.ok) throw badRequest(form.reason);
  return { read: readParams(form.params), decision: decisionOf(form.params['decision']) };
}

/** The JSON body of a programmatic decision (DESIGN.md), in the OAuth parameters' terms. */
function jsonDecision(request: FastifyRequest) {
  const body = request.body;
  if (body === null || typeof body !== 'object' || Buffer.isBuffer(body) || Array.isArray(body)) {
    throw badRequest('the body must be a JSON object (or the consent page form with its session cookie)');
  }
  // The same parameters under their camelCase names; the response type is implied.
  const source: Record<string, unknown> = { response_type: 'code' };
  for (const [field, name] of Object.entries(PARAMS)) {
    if (field === 'responseType') continue;
    const value = (body as Record<string, unknown>)[field];
    if (value !== undefined && typeof value !== 'string') throw badRequest(`${field} must be a string`, { field });
    source[name] = value;
  }
  return { read: readParams(source), decision: decisionOf((body as Record<string, unknown>)['decision']) };
}
