import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { deleteClient, listClients, MAX_REDIRECT_URIS, registerClient } from '../../app/oauth/clients.ts';
import { deleteGrant, listGrants } from '../../app/oauth/grants.ts';
import { principalOf } from '../plugins/auth.ts';
import { errorResponses, NextCursor, PageQuery } from '../schemas/common.ts';
import type { HttpServices } from '../services.ts';
import type { RouteApp } from './route-app.ts';

const PlatformParams = Type.Object({ platformId: Type.String({ maxLength: 64 }) });
const Client = Type.Object({
  clientId: Type.String(),
  name: Type.String(),
  redirectUris: Type.Array(Type.String()),
  createdAt: Type.String(),
});
const Grant = Type.Object({
  id: Type.String(),
  clientId: Type.String(),
  clientName: Type.String(),
  userId: Type.String(),
  scopes: Type.Array(Type.String()),
  createdAt: Type.String(),
  lastUsedAt: Type.Union([Type.String(), Type.Null()]),
});

/** Installed applications (workspace admin) and the grants users gave them (DESIGN.md, OAuth). */
export const oauthAdminRoutes: FastifyPluginAsyncTypebox<HttpServices> = async (app, { ctx }) => {
  oauthClientRoutes(app, ctx);
  grantRoutes(app, ctx);
};

/** The routes of /platforms/:platformId/oauth-clients and /platforms/:platformId/oauth-clients/:clientId. */
function oauthClientRoutes(app: RouteApp, ctx: HttpServices['ctx']): void {
  app.post(
    '/platforms/:platformId/oauth-clients',
    {
      schema: {
        tags: ['oauth'],
        description:
          'Register an installed application (public client, no secret). Redirect URIs are exactly http://127.0.0.1:<port>/<path>; localhost and any other host are refused.',
        params: PlatformParams,
        body: Type.Object({
          name: Type.String({ maxLength: 200 }),
          redirectUris: Type.Array(Type.String({ maxLength: 2048 }), { maxItems: MAX_REDIRECT_URIS }),
        }),
        response: { 201: Client, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await registerClient(ctx, principalOf(request), request.params.platformId, request.body)),
  );

  app.get(
    '/platforms/:platformId/oauth-clients',
    {
      schema: {
        tags: ['oauth'],
        params: PlatformParams,
        querystring: PageQuery,
        response: {
          200: Type.Object({ items: Type.Array(Client), nextCursor: NextCursor }),
          ...errorResponses(401, 403),
        },
      },
    },
    async (request) =>
      listClients(ctx, principalOf(request), request.params.platformId, request.query.cursor, request.query.limit),
  );

  app.delete(
    '/platforms/:platformId/oauth-clients/:clientId',
    {
      schema: {
        tags: ['oauth'],
        description: 'Delete an application; every grant it holds is revoked with it.',
        params: Type.Object({ platformId: Type.String({ maxLength: 64 }), clientId: Type.String({ maxLength: 64 }) }),
        response: {
          200: Type.Object({ clientId: Type.String(), deleted: Type.Boolean(), revokedGrants: Type.Integer() }),
          ...errorResponses(401, 403, 404),
        },
      },
    },
    async (request) => deleteClient(ctx, principalOf(request), request.params.platformId, request.params.clientId),
  );
}

/** The routes of /oauth/grants and /oauth/grants/:id. */
function grantRoutes(app: RouteApp, ctx: HttpServices['ctx']): void {
  app.get(
    '/oauth/grants',
    {
      schema: {
        tags: ['oauth'],
        description: "Active grants: the signed-in user's own; a workspace admin sees the whole platform's.",
        querystring: PageQuery,
        response: {
          200: Type.Object({ items: Type.Array(Grant), nextCursor: NextCursor }),
          ...errorResponses(401, 403),
        },
      },
    },
    async (request) => listGrants(ctx, principalOf(request), request.query.cursor, request.query.limit),
  );

  app.delete(
    '/oauth/grants/:id',
    {
      schema: {
        tags: ['oauth'],
        description: 'Revoke a grant and every token of it (its own user, or a workspace admin).',
        params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
        response: {
          200: Type.Object({ id: Type.String(), revoked: Type.Boolean() }),
          ...errorResponses(401, 403, 404),
        },
      },
    },
    async (request) => deleteGrant(ctx, principalOf(request), request.params.id),
  );
}
