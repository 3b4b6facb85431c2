import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { createAdmin, listAdmins } from '../../app/identity/admins.ts';
import { createApiKey, deleteApiKey, listApiKeys } from '../../app/identity/api-keys.ts';
import { createCompany, listPlatformCompanies } from '../../app/identity/companies.ts';
import { principalOf } from '../plugins/auth.ts';
import { errorResponses, NextCursor, PageQuery } from '../schemas/common.ts';
import type { HttpServices } from '../services.ts';
import type { RouteApp } from './route-app.ts';

const PlatformParams = Type.Object({ platformId: Type.String({ maxLength: 64 }) });
const Company = Type.Object({ id: Type.String(), name: Type.String(), createdAt: Type.String() });
const KeyMeta = Type.Object({
  id: Type.String(),
  label: Type.String(),
  createdAt: Type.String(),
  lastUsedAt: Type.Union([Type.String(), Type.Null()]),
});
const Admin = Type.Object({ id: Type.String(), email: Type.String(), name: Type.String() });

export const platformRoutes: FastifyPluginAsyncTypebox<HttpServices> = async (app, { ctx }) => {
  companyRoutes(app, ctx);
  apiKeyRoutes(app, ctx);
  platformAdminRoutes(app, ctx);
};

/** The routes of /platforms/:platformId/companies. */
function companyRoutes(app: RouteApp, ctx: HttpServices['ctx']): void {
  app.get(
    '/platforms/:platformId/companies',
    {
      schema: {
        tags: ['workspace'],
        params: PlatformParams,
        querystring: PageQuery,
        response: {
          200: Type.Object({ items: Type.Array(Company), nextCursor: NextCursor }),
          ...errorResponses(401, 403),
        },
      },
    },
    async (request) =>
      listPlatformCompanies(
        ctx,
        principalOf(request),
        request.params.platformId,
        request.query.cursor,
        request.query.limit,
      ),
  );

  app.post(
    '/platforms/:platformId/companies',
    {
      schema: {
        tags: ['workspace'],
        params: PlatformParams,
        body: Type.Object({ name: Type.String() }),
        response: { 201: Type.Object({ company: Company }), ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(await createCompany(ctx, principalOf(request), request.params.platformId, request.body.name)),
  );
}

/** The routes of /platforms/:platformId/api-keys and /platforms/:platformId/api-keys/:keyId. */
function apiKeyRoutes(app: RouteApp, ctx: HttpServices['ctx']): void {
  app.get(
    '/platforms/:platformId/api-keys',
    {
      schema: {
        tags: ['workspace'],
        params: PlatformParams,
        querystring: PageQuery,
        response: {
          200: Type.Object({ items: Type.Array(KeyMeta), nextCursor: NextCursor }),
          ...errorResponses(401, 403),
        },
      },
    },
    async (request) =>
      listApiKeys(ctx, principalOf(request), request.params.platformId, request.query.cursor, request.query.limit),
  );

  app.post(
    '/platforms/:platformId/api-keys',
    {
      schema: {
        tags: ['workspace'],
        params: PlatformParams,
        body: Type.Object({ label: Type.String() }),
        response: {
          201: Type.Object({ id: Type.String(), key: Type.String(), label: Type.String(), createdAt: Type.String() }),
          ...errorResponses(400, 401, 403),
        },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(await createApiKey(ctx, principalOf(request), request.params.platformId, request.body.label)),
  );

  app.delete(
    '/platforms/:platformId/api-keys/:keyId',
    {
      schema: {
        tags: ['workspace'],
        params: Type.Object({ platformId: Type.String({ maxLength: 64 }), keyId: Type.String({ maxLength: 64 }) }),
        response: {
          200: Type.Object({ id: Type.String(), revoked: Type.Boolean() }),
          ...errorResponses(401, 403, 404),
        },
      },
    },
    async (request) => deleteApiKey(ctx, principalOf(request), request.params.platformId, request.params.keyId),
  );
}

/** The routes of /platforms/:platformId/admins. */
function platformAdminRoutes(app: RouteApp, ctx: HttpServices['ctx']): void {
  app.get(
    '/platforms/:platformId/admins',
    {
      schema: {
        tags: ['workspace'],
        params: PlatformParams,
        querystring: PageQuery,
        response: {
          200: Type.Object({ items: Type.Array(Admin), nextCursor: NextCursor }),
          ...errorResponses(401, 403),
        },
      },
    },
    async (request) =>
      listAdmins(ctx, principalOf(request), request.params.platformId, request.query.cursor, request.query.limit),
  );

  app.post(
    '/platforms/:platformId/admins',
    {
      // Bootstrap: without credentials, allowed only while the platform has no admin.
      schema: {
        tags: ['workspace'],
        params: PlatformParams,
        body: Type.Object({
          email: Type.String({ maxLength: 320 }),
          name: Type.String({ maxLength: 200 }),
          password: Type.String({ maxLength: 256 }),
        }),
        response: { 201: Admin, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await createAdmin(ctx, request.principal, request.params.platformId, request.body)),
  );
}
