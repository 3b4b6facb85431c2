import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { checkReadiness } from '../../app/system/readiness.ts';
import type { HttpServices } from '../services.ts';

/** Present when this process runs workers (ROLE=worker|all). */
const WorkersStatus = Type.Optional(
  Type.Object({
    running: Type.Boolean(),
    stalled: Type.Array(Type.String(), { description: 'loops or queues with no progress for WORKER_STALL_SECONDS' }),
  }),
);

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
          200: Type.Object({ ready: Type.Literal(true), workers: WorkersStatus }),
          503: Type.Object({ ready: Type.Literal(false), error: Type.String(), workers: WorkersStatus }),
        },
      },
    },
    async (_request, reply) => {
      const readiness = await checkReadiness(services.ctx, services.workers);
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
