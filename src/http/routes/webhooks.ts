import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError } from '../../app/errors.ts';
import { listEndpointDeliveries, redeliver, redeliverFailed, sendTestEvent } from '../../app/webhooks/deliveries.ts';
import {
  disableEndpoint,
  enableEndpoint,
  getEndpoint,
  listCompanyEndpoints,
  reEnableEndpoint,
  registerEndpoint,
  removeEndpoint,
  rotateSecret,
} from '../../app/webhooks/endpoints.ts';
import { principalOf } from '../plugins/auth.ts';
import { errorResponses } from '../schemas/common.ts';
import {
  DeliveryQueued,
  NoBody,
  RedeliveredCount,
  SecretRotated,
  WebhookDeliveryList,
  WebhookEndpointList,
  WebhookRegistered,
} from '../schemas/responses.ts';
import type { HttpServices } from '../services.ts';
import type { RouteApp } from './route-app.ts';

const tags = ['webhooks'];
const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
/** Optional stated company on /webhooks/{id} routes: checked against the credential and the endpoint. */
const CompanyQuery = Type.Object({ companyId: Type.Optional(Type.String({ maxLength: 64 })) });

/**
 * Types only: presence (url_required first), unknown fields (validation_failed) and the value rules
 * are the use case's, in the contract's order.
 */
const RegisterBody = Type.Object({
  companyId: Type.Optional(Type.String({ maxLength: 64 })),
  url: Type.Optional(Type.String({ maxLength: 65536 })),
  eventTypes: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 32 })),
  transport: Type.Optional(Type.String({ maxLength: 32 })),
  emailTo: Type.Optional(Type.String({ maxLength: 320 })),
  filterPredicate: Type.Optional(
    Type.Object({
      bankKey: Type.Optional(Type.String({ maxLength: 64 })),
      minAmount: Type.Optional(Type.Number({ minimum: 0 })),
    }),
  ),
});

/** rotate-secret takes no body or {overlapHours: number}; anything else is 400 validation_failed. */
function overlapOf(raw: unknown): number | undefined {
  if (raw === undefined || raw === null) return undefined;
  const issue = (message: string) =>
    new AppError('validation_failed', message, { issues: [{ path: 'body', message }] });
  if (typeof raw !== 'object' || Array.isArray(raw)) throw issue('the body must be an object');
  const extra = Object.keys(raw).filter((k) => k !== 'overlapHours');
  if (extra.length > 0) throw issue(`unknown fields: ${extra.join(', ')}`);
  const hours = (raw as { overlapHours?: unknown }).overlapHours;
  if (hours === undefined) return undefined;
  if (typeof hours !== 'number' || !Number.isFinite(hours)) throw issue('overlapHours must be a number');
  return hours;
}

export const webhookRoutes: FastifyPluginAsyncTypebox<HttpServices> = async (app, { ctx }) => {
  endpointRoutes(app, ctx);
  endpointStateRoutes(app, ctx);
  deliveryRoutes(app, ctx);
  secretRoutes(app, ctx);
};

