import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requireSession } from '../../app/identity/access.ts';
import { enterCompanyContext, leaveCompanyContext } from '../../app/identity/companies.ts';
import { login, logout, me } from '../../app/identity/sessions.ts';
import { setPasswordWithInvite } from '../../app/identity/set-password.ts';
import { principalOf } from '../plugins/auth.ts';
import { errorResponses, Ok } from '../schemas/common.ts';
import type { HttpServices } from '../services.ts';

const FIFTEEN_MINUTES = 15 * 60 * 1000;

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

export const authRoutes: FastifyPluginAsyncTypebox<HttpServices> = async (app, { ctx }) => {
  app.post(
    '/auth/login',
    {
      config: {
        // 10 attempts per 15 minutes for each IP and email pair. Counted once the body is parsed:
        // at the default onRequest hook the email is not known yet and the key would be the IP alone.
        rateLimit: {
          hook: 'preValidation',
          max: 10,
          timeWindow: FIFTEEN_MINUTES,
          keyGenerator: (request) => {
            const email = (request.body as { email?: unknown } | undefined)?.email;
            return `${request.ip}|${typeof email === 'string' ? email.trim().toLowerCase() : ''}`;
          },
        },
      },
      schema: {
        tags: ['identity'],
        body: Type.Object({ email: Type.String({ maxLength: 320 }), password: Type.String({ maxLength: 256 }) }),
        response: {
          200: Type.Object({ sessionToken: Type.String(), expiresAt: Type.String(), user: User }),
          ...errorResponses(400, 401, 429),
        },
      },
    },
    async (request) => login(ctx, request.body.email, request.body.password),
  );

  app.post(
    '/auth/logout',
    { schema: { tags: ['identity'], response: { 200: Ok, ...errorResponses(401) } } },
    async (request) => {
      await logout(ctx, requireSession(principalOf(request)));
      return { ok: true };
    },
  );

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
      config: { rateLimit: { max: 10, timeWindow: FIFTEEN_MINUTES } },
      schema: {
        tags: ['identity'],
        body: Type.Object({ token: Type.String({ maxLength: 200 }), password: Type.String({ maxLength: 256 }) }),
        response: { 200: Type.Object({ ok: Type.Boolean(), email: Type.String() }), ...errorResponses(400, 429) },
      },
    },
    async (request) => setPasswordWithInvite(ctx, request.body.token, request.body.password),
  );
};
