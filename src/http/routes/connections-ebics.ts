import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { confirmEbicsBankKeys, ebicsLetter, fetchEbicsBankKeys, initEbics } from '../../app/connections/ebics.ts';
import { principalOf } from '../plugins/auth.ts';
import { errorResponses, CompanyScopeQuery as Scope, scopeFields } from '../schemas/common.ts';
import type { HttpServices } from '../services.ts';
import type { RouteApp } from './route-app.ts';

/**
 * EBICS 3.0 onboarding (DESIGN.md, EBICS 3.0; activation family C): a company admin's session, as the
 * other activations. Field formats are checked by the use case, which answers 400 naming the field.
 */
const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
const Hashes = Type.Object({
  authentication: Type.String({ description: 'SHA-256 of the bank X002 certificate (hex)' }),
  encryption: Type.String({ description: 'SHA-256 of the bank E002 certificate (hex)' }),
});
/** A connection with its readiness (the same body as GET /connections/{id}). */
const ConnectionBody = Type.Object(
  {
    id: Type.String(),
    bankKey: Type.String(),
    status: Type.String(),
    readiness: Type.Object({}, { additionalProperties: true }),
  },
  { additionalProperties: true },
);

export const ebicsConnectionRoutes: FastifyPluginAsyncTypebox<HttpServices> = async (app, { ctx }) => {
  ebicsInitRoutes(app, ctx);
  ebicsBankKeyRoutes(app, ctx);
};

/** The routes of /connections/:id/ebics/init and /connections/:id/ebics/letter. */
function ebicsInitRoutes(app: RouteApp, ctx: HttpServices['ctx']): void {
  app.post(
    '/connections/:id/ebics/init',
    {
      schema: {
        tags: ['connections'],
        operationId: 'initEbicsSubscriber',
        summary: 'Make the EBICS keys and send INI and HIA',
        description:
          "Makes the subscriber's A006, X002 and E002 key pairs with self-signed certificates and sends them to the bank with INI and HIA (EBICS 3.0, H005). The readiness then shows `ebics.state` `awaiting-bank`: print the letter (GET .../ebics/letter) for the bank. A bank refusal answers 400 `ebics_refused` with the EBICS return code.",
        params: IdParams,
        body: Type.Object(
          {
            ...scopeFields,
            hostId: Type.String({ minLength: 1, maxLength: 35, description: "the bank's EBICS host id" }),
            partnerId: Type.String({
              minLength: 1,
              maxLength: 35,
              description: 'the customer (partner) id of the EBICS contract',
            }),
            userId: Type.String({ minLength: 1, maxLength: 35, description: 'the subscriber (user) id' }),
            url: Type.Optional(
              Type.String({ minLength: 1, maxLength: 512, description: "the bank's EBICS URL (HTTPS), unless known" }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: ConnectionBody, ...errorResponses(400, 401, 403, 404, 409, 502) },
      },
    },
    async (request) => initEbics(ctx, principalOf(request), { connectionId: request.params.id, ...request.body }),
  );

  app.get(
    '/connections/:id/ebics/letter',
    {
      schema: {
        tags: ['connections'],
        operationId: 'getEbicsLetter',
        summary: 'The EBICS initialisation letter (HTML)',
        description:
          "The printable initialisation letter with the SHA-256 hashes of the subscriber's three certificates, to sign and send to the bank.",
        params: IdParams,
        querystring: Scope,
        produces: ['text/html'],
        response: { 200: Type.String({ description: 'text/html' }), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const html = await ebicsLetter(ctx, principalOf(request), { connectionId: request.params.id, ...request.query });
      return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(html);
    },
  );
}

/** The routes of /connections/:id/ebics/bank-keys and /connections/:id/ebics/confirm-bank-keys. */
function ebicsBankKeyRoutes(app: RouteApp, ctx: HttpServices['ctx']): void {
  app.post(
    '/connections/:id/ebics/bank-keys',
    {
      schema: {
        tags: ['connections'],
        operationId: 'fetchEbicsBankKeys',
        summary: "Fetch the bank's keys (HPB)",
        description:
          "Runs HPB once the bank has accepted the letter and answers the SHA-256 hashes of the bank's authentication and encryption certificates, to compare with what the bank published (`ebics.state` `confirm-bank-keys`).",
        params: IdParams,
        body: Type.Object({ ...scopeFields }, { additionalProperties: false }),
        response: {
          200: Type.Object({ connectionId: Type.String(), state: Type.String(), bankKeyHashes: Hashes }),
          ...errorResponses(400, 401, 403, 404, 409, 502),
        },
      },
    },
    async (request) =>
      fetchEbicsBankKeys(ctx, principalOf(request), { connectionId: request.params.id, ...request.body }),
  );

  app.post(
    '/connections/:id/ebics/confirm-bank-keys',
    {
      schema: {
        tags: ['connections'],
        operationId: 'confirmEbicsBankKeys',
        summary: "Confirm the bank's key hashes and activate",
        description:
          'Compares the hashes the bank published (hex, spaces or colons allowed) with the keys HPB returned; equal activates the connection, different answers 400 `bank_key_mismatch` and changes nothing.',
        params: IdParams,
        body: Type.Object(
          {
            ...scopeFields,
            authenticationHash: Type.String({ minLength: 1, maxLength: 200 }),
            encryptionHash: Type.String({ minLength: 1, maxLength: 200 }),
          },
          { additionalProperties: false },
        ),
        response: { 200: ConnectionBody, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      confirmEbicsBankKeys(ctx, principalOf(request), { connectionId: request.params.id, ...request.body }),
  );
}
