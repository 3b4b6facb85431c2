import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { notFound } from '../../app/errors.ts';
import {
  bankPaymentTypes,
  bankStatus,
  connectivityProfiles,
  getProfile,
  listPaymentTypes,
  listProfiles,
} from '../../domain/conversion/index.ts';
import { errorResponses } from '../schemas/common.ts';
import { BankPaymentTypeList, ConnectivityProfileList, PaymentTypeList, ProfileList } from '../schemas/discovery.ts';
import type { HttpServices } from '../services.ts';

const BankParams = Type.Object({ bankKey: Type.String({ maxLength: 64 }) });

/** Bank and payment-type discovery. Lists carry the array as `items` and under its own name. */
export const discoveryRoutes: FastifyPluginAsyncTypebox<HttpServices> = async (app) => {
  app.get(
    '/profiles',
    { schema: { tags: ['discovery'], response: { 200: ProfileList, ...errorResponses(401) } } },
    async () => {
      const profiles = listProfiles();
      return { items: profiles, profiles };
    },
  );

  app.get(
    '/payment-types',
    { schema: { tags: ['discovery'], response: { 200: PaymentTypeList, ...errorResponses(401) } } },
    async () => {
      const paymentTypes = listPaymentTypes();
      return { items: paymentTypes, paymentTypes };
    },
  );

  app.get(
    '/banks/:bankKey/payment-types',
    {
      schema: {
        tags: ['discovery'],
        params: BankParams,
        response: { 200: BankPaymentTypeList, ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const profile = getProfile(request.params.bankKey);
      const items = bankPaymentTypes(request.params.bankKey);
      if (!profile || !items) throw notFound('bank');
      return { items, bankKey: profile.key, bankName: profile.bankName, countryCode: profile.countryCode };
    },
  );

  app.get(
    '/banks/:bankKey/status',
    {
      schema: {
        tags: ['discovery'],
        params: BankParams,
        response: {
          200: Type.Object(
            { bankKey: Type.String(), deliveryMode: Type.String(), hostToHost: Type.Boolean() },
            { additionalProperties: true },
          ),
          ...errorResponses(404),
        },
      },
    },
    async (request) => {
      const status = bankStatus(request.params.bankKey);
      if (!status) throw notFound('bank');
      return { ...status, hostToHost: status.deliveryMode === 'host-to-host' };
    },
  );

  app.get(
    '/connectivity/profiles',
    { schema: { tags: ['discovery'], response: { 200: ConnectivityProfileList } } },
    async () => ({
      items: connectivityProfiles(),
    }),
  );
};
