import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import { badRequest } from '../../app/errors.ts';
import { cancelDocument } from '../../app/journal/cancel.ts';
import { previewPayment } from '../../app/journal/preview.ts';
import { submitPayment } from '../../app/journal/submit.ts';
import { refusePlatformId, type SubmitInput } from '../../app/journal/submit-request.ts';
import { principalOf } from '../plugins/auth.ts';
import { errorResponses } from '../schemas/common.ts';
import { Preview, SubmittedDocument } from '../schemas/responses.ts';
import type { HttpServices } from '../services.ts';

const SubmitBody = Type.Object({
  companyId: Type.String({ minLength: 1, maxLength: 64 }),
  bankKey: Type.String({ minLength: 1, maxLength: 64 }),
  payment: Type.Unknown({
    description:
      "The canonical payment (see POST /validate/{bankKey}; its fields beyond the contract are in the README). payments[].batchBooking (boolean) asks for PmtInf/BtchBookg where the bank's profile has batchBooking.choice (GET /profiles); elsewhere it is the validation error batch_booking_not_allowed",
  }),
  environment: Type.Optional(Type.Union([Type.Literal('test'), Type.Literal('production')])),
  validate: Type.Optional(Type.Boolean()),
  idempotencyKey: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
});
type SubmitBodyType = Static<typeof SubmitBody>;

function unknownOutcome(outcome: never): never {
  throw new Error(`unknown submit outcome ${JSON.stringify(outcome)}`);
}

/** Production submits: 120 per minute per company (DESIGN.md, Rate limits). */
export const PRODUCTION_SUBMITS_PER_MINUTE = 120;

function submitInput(request: FastifyRequest): SubmitInput {
  refusePlatformId(request.body);
  const body = request.body as SubmitBodyType;
  if (body.payment === undefined || body.payment === null)
    throw badRequest('payment is required', { field: 'payment' });
  const header = request.headers['idempotency-key'];
  if (header !== undefined && (typeof header !== 'string' || header === '' || header.length > 255)) {
    throw badRequest('Idempotency-Key must be one non-empty value of at most 255 characters');
  }
  return {
    companyId: body.companyId,
    bankKey: body.bankKey,
    payment: body.payment,
    environment: body.environment ?? 'production',
    validate: body.validate ?? false,
    idempotencyKey: header ?? body.idempotencyKey,
  };
}

/** Whether a request is a production submit (the only kind the rate limit counts). */
function isProduction(request: FastifyRequest): boolean {
  const body = request.body as { environment?: unknown } | null | undefined;
  return (body?.environment ?? 'production') === 'production';
}

export const journalSubmitRoutes: FastifyPluginAsyncTypebox<HttpServices> = async (app, { ctx }) => {
  app.post(
    '/journal/payments',
    {
      config: {
        // The limit runs after the body is parsed (preHandler), keyed on the caller's platform and the
        // body's companyId; test-environment submits are allowed through uncounted. The counter lives in
        // PostgreSQL (the app's shared store), so the limit holds across every API process.
        rateLimit: {
          max: PRODUCTION_SUBMITS_PER_MINUTE,
          timeWindow: 60_000,
          hook: 'preHandler',
          keyGenerator: (request: FastifyRequest) =>
            `submit:${request.principal?.platformId ?? '-'}:${(request.body as { companyId?: unknown } | null)?.companyId ?? '-'}`,
          allowList: (request: FastifyRequest) => !isProduction(request),
        },
      },
      schema: {
        tags: ['journal'],
        description:
          'Validate, convert with the company bank settings and journal a payment (idempotent: Idempotency-Key header, body idempotencyKey or payment.messageId).',
        body: SubmitBody,
        response: { 201: SubmittedDocument, ...errorResponses(400, 401, 402, 403, 404, 409, 422, 429) },
      },
    },
    async (request, reply) => {
      const outcome = await submitPayment(ctx, principalOf(request), submitInput(request));
      request.keyConfirmed = outcome.keyConfirmed;
      switch (outcome.kind) {
        case 'journaled':
          return reply.status(201).send(outcome.body);
        case 'replayed':
          // The contract answers a replay as the original 201, marked.
          return reply.status(201).header('Idempotency-Replayed', 'true').send(outcome.body);
        default:
          return unknownOutcome(outcome);
      }
    },
  );

  app.post(
    '/journal/payments/preview',
    {
      schema: {
        tags: ['journal'],
        description:
          'What a submit would produce (xml, warnings, auto-selection, Polish white list); journals nothing.',
        body: SubmitBody,
        response: { 200: Preview, ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request) => previewPayment(ctx, principalOf(request), submitInput(request)),
  );

  app.post(
    '/journal/documents/:id/cancel',
    {
      schema: {
        tags: ['journal'],
        description: 'Cancel a converted or pending-approval outbound document before delivery.',
        params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
        querystring: Type.Object({ companyId: Type.Optional(Type.String({ maxLength: 64 })) }),
        // Described, not validated: the company may come in the body or the query.
        bodyOptional: true,
        documentedBody: Type.Object({ companyId: Type.Optional(Type.String({ maxLength: 64 })) }),
        response: { 200: Type.Ref('JournalDocument'), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const fromBody = (request.body as { companyId?: unknown } | null | undefined)?.companyId;
      const companyId = typeof fromBody === 'string' && fromBody !== '' ? fromBody : request.query.companyId;
      if (!companyId) throw badRequest('companyId is required (body or query)', { field: 'companyId' });
      return cancelDocument(ctx, principalOf(request), { companyId, id: request.params.id });
    },
  );
};
