import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { billingStatus, listPackages } from '../../app/billing/status.ts';
import { principalOf } from '../plugins/auth.ts';
import { errorResponses } from '../schemas/common.ts';
import type { HttpServices } from '../services.ts';

const Package = Type.Object({
  id: Type.String(),
  name: Type.String(),
  productionPayments: Type.Integer(),
  period: Type.String(),
  price: Type.String({ description: 'exact decimal string in the list currency' }),
});

/** Billing (DESIGN.md): the public price list the 402 body points at, and a company's billing status. */
export const billingRoutes: FastifyPluginAsyncTypebox<HttpServices> = async (app, { ctx }) => {
  app.get(
    '/billing/packages',
    {
      schema: {
        tags: ['billing'],
        description: 'The packages and their prices (public; the 402 trial_payments_exhausted body links here).',
        response: { 200: Type.Object({ currency: Type.String(), items: Type.Array(Package) }) },
      },
    },
    async () => listPackages(),
  );

  app.get(
    '/billing/status',
    {
      schema: {
        tags: ['billing'],
        description:
          "The company's package (null on the free production payments), production payments sent, the free limit, and since when an invoice is past due.",
        querystring: Type.Object({ companyId: Type.String({ maxLength: 64 }) }),
        response: {
          200: Type.Object({
            package: Type.Union([Package, Type.Null()]),
            productionPaymentsSent: Type.Integer(),
            freeLimit: Type.Integer(),
            pastDueSince: Type.Union([Type.String(), Type.Null()]),
          }),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) => billingStatus(ctx, principalOf(request), request.query.companyId),
  );
};
