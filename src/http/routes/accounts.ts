import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { accountStatements, listAccounts } from '../../app/accounts/accounts.ts';
import { principalOf } from '../plugins/auth.ts';
import { errorResponses } from '../schemas/common.ts';
import { AccountList, AccountStatements } from '../schemas/responses.ts';
import type { HttpServices } from '../services.ts';

export const accountsRoutes: FastifyPluginAsyncTypebox<HttpServices> = async (app, { ctx }) => {
  app.get(
    '/accounts',
    {
      schema: {
        tags: ['accounts'],
        description: "The company's bank accounts, oldest first; latestBalance is masked as *** in the list.",
        querystring: Type.Object({
          companyId: Type.String({ maxLength: 64 }),
          cursor: Type.Optional(Type.String({ maxLength: 512 })),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
        }),
        response: { 200: AccountList, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => listAccounts(ctx, principalOf(request), request.query),
  );

  app.get(
    '/accounts/statements',
    {
      schema: {
        tags: ['accounts'],
        description:
          'One bank account (acct_ id or IBAN) with its real balance, its statement summaries oldest period first, and gaps (balance: opening differs from the previous closing; sequence: statement numbers skip).',
        querystring: Type.Object({
          companyId: Type.String({ maxLength: 64 }),
          account: Type.String({ minLength: 1, maxLength: 64 }),
        }),
        response: { 200: AccountStatements, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => accountStatements(ctx, principalOf(request), request.query),
  );
};
