import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { getBankSettings, putBankSettings } from '../../app/connections/bank-settings.ts';
import { principalOf } from '../plugins/auth.ts';
import { CompanyScopeQuery, errorResponses, scopeFields } from '../schemas/common.ts';
import type { HttpServices } from '../services.ts';

const Params = Type.Object({ bankKey: Type.String({ maxLength: 64 }) });
const View = Type.Object({
  bankKey: Type.String(),
  chargeBearer: Type.Union([Type.String(), Type.Null()]),
  executionDateOffsetDays: Type.Union([Type.Integer(), Type.Null()]),
  environments: Type.Array(Type.String()),
});

/** GET|PUT /bank-settings/{bankKey}: the per-company settings the delivery path applies. */
export const bankSettingsRoutes: FastifyPluginAsyncTypebox<HttpServices> = async (app, { ctx }) => {
  app.get(
    '/bank-settings/:bankKey',
    {
      schema: {
        tags: ['connections'],
        params: Params,
        querystring: CompanyScopeQuery,
        response: { 200: View, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) =>
      getBankSettings(ctx, principalOf(request), { ...request.query, bankKey: request.params.bankKey }),
  );

  app.put(
    '/bank-settings/:bankKey',
    {
      schema: {
        tags: ['connections'],
        description:
          'Charge bearer and execution-date offset applied to this bank on POST /journal/payments (test and production connections alike); null clears a setting.',
        params: Params,
        body: Type.Object(
          {
            ...scopeFields,
            chargeBearer: Type.Optional(
              Type.Union([
                Type.Literal('SLEV'),
                Type.Literal('SHAR'),
                Type.Literal('DEBT'),
                Type.Literal('CRED'),
                Type.Null(),
              ]),
            ),
            executionDateOffsetDays: Type.Optional(
              Type.Union([Type.Integer({ minimum: 0, maximum: 30 }), Type.Null()]),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: View, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => putBankSettings(ctx, principalOf(request), { ...request.body, bankKey: request.params.bankKey }),
  );
};
