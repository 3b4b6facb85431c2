import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { createConnection, getCompanyConnection, listCompanyConnections } from '../../app/connections/connections.ts';
import { pinSigningCertificate } from '../../app/connections/signing-cert.ts';
import { principalOf } from '../plugins/auth.ts';
import { errorResponses } from '../schemas/common.ts';
import type { HttpServices } from '../services.ts';

const Scope = Type.Object({ platformId: Type.String({ maxLength: 64 }), companyId: Type.String({ maxLength: 64 }) });

export const connectionRoutes: FastifyPluginAsyncTypebox<HttpServices> = async (app, { ctx }) => {
  app.get(
    '/connections',
    { schema: { tags: ['connections'], querystring: Scope, response: errorResponses(401, 403) } },
    async (request) =>
      listCompanyConnections(ctx, principalOf(request), request.query.platformId, request.query.companyId),
  );

  app.post(
    '/connections',
    {
      schema: {
        tags: ['connections'],
        body: Type.Object({
          platformId: Type.String({ maxLength: 64 }),
          companyId: Type.String({ maxLength: 64 }),
          bankKey: Type.String({ maxLength: 64 }),
          environment: Type.Optional(Type.Union([Type.Literal('test'), Type.Literal('production')])),
        }),
        response: errorResponses(400, 401, 403, 404),
      },
    },
    async (request, reply) => reply.status(201).send(await createConnection(ctx, principalOf(request), request.body)),
  );

  app.get(
    '/connections/:id',
    {
      schema: {
        tags: ['connections'],
        params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
        querystring: Scope,
        response: errorResponses(401, 403, 404),
      },
    },
    async (request) =>
      getCompanyConnection(
        ctx,
        principalOf(request),
        request.query.platformId,
        request.query.companyId,
        request.params.id,
      ),
  );

  app.put(
    '/connections/:id/signing-cert',
    {
      schema: {
        tags: ['connections'],
        description: 'Pin the bank signing certificate (X.509 PEM or base64 DER). The certificate is never returned.',
        params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
        body: Type.Object({
          platformId: Type.String({ maxLength: 64 }),
          companyId: Type.String({ maxLength: 64 }),
          cert: Type.String({ minLength: 1, maxLength: 65536 }),
        }),
        response: {
          200: Type.Object({ connectionId: Type.String(), certSubject: Type.String(), certExpiry: Type.String() }),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) =>
      pinSigningCertificate(ctx, principalOf(request), { connectionId: request.params.id, ...request.body }),
  );
};
