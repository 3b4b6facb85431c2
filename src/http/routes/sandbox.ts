import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { provisionSandbox } from '../../app/sandbox/provision.ts';
import { errorResponses } from '../schemas/common.ts';
import type { HttpServices } from '../services.ts';

const Provisioned = Type.Object({
  apiKey: Type.String(),
  companyId: Type.String(),
  platformId: Type.String(),
  baseUrl: Type.String(),
  subdomain: Type.String(),
  bank: Type.Object({ key: Type.String(), name: Type.String(), country: Type.String() }),
  dashboardLogin: Type.Object({
    url: Type.String(),
    subdomain: Type.String(),
    email: Type.String(),
    password: Type.String(),
  }),
  firstPayment: Type.Object({
    method: Type.String(),
    url: Type.String(),
    headers: Type.Record(Type.String(), Type.String()),
    body: Type.Record(Type.String(), Type.Unknown()),
  }),
});

export const sandboxRoutes: FastifyPluginAsyncTypebox<HttpServices> = async (app, { ctx }) => {
  app.post(
    '/sandbox/provision',
    {
      config: { rateLimit: { max: 5, timeWindow: '1 hour' } },
      // The body is optional: a bare POST provisions with the defaults.
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        tags: ['sandbox'],
        description: 'Provision an isolated sandbox with a demo-bank connection. 5 per hour per IP.',
        body: Type.Object({
          bankKey: Type.Optional(Type.String({ maxLength: 64 })),
          companyName: Type.Optional(Type.String({ maxLength: 200 })),
          label: Type.Optional(Type.String({ maxLength: 200 })),
        }),
        response: { 201: Provisioned, ...errorResponses(400, 404, 429) },
      },
    },
    async (request, reply) => reply.status(201).send(await provisionSandbox(ctx, request.body)),
  );
};
