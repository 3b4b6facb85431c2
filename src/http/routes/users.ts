import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { eraseUser, resetUserPassword, updateUser } from '../../app/identity/user-lifecycle.ts';
import { createUser, listUsers } from '../../app/identity/users.ts';
import { principalOf } from '../plugins/auth.ts';
import { errorResponses, Ok } from '../schemas/common.ts';
import type { HttpServices } from '../services.ts';
import type { RouteApp } from './route-app.ts';

const UserId = Type.Object({ id: Type.String({ maxLength: 64 }) });
const UserOut = Type.Object({
  id: Type.String(),
  email: Type.String(),
  name: Type.String(),
  roles: Type.Array(Type.String()),
  status: Type.String(),
});
const Scope = Type.Object({ platformId: Type.String({ maxLength: 64 }), companyId: Type.String({ maxLength: 64 }) });

export const userRoutes: FastifyPluginAsyncTypebox<HttpServices> = async (app, { ctx }) => {
  userListRoutes(app, ctx);
  userChangeRoutes(app, ctx);
};

/** The routes of /users. */
function userListRoutes(app: RouteApp, ctx: HttpServices['ctx']): void {
  app.get(
    '/users',
    {
      schema: {
        tags: ['users'],
        querystring: Scope,
        response: {
          200: Type.Object({
            users: Type.Array(
              Type.Object({
                id: Type.String(),
                email: Type.String(),
                name: Type.String(),
                roles: Type.Array(Type.String()),
                status: Type.String(),
              }),
            ),
          }),
          ...errorResponses(401, 403, 404),
        },
      },
    },
    async (request) => listUsers(ctx, principalOf(request), request.query.platformId, request.query.companyId),
  );

  app.post(
    '/users',
    {
      // A key may create approver and viewer users by invite only (checked in the use case).
      schema: {
        tags: ['users'],
        body: Type.Object({
          platformId: Type.String({ maxLength: 64 }),
          companyId: Type.String({ maxLength: 64 }),
          email: Type.String({ maxLength: 320 }),
          name: Type.String({ maxLength: 200 }),
          roles: Type.Array(Type.String({ maxLength: 32 }), { minItems: 1, maxItems: 3 }),
          password: Type.Optional(Type.String({ maxLength: 256 })),
        }),
        response: {
          201: Type.Object({
            id: Type.String(),
            email: Type.String(),
            name: Type.String(),
            roles: Type.Array(Type.String()),
            invited: Type.Boolean(),
          }),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request, reply) => reply.status(201).send(await createUser(ctx, principalOf(request), request.body)),
  );
}

/** The routes of /users/:id and /users/:id/reset-password. */
function userChangeRoutes(app: RouteApp, ctx: HttpServices['ctx']): void {
  app.patch(
    '/users/:id',
    {
      schema: {
        tags: ['users'],
        description:
          "Changes a company user's roles and/or name. A company admin's session; an API key only among approver and viewer, and never an admin user. The last admin cannot be demoted: 409 last_admin.",
        params: UserId,
        body: Type.Object({
          ...Scope.properties,
          roles: Type.Optional(Type.Array(Type.String({ maxLength: 32 }), { minItems: 1, maxItems: 3 })),
          name: Type.Optional(Type.String({ maxLength: 200 })),
        }),
        response: { 200: UserOut, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const { platformId, companyId, roles, name } = request.body;
      return updateUser(ctx, principalOf(request), { platformId, companyId }, request.params.id, { roles, name });
    },
  );

  app.post(
    '/users/:id/reset-password',
    {
      schema: {
        tags: ['users'],
        description:
          "A company admin resets a user's password: the old one stops working, the user's sessions end, and a one-time set-password token (24 hours) is mailed. Not for an API key (403).",
        params: UserId,
        body: Scope,
        response: { 200: Ok, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { platformId, companyId } = request.body;
      return resetUserPassword(ctx, principalOf(request), { platformId, companyId }, request.params.id);
    },
  );

  app.delete(
    '/users/:id',
    {
      schema: {
        tags: ['users'],
        description:
          'Erases a company user: name and email replaced, password, 2FA and sessions removed, status erased; audit events keep the id. The last admin cannot be erased: 409 last_admin. Not for an API key (403).',
        params: UserId,
        querystring: Scope,
        response: {
          200: Type.Object({ ok: Type.Boolean(), id: Type.String(), status: Type.Literal('erased') }),
          ...errorResponses(400, 401, 403, 404, 409),
        },
      },
    },
    async (request) => {
      const { platformId, companyId } = request.query;
      return eraseUser(ctx, principalOf(request), { platformId, companyId }, request.params.id);
    },
  );
}
