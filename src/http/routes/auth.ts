import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requireSession } from '../../app/identity/access.ts';
import { changePassword } from '../../app/identity/change-password.ts';
import { enterCompanyContext, leaveCompanyContext } from '../../app/identity/companies.ts';
import { completeLoginChallenge, login, logout, me } from '../../app/identity/sessions.ts';
import { setPasswordWithInvite } from '../../app/identity/set-password.ts';
import { clientOf, principalOf } from '../plugins/auth.ts';
import { errorResponses, Ok } from '../schemas/common.ts';
import type { HttpServices } from '../services.ts';
import type { RouteApp } from './route-app.ts';

const User = Type.Object({
  id: Type.String(),
  email: Type.String(),
  name: Type.String(),
  roles: Type.Array(Type.String()),
  status: Type.String(),
  platformId: Type.String(),
  companyId: Type.Union([Type.String(), Type.Null()]),
  workspaceAdmin: Type.Boolean(),
});

const SessionOpened = Type.Object({ sessionToken: Type.String(), expiresAt: Type.String(), user: User });
const ChallengeIssued = Type.Object({
  twoFactorRequired: Type.Literal(true),
  challengeToken: Type.String(),
  expiresAt: Type.String(),
});

export const authRoutes: FastifyPluginAsyncTypebox<HttpServices> = async (app, { ctx }) => {
  signInRoutes(app, ctx);
  sessionContextRoutes(app, ctx);
};

/** The routes of /auth/login, /auth/login/2fa, /auth/change-password and /auth/logout. */
function signInRoutes(app: RouteApp, ctx: HttpServices['ctx']): void {
  app.post(
    '/auth/login',
    {
      schema: {
        tags: ['identity'],
        description:
          'Email and password. A user with 2FA gets {twoFactorRequired, challengeToken, expiresAt} instead of a session: answer it at POST /auth/login/2fa. Limited per client address and, for failures, per account (429 with Retry-After).',
        body: Type.Object({ email: Type.String({ maxLength: 320 }), password: Type.String({ maxLength: 256 }) }),
        response: {
          200: Type.Union([SessionOpened, ChallengeIssued]),
          ...errorResponses(400, 401, 429),
        },
      },
    },
    async (request) => login(ctx, request.body.email, request.body.password, clientOf(request)),
  );

  app.post(
    '/auth/login/2fa',
    {
      schema: {
        tags: ['identity'],
        description:
          'The second login step: the challenge token and a TOTP code (or a recovery code, used up). A wrong code answers 401 invalid_code; the fifth voids the challenge, which then answers 401 unauthorized (sign in again).',
        body: Type.Object({
          challengeToken: Type.String({ maxLength: 200 }),
          code: Type.String({ minLength: 1, maxLength: 64 }),
        }),
        response: { 200: SessionOpened, ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => completeLoginChallenge(ctx, request.body.challengeToken, request.body.code, clientOf(request)),
  );

  app.post(
    '/auth/change-password',
    {
      schema: {
        tags: ['identity'],
        description: "Changes the caller's password; the user's other sessions are revoked, this one stays.",
        body: Type.Object({
          currentPassword: Type.String({ maxLength: 256 }),
          newPassword: Type.String({ maxLength: 256 }),
        }),
        response: {
          200: Type.Object({ ok: Type.Boolean(), sessionsRevoked: Type.Integer() }),
          ...errorResponses(400, 401, 429),
        },
      },
    },
    async (request) =>
      changePassword(ctx, requireSession(principalOf(request)), request.body.currentPassword, request.body.newPassword),
  );

  app.post(
    '/auth/logout',
    { schema: { tags: ['identity'], response: { 200: Ok, ...errorResponses(401) } } },
    async (request) => {
      await logout(ctx, requireSession(principalOf(request)));
      return { ok: true };
    },
  );
}

/** The routes of /auth/me, /auth/company-context and /auth/set-password. */
function sessionContextRoutes(app: RouteApp, ctx: HttpServices['ctx']): void {
  app.get(
    '/auth/me',
    {
      schema: {
        tags: ['identity'],
        response: {
          200: Type.Object({
            user: User,
            platformId: Type.String(),
            companyContextId: Type.Union([Type.String(), Type.Null()]),
          }),
          ...errorResponses(401),
        },
      },
    },
    async (request) => me(requireSession(principalOf(request))),
  );

  app.post(
    '/auth/company-context',
    {
      schema: {
        tags: ['identity'],
        body: Type.Object({ companyId: Type.String({ maxLength: 64 }) }),
        response: { 200: Ok, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => enterCompanyContext(ctx, principalOf(request), request.body.companyId),
  );

  app.delete(
    '/auth/company-context',
    { schema: { tags: ['identity'], response: { 200: Ok, ...errorResponses(401, 403) } } },
    async (request) => leaveCompanyContext(ctx, principalOf(request)),
  );

  app.post(
    '/auth/set-password',
    {
      schema: {
        tags: ['identity'],
        description: 'Redeems an invite or reset token (one time). Limited per client address (429 with Retry-After).',
        body: Type.Object({ token: Type.String({ maxLength: 200 }), password: Type.String({ maxLength: 256 }) }),
        response: { 200: Type.Object({ ok: Type.Boolean(), email: Type.String() }), ...errorResponses(400, 429) },
      },
    },
    async (request) => setPasswordWithInvite(ctx, request.body.token, request.body.password, request.ip),
  );
}
