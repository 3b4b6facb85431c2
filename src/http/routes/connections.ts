import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { activateConnection } from '../../app/connections/activate.ts';
import { createConnection, getCompanyConnection, listCompanyConnections } from '../../app/connections/connections.ts';
import { putChannelSettings, type SettingsInput } from '../../app/connections/settings.ts';
import { pinSigningCertificate } from '../../app/connections/signing-cert.ts';
import { sendTestPayment } from '../../app/connections/test-payment.ts';
import { SFTP_SETTINGS_FIELDS } from '../../domain/banks/sftp-settings.ts';
import { principalOf } from '../plugins/auth.ts';
import { errorResponses, CompanyScopeQuery as Scope, scopeFields } from '../schemas/common.ts';
import { ConnectionList } from '../schemas/responses.ts';
import { settingsFieldsSchema } from '../schemas/settings-fields.ts';
import type { HttpServices } from '../services.ts';
import type { RouteApp } from './route-app.ts';

const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
// Field formats (user id 10 digits, transfer key 16, SMS code 10 ...) are checked by the use case
// against the bank's connectivity profile, which answers 400 naming the field.
const field = (description: string) => Type.String({ minLength: 1, maxLength: 128, description });

export const connectionRoutes: FastifyPluginAsyncTypebox<HttpServices> = async (app, { ctx }) => {
  connectionListRoutes(app, ctx);
  signingCertRoutes(app, ctx);
  activationRoutes(app, ctx);
  channelRoutes(app, ctx);
};

