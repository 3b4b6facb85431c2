import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { registerErrors } from './plugins/errors.ts';
import { metricsRoutes } from './routes/metrics.ts';
import { systemRoutes } from './routes/system.ts';
import type { HttpServices } from './services.ts';

/**
 * The operations listener on METRICS_PORT: /metrics, /health, /ready and /version only, so the
 * scrape and the probes can stay on a port the load balancer does not expose. A worker process
 * (ROLE=worker) serves nothing else.
 */
export async function buildOpsApp(
  services: HttpServices & Required<Pick<HttpServices, 'metrics'>>,
): Promise<FastifyInstance> {
  const app = Fastify({ loggerInstance: services.ctx.logger as FastifyBaseLogger, disableRequestLogging: true });
  registerErrors(app);
  await app.register(systemRoutes, services);
  await app.register(metricsRoutes, { endpoint: services.metrics });
  return app;
}