/** The routes of /webhooks and /webhooks/:id. */
function endpointRoutes(app: RouteApp, ctx: HttpServices['ctx']): void {
  app.post(
    '/webhooks',
    {
      schema: {
        tags,
        body: RegisterBody,
        response: { 201: WebhookRegistered, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => reply.status(201).send(await registerEndpoint(ctx, principalOf(request), request.body)),
  );

  app.get(
    '/webhooks',
    {
      schema: {
        tags,
        querystring: Type.Object({
          companyId: Type.String({ maxLength: 64 }),
          cursor: Type.Optional(Type.String({ maxLength: 512 })),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
        }),
        response: { 200: WebhookEndpointList, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => listCompanyEndpoints(ctx, principalOf(request), request.query),
  );

  app.get(
    '/webhooks/:id',
    {
      schema: {
        tags,
        params: IdParams,
        querystring: CompanyQuery,
        response: { 200: Type.Ref('WebhookEndpoint'), ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => getEndpoint(ctx, principalOf(request), request.params.id, request.query.companyId),
  );

  app.delete(
    '/webhooks/:id',
    {
      schema: {
        tags,
        params: IdParams,
        querystring: CompanyQuery,
        response: { 204: NoBody('removed'), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await removeEndpoint(ctx, principalOf(request), request.params.id, request.query.companyId);
      return reply.status(204).send(null);
    },
  );
}

/** The routes of /webhooks/:id/enable, /webhooks/:id/disable, /webhooks/:id/re-enable and /webhooks/:id/test. */
function endpointStateRoutes(app: RouteApp, ctx: HttpServices['ctx']): void {
  const stateRoutes = [
    ['enable', enableEndpoint],
    ['disable', disableEndpoint],
    ['re-enable', reEnableEndpoint],
  ] as const;
  for (const [name, change] of stateRoutes) {
    app.post(
      `/webhooks/:id/${name}`,
      {
        schema: {
          tags,
          params: IdParams,
          querystring: CompanyQuery,
          response: { 200: Type.Ref('WebhookEndpoint'), ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => change(ctx, principalOf(request), request.params.id, request.query.companyId),
    );
  }

  app.post(
    '/webhooks/:id/test',
    {
      schema: {
        tags,
        params: IdParams,
        querystring: CompanyQuery,
        response: { 202: DeliveryQueued, ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) =>
      reply
        .status(202)
        .send(await sendTestEvent(ctx, principalOf(request), request.params.id, request.query.companyId)),
  );
}

/** The routes of /webhooks/:id/deliveries, /webhooks/:id/deliveries/:deliveryId/redeliver and /webhooks/:id/redeliver-failed. */
function deliveryRoutes(app: RouteApp, ctx: HttpServices['ctx']): void {
  app.get(
    '/webhooks/:id/deliveries',
    {
      schema: {
        tags,
        description: 'Delivery attempts, newest first, keyset-paginated.',
        params: IdParams,
        querystring: Type.Object({
          companyId: Type.Optional(Type.String({ maxLength: 64 })),
          cursor: Type.Optional(Type.String({ maxLength: 512 })),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
        }),
        response: { 200: WebhookDeliveryList, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => listEndpointDeliveries(ctx, principalOf(request), request.params.id, request.query),
  );

  app.post(
    '/webhooks/:id/deliveries/:deliveryId/redeliver',
    {
      schema: {
        tags,
        params: Type.Object({ id: Type.String({ maxLength: 64 }), deliveryId: Type.String({ maxLength: 64 }) }),
        querystring: CompanyQuery,
        response: { 202: DeliveryQueued, ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) =>
      reply
        .status(202)
        .send(
          await redeliver(
            ctx,
            principalOf(request),
            request.params.id,
            request.params.deliveryId,
            request.query.companyId,
          ),
        ),
  );

  app.post(
    '/webhooks/:id/redeliver-failed',
    {
      schema: {
        tags,
        params: IdParams,
        querystring: Type.Object({
          since: Type.Optional(Type.String({ maxLength: 64 })),
          companyId: Type.Optional(Type.String({ maxLength: 64 })),
        }),
        response: { 202: RedeliveredCount, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) =>
      reply
        .status(202)
        .send(
          await redeliverFailed(
            ctx,
            principalOf(request),
            request.params.id,
            request.query.since,
            request.query.companyId,
          ),
        ),
  );
}

/** The routes of /webhooks/:id/rotate-secret. */
function secretRoutes(app: RouteApp, ctx: HttpServices['ctx']): void {
  app.post(
    '/webhooks/:id/rotate-secret',
    {
      schema: {
        tags,
        params: IdParams,
        querystring: CompanyQuery,
        // Described, not validated: no body is valid too, and overlapOf() checks a given one.
        bodyOptional: true,
        documentedBody: Type.Object(
          { overlapHours: Type.Optional(Type.Number({ description: 'default 24, clamped to 1..72' })) },
          { additionalProperties: false },
        ),
        response: { 200: SecretRotated, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      rotateSecret(ctx, principalOf(request), request.params.id, overlapOf(request.body), request.query.companyId),
  );
}
