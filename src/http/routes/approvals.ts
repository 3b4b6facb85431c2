import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { approve, reject } from '../../app/approvals/decide.ts';
import { changePolicy, createPolicy, listCompanyPolicies, removePolicy } from '../../app/approvals/policies.ts';
import { listQueue, readApproval } from '../../app/approvals/queue.ts';
import { badRequest } from '../../app/errors.ts';
import { principalOf } from '../plugins/auth.ts';
import { errorResponses } from '../schemas/common.ts';
import { ApprovalPolicyList, ApprovalQueue, NoBody } from '../schemas/responses.ts';
import type { HttpServices } from '../services.ts';
import type { RouteApp } from './route-app.ts';

/** Maker-checker routes (DESIGN.md, Approvals): types here; the rules are the use cases'. */
const tags = ['approvals'];
const Id = Type.String({ maxLength: 64 });
const IdParams = Type.Object({ id: Id });
const OptionalScope = Type.Object({ platformId: Type.Optional(Id), companyId: Type.Optional(Id) });

const Group = Type.Object(
  {
    name: Type.String({ maxLength: 200 }),
    userIds: Type.Array(Type.String({ maxLength: 64 }), { maxItems: 100 }),
  },
  { additionalProperties: false },
);

const policyFields = {
  name: Type.String({ maxLength: 1000 }),
  enabled: Type.Boolean(),
  environment: Type.String({ maxLength: 32 }),
  currency: Type.Union([Type.String({ maxLength: 8 }), Type.Null()]),
  minAmount: Type.String({ maxLength: 64 }),
  bankKeys: Type.Union([Type.Array(Type.String({ maxLength: 64 }), { maxItems: 100 }), Type.Null()]),
  requiredApprovals: Type.Integer({ minimum: 1, maximum: 10 }),
  groups: Type.Array(Group, { maxItems: 20 }),
  requireOneFromEachGroup: Type.Boolean(),
  orderedApproval: Type.Boolean(),
  twoFactorRequired: Type.Boolean(),
};
const optionalPolicyFields = Object.fromEntries(
  Object.entries(policyFields).map(([k, v]) => [k, Type.Optional(v)]),
) as { [K in keyof typeof policyFields]: ReturnType<typeof Type.Optional<(typeof policyFields)[K]>> };

const CreateBody = Type.Object(
  {
    platformId: Type.Optional(Id),
    companyId: Type.Optional(Id),
    ...optionalPolicyFields,
    name: policyFields.name,
  },
  { additionalProperties: false },
);
const ChangeBody = Type.Object(
  { platformId: Type.Optional(Id), companyId: Type.Optional(Id), ...optionalPolicyFields },
  { additionalProperties: false },
);

/** The company of a policy-list or create request: in the query or the body (DESIGN.md). */
function stated(
  query: { platformId?: string | undefined; companyId?: string | undefined },
  body: { platformId?: string | undefined; companyId?: string | undefined } | undefined,
  sessionPlatform: string,
) {
  return {
    platformId: body?.platformId ?? query.platformId ?? sessionPlatform,
    companyId: body?.companyId ?? query.companyId,
  };
}

export const approvalRoutes: FastifyPluginAsyncTypebox<HttpServices> = async (app, { ctx }) => {
  policyRoutes(app, ctx);
  approvalDecisionRoutes(app, ctx);
};

/** The routes of /approval-policies and /approval-policies/:id. */
function policyRoutes(app: RouteApp, ctx: HttpServices['ctx']): void {
  app.get(
    '/approval-policies',
    {
      schema: {
        tags,
        querystring: OptionalScope,
        response: { 200: ApprovalPolicyList, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const scope = stated(request.query, undefined, principal.platformId);
      return listCompanyPolicies(ctx, principal, scope.platformId, requiredCompany(scope.companyId));
    },
  );

  app.post(
    '/approval-policies',
    {
      schema: {
        tags,
        querystring: OptionalScope,
        body: CreateBody,
        response: { 201: Type.Ref('ApprovalPolicy'), ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const scope = stated(request.query, request.body, principal.platformId);
      const { platformId: _p, companyId: _c, ...fields } = request.body;
      const created = await createPolicy(ctx, principal, {
        ...fields,
        platformId: scope.platformId,
        companyId: requiredCompany(scope.companyId),
      });
      return reply.status(201).send(created);
    },
  );

  app.put(
    '/approval-policies/:id',
    {
      schema: {
        tags,
        params: IdParams,
        querystring: OptionalScope,
        body: ChangeBody,
        response: { 200: Type.Ref('ApprovalPolicy'), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const body = request.body;
      return changePolicy(ctx, principalOf(request), request.params.id, {
        ...body,
        platformId: body.platformId ?? request.query.platformId,
        companyId: body.companyId ?? request.query.companyId,
      });
    },
  );

  app.delete(
    '/approval-policies/:id',
    {
      schema: {
        tags,
        params: IdParams,
        querystring: OptionalScope,
        response: { 204: NoBody('removed'), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await removePolicy(ctx, principalOf(request), request.params.id, request.query);
      return reply.status(204).send(null);
    },
  );
}

/** The routes of /approvals, /approvals/:id, /approvals/:id/approve and /approvals/:id/reject. */
function approvalDecisionRoutes(app: RouteApp, ctx: HttpServices['ctx']): void {
  app.get(
    '/approvals',
    {
      schema: {
        tags,
        querystring: Type.Object({
          platformId: Type.Optional(Id),
          companyId: Id,
          status: Type.Optional(Type.String({ maxLength: 32 })),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
          cursor: Type.Optional(Type.String({ maxLength: 512 })),
        }),
        response: { 200: ApprovalQueue, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      return listQueue(ctx, principal, {
        ...request.query,
        platformId: request.query.platformId ?? principal.platformId,
      });
    },
  );

  app.get(
    '/approvals/:id',
    {
      schema: { tags, params: IdParams, response: { 200: Type.Ref('Approval'), ...errorResponses(401, 403, 404) } },
    },
    async (request) => readApproval(ctx, principalOf(request), request.params.id),
  );

  app.post(
    '/approvals/:id/approve',
    {
      schema: {
        tags,
        params: IdParams,
        body: Type.Optional(
          Type.Object({ code: Type.Optional(Type.String({ maxLength: 64 })) }, { additionalProperties: false }),
        ),
        bodyOptional: true,
        response: { 200: Type.Ref('Approval'), ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request) => approve(ctx, principalOf(request), request.params.id, { code: request.body?.code }),
  );

  app.post(
    '/approvals/:id/reject',
    {
      schema: {
        tags,
        params: IdParams,
        body: Type.Object({ reason: Type.String({ maxLength: 2000 }) }, { additionalProperties: false }),
        response: { 200: Type.Ref('Approval'), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => reject(ctx, principalOf(request), request.params.id, { reason: request.body.reason }),
  );
}

function requiredCompany(companyId: string | undefined): string {
  if (companyId === undefined) throw badRequest('companyId is required (query or body)', { field: 'companyId' });
  return companyId;
}
