import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { checkReadiness } from '../../app/system/readiness.ts';
import type { HttpServices } from '../services.ts';

export const systemRoutes: FastifyPluginAsyncTypebox<HttpServices> = async (app, services) => {
  app.get(
    '/health',
    { schema: { tags: ['system'], response: { 200: Type.Object({ status: Type.String() }) } } },
    async () => ({ status: 'ok' }),
  );

  app.get(
    '/version',
    { schema: { tags: ['system'], response: { 200: Type.Object({ version: Type.String() }) } } },
    async () => ({ version: services.version }),
  );

  app.get(
    '/ready',
    {
      schema: {
        tags: ['system'],
        response: {
          200: Type.Object({ ready: Type.Literal(true) }),
          503: Type.Object({ ready: Type.Literal(false), error: Type.String() }),
        },
      },
    },
    async (_request, reply) => {
      const readiness = await checkReadiness(services.ctx);
      return readiness.ready ? readiness : reply.status(503).send(readiness);
    },
  );

  app.get(
    '/fx/rates',
    {
      schema: {
        tags: ['system'],
        description: 'Indicative EUR-based rates; never used to convert a payment.',
        response: {
          200: Type.Object({
            base: Type.String(),
            rates: Type.Record(Type.String(), Type.Number()),
            asOf: Type.Union([Type.String(), Type.Null()]),
          }),
        },
      },
    },
    async () => services.fx.current(),
  );
};
