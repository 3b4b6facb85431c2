import type { FastifyInstance } from 'fastify';
import type { ApiLoad } from '../../platform/api-load.ts';

/** Counts the requests in flight for the workers of the same process (docs/adr/0083). */
export function registerApiLoad(app: FastifyInstance, load: ApiLoad | undefined): void {
  if (load === undefined) return;
  app.addHook('onRequest', async (_request, reply) => {
    // `close` fires once whether the response ended or the connection went away first.
    reply.raw.once('close', load.begin());
  });
}
