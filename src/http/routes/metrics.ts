import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import { AppError } from '../../app/errors.ts';
import type { MetricsEndpoint } from '../services.ts';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Compares digests of equal length, so neither the token nor its length leaks through timing. */
function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match !== null && timingSafeEqual(digest(match[1] ?? ''), digest(token));
}

/** GET /metrics in the Prometheus text format; with METRICS_TOKEN set, only with that bearer token. */
export const metricsRoutes: FastifyPluginAsync<{ endpoint: MetricsEndpoint }> = async (app, { endpoint }) => {
  app.get(
    '/metrics',
    {
      schema: {
        tags: ['system'],
        description:
          'Prometheus text format. With METRICS_TOKEN set, send `Authorization: Bearer <token>`; otherwise 401.',
        ...(endpoint.token ? { security: [{ metricsToken: [] }] } : {}),
        response: {
          200: { description: 'the metrics', content: { 'text/plain': { schema: { type: 'string' } } } },
          401: { $ref: 'ErrorEnvelope#' },
        },
      },
    },
    async (request, reply) => {
      if (endpoint.token !== undefined && !bearerMatches(request.headers.authorization, endpoint.token)) {
        throw new AppError('unauthorized', 'missing or invalid metrics token', undefined, {
          'WWW-Authenticate': 'Bearer realm="metrics"',
        });
      }
      const { contentType, body } = await endpoint.render();
      return reply.header('Cache-Control', 'no-store').type(contentType).send(body);
    },
  );
};
