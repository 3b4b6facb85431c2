import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { createUser, listUsers } from '../../app/identity/users.ts';
import { principalOf } from '../plugins/auth.ts';
import { errorResponses } from '../schemas/common.ts';
import type { HttpServices } from '../services.ts';

const Scope = Type.Object({ platformId: Type.String({ maxLength: 64 }), companyId: Type.String({ maxLength: 64 }) });

export const userRoutes: FastifyPluginAsyncTypebox<HttpServices> = async (app, { ctx }) => {
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
          ...errorResponses(401, 403),
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
};