/** The routes of /connections and /connections/:id. */
function connectionListRoutes(app: RouteApp, ctx: HttpServices['ctx']): void {
  app.get(
    '/connections',
    {
      schema: {
        tags: ['connections'],
        querystring: Scope,
        response: { 200: ConnectionList, ...errorResponses(401, 403) },
      },
    },
    async (request) =>
      listCompanyConnections(ctx, principalOf(request), request.query.platformId, request.query.companyId),
  );

  app.post(
    '/connections',
    {
      schema: {
        tags: ['connections'],
        body: Type.Object({
          platformId: Type.String({ maxLength: 64 }),
          companyId: Type.String({ maxLength: 64 }),
          bankKey: Type.String({ maxLength: 64 }),
          environment: Type.Optional(Type.Union([Type.Literal('test'), Type.Literal('production')])),
        }),
        response: { 201: Type.Ref('Connection'), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => reply.status(201).send(await createConnection(ctx, principalOf(request), request.body)),
  );

  app.get(
    '/connections/:id',
    {
      schema: {
        tags: ['connections'],
        params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
        querystring: Scope,
        response: { 200: Type.Ref('Connection'), ...errorResponses(401, 403, 404) },
      },
    },
    async (request) =>
      getCompanyConnection(
        ctx,
        principalOf(request),
        request.query.platformId,
        request.query.companyId,
        request.params.id,
      ),
  );
}

/** The routes of /connections/:id/signing-cert. */
function signingCertRoutes(app: RouteApp, ctx: HttpServices['ctx']): void {
  app.put(
    '/connections/:id/signing-cert',
    {
      schema: {
        tags: ['connections'],
        description: 'Pin the bank signing certificate (X.509 PEM or base64 DER). The certificate is never returned.',
        params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
        body: Type.Object({
          platformId: Type.String({ maxLength: 64 }),
          companyId: Type.String({ maxLength: 64 }),
          cert: Type.String({ minLength: 1, maxLength: 65536 }),
        }),
        response: {
          200: Type.Object({ connectionId: Type.String(), certSubject: Type.String(), certExpiry: Type.String() }),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) =>
      pinSigningCertificate(ctx, principalOf(request), { connectionId: request.params.id, ...request.body }),
  );
}

/** The routes of /connections/:id/activate-op and /connections/:id/activate-nordea. */
function activationRoutes(app: RouteApp, ctx: HttpServices['ctx']): void {
  app.post(
    '/connections/:id/activate-op',
    {
      schema: {
        tags: ['connections'],
        description:
          'Activate a family A web-services connection (OP, Samlink banks): the service makes the key pair and PKCS#10 request and enrols it with the one-time transfer key.',
        params: IdParams,
        body: Type.Object(
          {
            ...scopeFields,
            userId: field('web-services user id (agreement number, 10 digits)'),
            pin: field('one-time transfer key (16 digits)'),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Ref('Connection'), ...errorResponses(400, 401, 403, 404, 502) },
      },
    },
    async (request) => {
      const { platformId, companyId, userId, pin } = request.body;
      return activateConnection(ctx, principalOf(request), {
        connectionId: request.params.id,
        platformId,
        companyId,
        family: 'A',
        fields: { userId, pin },
      });
    },
  );

  app.post(
    '/connections/:id/activate-nordea',
    {
      schema: {
        tags: ['connections'],
        description:
          'Activate a family B web-services connection (Nordea): the certificate request is authenticated by HMAC-SHA1 keyed with the 10-digit SMS activation code.',
        params: IdParams,
        body: Type.Object(
          {
            ...scopeFields,
            holderName: field('company or user name as in the agreement'),
            signerId: field('signer (user) id'),
            country: field('two-letter country code (FI, EE, LT, LV)'),
            activationCode: field('10-digit activation code sent by SMS'),
            senderId: Type.Optional(field('sender id (service bureau); defaults to the signer id')),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Ref('Connection'), ...errorResponses(400, 401, 403, 404, 502) },
      },
    },
    async (request) => {
      const { platformId, companyId, ...fields } = request.body;
      return activateConnection(ctx, principalOf(request), {
        connectionId: request.params.id,
        platformId,
        companyId,
        family: 'B',
        fields,
      });
    },
  );
}

/** The routes of /connections/:id/test-payment and /connections/:id/settings. */
function channelRoutes(app: RouteApp, ctx: HttpServices['ctx']): void {
  app.post(
    '/connections/:id/test-payment',
    {
      schema: {
        tags: ['connections'],
        description:
          "Send the bank's test payment through a test-environment connection; the readiness shows its outcome (lastTestPayment).",
        params: IdParams,
        body: Scope,
        response: {
          202: Type.Object({ documentId: Type.String(), journalNo: Type.String() }),
          ...errorResponses(400, 401, 403, 404, 409),
        },
      },
    },
    async (request, reply) =>
      reply
        .status(202)
        .send(await sendTestPayment(ctx, principalOf(request), { connectionId: request.params.id, ...request.body })),
  );

  app.put(
    '/connections/:id/settings',
    {
      schema: {
        tags: ['connections'],
        description:
          'Channel settings: `sftp` for an SFTP bank (activates the connection), `webServices` for a Finnish web-services bank. Secrets (privateKey, passphrase, password) are write-only: never answered, kept when omitted.',
        params: IdParams,
        body: Type.Object(
          {
            ...scopeFields,
            // The SFTP wizard of GET /connectivity/profiles names exactly these fields (one definition).
            sftp: Type.Optional(settingsFieldsSchema(SFTP_SETTINGS_FIELDS)),
            webServices: Type.Optional(
              Type.Object(
                {
                  customerId: Type.Optional(Type.String({ minLength: 1, maxLength: 16 })),
                  targetId: Type.Optional(Type.String({ minLength: 1, maxLength: 80 })),
                  senderId: Type.Optional(Type.String({ minLength: 1, maxLength: 35 })),
                  fileServiceUrl: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
                  certServiceUrl: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
                },
                { additionalProperties: false },
              ),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Ref('Connection'), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      putChannelSettings(ctx, principalOf(request), {
        connectionId: request.params.id,
        ...(request.body as Omit<SettingsInput, 'connectionId'>),
      }),
  );
}
