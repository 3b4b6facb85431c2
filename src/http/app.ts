import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import { AppError } from '../app/errors.ts';
import { dashboardRoutes } from './dashboard/plugin.ts';
import { registerApiLoad } from './plugins/api-load.ts';
import { registerAuth } from './plugins/auth.ts';
import { registerBodyParsers } from './plugins/body-parsers.ts';
import { frameworkErrorHandler, registerErrors } from './plugins/errors.ts';
import { registerInputGuard } from './plugins/input-guard.ts';
import { registerRequestId, requestIdFor } from './plugins/request-id.ts';
import { registerRequestMetrics } from './plugins/request-metrics.ts';
import { registerServiceVersion } from './plugins/service-version.ts';
import { sharedRateLimitStore } from './plugins/shared-rate-limit-store.ts';
import { registerTracing } from './plugins/tracing.ts';
import { accountsRoutes } from './routes/accounts.ts';
import { approvalRoutes } from './routes/approvals.ts';
import { authRoutes } from './routes/auth.ts';
import { bankSettingsRoutes } from './routes/bank-settings.ts';
import { billingRoutes } from './routes/billing.ts';
import { connectionRoutes } from './routes/connections.ts';
import { ebicsConnectionRoutes } from './routes/connections-ebics.ts';
import { conversionRoutes } from './routes/conversion.ts';
import { discoveryRoutes } from './routes/discovery.ts';
import { inboundRoutes } from './routes/inbound.ts';
import { journalIngestRoutes } from './routes/journal-ingest.ts';
import { journalReadRoutes } from './routes/journal-read.ts';
import { journalSubmitRoutes } from './routes/journal-submit.ts';
import { meRoutes } from './routes/me.ts';
import { metricsRoutes } from './routes/metrics.ts';
import { oauthAdminRoutes } from './routes/oauth-admin.ts';
import { oauthAuthorizeRoutes } from './routes/oauth-authorize.ts';
import { oauthTokenRoutes } from './routes/oauth-token.ts';
import { platformRoutes } from './routes/platforms.ts';
import { receivablesRoutes } from './routes/receivables.ts';
import { sandboxRoutes } from './routes/sandbox.ts';
import { systemRoutes } from './routes/system.ts';
import { userRoutes } from './routes/users.ts';
import { webhookRoutes } from './routes/webhooks.ts';
import { ErrorEnvelope } from './schemas/common.ts';
import { BankProfile, PaymentType } from './schemas/discovery.ts';
import { describeRoute, finishDocument } from './schemas/openapi-document.ts';
import { RESPONSE_COMPONENTS } from './schemas/responses.ts';
import type { HttpServices } from './services.ts';

/** Body limit for JSON and bank files; a larger body is refused with 413 before it is read whole. */
export const BODY_LIMIT_BYTES = 10 * 1024 * 1024;

/** The Fastify app, never listening: the composition root listens, tests inject. */
export async function buildApp(services: HttpServices): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: services.ctx.logger as FastifyBaseLogger,
    genReqId: requestIdFor,
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
    bodyLimit: BODY_LIMIT_BYTES,
    frameworkErrors: frameworkErrorHandler,
    // Every route is also served under /api (DESIGN.md): the prefix is dropped before routing.
    rewriteUrl: (req) => {
      const url = req.url ?? '/';
      if (url === '/api' || url.startsWith('/api?')) return `/${url.slice(4)}`;
      return url.startsWith('/api/') ? url.slice(4) : url;
    },
    ajv: { customOptions: { removeAdditional: false, allErrors: true, coerceTypes: 'array', useDefaults: true } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.addSchema(ErrorEnvelope);
  app.addSchema(PaymentType);
  app.addSchema(BankProfile);
  for (const schema of RESPONSE_COMPONENTS) app.addSchema(schema);
  registerTracing(app);
  registerRequestMetrics(app, services.ctx.metrics);
  registerApiLoad(app, services.ctx.apiLoad);
  registerErrors(app);
  registerRequestId(app);
  registerServiceVersion(app);
  registerBodyParsers(app);
  registerInputGuard(app);
  registerAuth(app, services.ctx);

  await app.register(rateLimit, {
    global: false,
    // Counted in PostgreSQL: every API process on the database shares the counters.
    store: sharedRateLimitStore(services.ctx),
    errorResponseBuilder: (_request, context) =>
      new AppError('rate_limited', `too many requests; retry after ${Math.ceil(context.ttl / 1000)} s`, {
        retryAfterSeconds: Math.ceil(context.ttl / 1000),
      }),
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Payment operations API',
        version: services.version,
        description: 'Canonical payments to bank pain.001, journal, inbound bank files and reconciliation.',
      },
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
          session: { type: 'apiKey', in: 'header', name: 'X-Session-Token' },
          oauth: { type: 'http', scheme: 'bearer', description: "An installed application's OAuth access token" },
          // Only where GET /metrics is served (metrics on): the scheme of that one route.
          ...(services.metrics ? { metricsToken: { type: 'http', scheme: 'bearer' } } : {}),
        },
      },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    // operationId, summary, tags and security per route; servers and each status's error codes (schemas/openapi-document.ts).
    transform: describeRoute as never,
    transformObject: (document) =>
      finishDocument(
        ('openapiObject' in document ? document.openapiObject : {}) as never,
        services.ctx.config.publicBaseUrl,
      ) as never,
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  await app.register(systemRoutes, services);
  if (services.metrics) await app.register(metricsRoutes, { endpoint: services.metrics });
  await app.register(sandboxRoutes, services);
  await app.register(authRoutes, services);
  await app.register(meRoutes, services);
  await app.register(billingRoutes, services);
  await app.register(platformRoutes, services);
  await app.register(userRoutes, services);
  await app.register(discoveryRoutes, services);
  await app.register(conversionRoutes, services);
  await app.register(inboundRoutes, services);
  await app.register(connectionRoutes, services);
  await app.register(ebicsConnectionRoutes, services);
  await app.register(bankSettingsRoutes, services);
  await app.register(journalSubmitRoutes, services);
  await app.register(journalIngestRoutes, services);
  await app.register(journalReadRoutes, services);
  await app.register(accountsRoutes, services);
  await app.register(receivablesRoutes, services);
  await app.register(webhookRoutes, services);
  await app.register(approvalRoutes, services);
  await app.register(oauthTokenRoutes, services);
  await app.register(oauthAuthorizeRoutes, services);
  await app.register(oauthAdminRoutes, services);
  await app.register(dashboardRoutes, services);
  return app;
}
