import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../../platform/metrics.ts';

/**
 * Request rate and latency by route for GET /metrics: the route pattern Fastify matched
 * (`/journal/documents/:id`), never the raw URL, so ids and query strings never become labels;
 * a request that matched no route counts as `unmatched`.
 */
export function registerRequestMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', async (request, reply) => {
    metrics.httpRequest(
      request.method,
      request.routeOptions.url ?? 'unmatched',
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
  });
}
