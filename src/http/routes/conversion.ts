import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { convertForBank, validateForBank } from '../../app/conversion/convert.ts';
import { getConversionJob, submitConversionJob } from '../../app/conversion/convert-async.ts';
import { badRequest } from '../../app/errors.ts';
import { principalOf } from '../plugins/auth.ts';
import { warningsHeader } from '../plugins/warnings-header.ts';
import { errorResponses } from '../schemas/common.ts';
import { mediaResponse, ValidationResult } from '../schemas/responses.ts';
import type { HttpServices } from '../services.ts';
import type { RouteApp } from './route-app.ts';

const BankParams = Type.Object({ bankKey: Type.String({ maxLength: 64 }) });
const ConvertQuery = Type.Object({
  validate: Type.Optional(Type.Boolean()),
  painVersion: Type.Optional(Type.String({ maxLength: 32 })),
});

/** The canonical payment is the raw top-level body; its shape is checked by the engine, not by Fastify. */
function bodyOf(body: unknown): unknown {
  if (body === undefined || body === null) throw badRequest('a JSON body with the canonical payment is required');
  return body;
}

export const conversionRoutes: FastifyPluginAsyncTypebox<HttpServices> = async (app, { ctx }) => {
  syncConversionRoutes(app, ctx);
  asyncConversionRoutes(app, ctx);
};

/** The routes of /validate/:bankKey and /convert/:bankKey. */
function syncConversionRoutes(app: RouteApp, ctx: HttpServices['ctx']): void {
  app.post(
    '/validate/:bankKey',
    {
      schema: {
        tags: ['conversion'],
        description: 'Validate a canonical payment for a bank: always 200 with every issue at once.',
        params: BankParams,
        documentedBody: { content: { 'application/json': { schema: Type.Ref('CanonicalPayment') } } },
        response: { 200: ValidationResult, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const result = validateForBank(ctx, bodyOf(request.body), request.params.bankKey);
      return { valid: result.valid, issues: result.issues, unknownFieldsDropped: result.unknownFieldsDropped };
    },
  );

  app.post(
    '/convert/:bankKey',
    {
      schema: {
        tags: ['conversion'],
        description: "The bank's pain.001 XML; X-Validation-Warnings lists warnings of a valid payment.",
        params: BankParams,
        querystring: ConvertQuery,
        documentedBody: { content: { 'application/json': { schema: Type.Ref('CanonicalPayment') } } },
        response: {
          200: mediaResponse('application/xml', "the bank's pain.001 XML"),
          ...errorResponses(400, 401, 404, 422),
        },
      },
    },
    async (request, reply) => {
      const result = await convertForBank(ctx, bodyOf(request.body), request.params.bankKey, request.query);
      if (result.warnings.length > 0) reply.header('X-Validation-Warnings', warningsHeader(result.warnings));
      if (result.schemaValidation) reply.header('X-Schema-Validation', result.schemaValidation.ran.join(','));
      return reply.type('application/xml; charset=utf-8').send(result.xml);
    },
  );
}

/** The routes of /convert-async/:bankKey and /convert-jobs/:id. */
function asyncConversionRoutes(app: RouteApp, ctx: HttpServices['ctx']): void {
  app.post(
    '/convert-async/:bankKey',
    {
      schema: {
        tags: ['conversion'],
        description: 'Queue a conversion of a canonical payment; poll GET /convert-jobs/{id}.',
        params: BankParams,
        querystring: ConvertQuery,
        documentedBody: { content: { 'application/json': { schema: Type.Ref('CanonicalPayment') } } },
        response: { 202: Type.Ref('ConversionJob'), ...errorResponses(400, 401, 404, 422) },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const job = await submitConversionJob(
        ctx,
        principal.platformId,
        bodyOf(request.body),
        request.params.bankKey,
        request.query,
      );
      return reply.status(202).send(job);
    },
  );

  app.get(
    '/convert-jobs/:id',
    {
      schema: {
        tags: ['conversion'],
        description:
          'The XML once succeeded (200); the job status while pending or running (202); a dead job is 200 with `failure`.',
        params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
        response: {
          200: {
            description: 'the XML of a succeeded job, or the job with its `failure` once dead',
            content: {
              'application/xml': { schema: { type: 'string' } },
              'application/json': { schema: Type.Ref('ConversionJob') },
            },
          },
          202: Type.Ref('ConversionJob'),
          ...errorResponses(401, 404),
        },
      },
    },
    async (request, reply) => {
      const view = await getConversionJob(ctx, principalOf(request).platformId, request.params.id);
      if (view.kind === 'xml') return reply.type('application/xml; charset=utf-8').send(view.xml);
      const finished = view.body.status === 'dead';
      return reply.status(finished ? 200 : 202).send(view.body);
    },
  );
}
