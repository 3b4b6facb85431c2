import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
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
import type { HttpServices } from '../services.ts';

/** Webhook management: a platform API key or an admin session of the company. */
const keyOrSession = { auth: { key: true as const, session: true } };
const tags = ['webhooks'];
const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
/** Optional stated company on /webhooks/{id} routes: checked against the credential and the endpoint. */
const CompanyQuery = Type.Object({ companyId: Type.Optional(Type.String({ maxLength: 64 })) });

const RegisterBody = Type.Object(
  {
    companyId: Type.String({ maxLength: 64 }),
    // Presence, length and form are the use case's (url_required comes before the transport check).
    url: Type.Optional(Type.String({ maxLength: 65536 })),
    eventTypes: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 32 })),
    transport: Type.Optional(Type.String({ maxLength: 32 })),
    emailTo: Type.Optional(Type.String({ maxLength: 320 })),
    filterPredicate: Type.Optional(
      Type.Object(
        {
          bankKey: Type.Optional(Type.String({ maxLength: 64 })),
          minAmount: Type.Optional(Type.Number({ minimum: 0 })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export const webhookRoutes: FastifyPluginAsyncTypebox<HttpServices> = async (app, { ctx }) => {
  app.post(
    '/webhooks',
    { config: keyOrSession, schema: { tags, body: RegisterBody, response: errorResponses(400, 401, 403, 404) } },
    async (request, reply) => reply.status(201).send(await registerEndpoint(ctx, principalOf(request), request.body)),
  );

  app.get(
    '/webhooks',
    {
      config: keyOrSession,
      schema: {
        tags,
        querystring: Type.Object({
          companyId: Type.String({ maxLength: 64 }),
          cursor: Type.Optional(Type.String({ maxLength: 512 })),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
        }),
        response: errorResponses(400, 401, 403, 404),
      },
    },
    async (request) => listCompanyEndpoints(ctx, principalOf(request), request.query),
  );

  app.get(
    '/webhooks/:id',
    {
      config: keyOrSession,
      schema: { tags, params: IdParams, querystring: CompanyQuery, response: errorResponses(401, 403, 404) },
    },
    async (request) => getEndpoint(ctx, principalOf(request), request.params.id, request.query.companyId),
  );

  app.delete(
    '/webhooks/:id',
    {
      config: keyOrSession,
      schema: { tags, params: IdParams, querystring: CompanyQuery, response: errorResponses(401, 403, 404) },
    },
    async (request, reply) => {
      await removeEndpoint(ctx, principalOf(request), request.params.id, request.query.companyId);
      return reply.status(204).send();
    },
  );

  const stateRoutes = [
    ['enable', enableEndpoint],
    ['disable', disableEndpoint],
    ['re-enable', reEnableEndpoint],
  ] as const;
  for (const [name, change] of stateRoutes) {
    app.post(
      `/webhooks/:id/${name}`,
      {
        config: keyOrSession,
        schema: { tags, params: IdParams, querystring: CompanyQuery, response: errorResponses(401, 403, 404) },
      },
      async (request) => change(ctx, principalOf(request), request.params.id, request.query.companyId),
    );
  }

  app.post(
    '/webhooks/:id/test',
    {
      config: keyOrSession,
      schema: { tags, params: IdParams, querystring: CompanyQuery, response: errorResponses(401, 403, 404) },
    },
    async (request, reply) =>
      reply
        .status(202)
        .send(await sendTestEvent(ctx, principalOf(request), request.params.id, request.query.companyId)),
  );

  app.get(
    '/webhooks/:id/deliveries',
    {
      config: keyOrSession,
      schema: {
        tags,
        description: 'Delivery attempts, newest first, keyset-paginated.',
        params: IdParams,
        querystring: Type.Object({
          companyId: Type.Optional(Type.String({ maxLength: 64 })),
          cursor: Type.Optional(Type.String({ maxLength: 512 })),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
        }),
        response: errorResponses(400, 401, 403, 404),
      },
    },
    async (request) => listEndpointDeliveries(ctx, principalOf(request), request.params.id, request.query),
  );

  app.post(
    '/webhooks/:id/deliveries/:deliveryId/redeliver',
    {
      config: keyOrSession,
      schema: {
        tags,
        params: Type.Object({ id: Type.String({ maxLength: 64 }), deliveryId: Type.String({ maxLength: 64 }) }),
        querystring: CompanyQuery,
        response: errorResponses(401, 403, 404),
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
      config: keyOrSession,
      schema: {
        tags,
        params: IdParams,
        querystring: Type.Object({
          since: Type.Optional(Type.String({ maxLength: 64 })),
          companyId: Type.Optional(Type.String({ maxLength: 64 })),
        }),
        response: errorResponses(400, 401, 403, 404),
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

  app.post(
    '/webhooks/:id/rotate-secret',
    {
      config: keyOrSession,
      schema: {
        tags,
        params: IdParams,
        querystring: CompanyQuery,
        body: Type.Optional(
          Type.Object({ overlapHours: Type.Optional(Type.Number()) }, { additionalProperties: false }),
        ),
        response: errorResponses(400, 401, 403, 404),
      },
    },
    async (request) =>
      rotateSecret(ctx, principalOf(request), request.params.id, request.body?.overlapHours, request.query.companyId),
  );
};
