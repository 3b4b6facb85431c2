import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { listExceptions } from '../../app/receivables/exceptions.ts';
import {
  archiveExpected,
  checkReference,
  createExpected,
  getExpected,
  getIncoming,
  issueReference,
  listExpectedPayments,
  listIncomingPayments,
  patchExpected,
  putReconciliationSettings,
} from '../../app/receivables/expected-payments.ts';
import { manualMatch, unmatch } from '../../app/receivables/manual-match.ts';
import { principalOf } from '../plugins/auth.ts';
import { errorResponses, NextCursor } from '../schemas/common.ts';
import type { HttpServices } from '../services.ts';
import type { RouteApp } from './route-app.ts';

/** Receivables (DESIGN.md, "Receivables, returns and exceptions"; docs/adr/0069). */
const tags = ['receivables'];
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const RefType = Type.Union([Type.Literal('SCOR'), Type.Literal('FI'), Type.Literal('OCR'), Type.Literal('KID')]);
const KidAlgorithm = Type.Union([Type.Literal('MOD10'), Type.Literal('MOD11')]);
const Amount = Type.String({ maxLength: 40 });
const Id = Type.Object({ id: Type.String({ maxLength: 64 }) });
const CompanyQuery = Type.Object({ companyId: Type.String({ maxLength: 64 }) });
const ListQuery = Type.Object({
  companyId: Type.String({ maxLength: 64 }),
  status: Type.Optional(Type.String({ maxLength: 32 })),
  cursor: Type.Optional(Type.String({ maxLength: 512 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
});

const Match = Type.Object({
  id: Type.String(),
  rule: Type.String(),
  manual: Type.Boolean(),
  amount: Amount,
  amountDelta: Amount,
  daysDelta: Type.Integer(),
  incomingPaymentId: Type.Optional(Type.String({ description: 'the credit matched (a credit expected payment)' })),
  entry: Type.Optional(
    Type.Object(
      { documentId: Type.String(), entryIndex: Nullable(Type.Integer()) },
      {
        description:
          'the statement debit matched, instead of an incoming payment (a debit expected payment, docs/adr/0077)',
      },
    ),
  ),
  expectedPaymentId: Type.String(),
  actorUserId: Nullable(Type.String()),
  reason: Nullable(Type.String()),
  createdAt: Type.String(),
});

const ExpectedPayment = Type.Object({
  id: Type.String(),
  companyId: Type.String(),
  direction: Type.String(),
  amount: Nullable(Amount),
  amountMin: Amount,
  amountMax: Amount,
  currency: Type.String(),
  dateFrom: Type.String(),
  dateTo: Type.String(),
  counterparty: Type.Object({
    name: Nullable(Type.String()),
    iban: Nullable(Type.String()),
    accountOther: Nullable(Type.String()),
  }),
  reference: Nullable(Type.Object({ type: Type.String(), value: Nullable(Type.String()) })),
  remittanceContains: Nullable(Type.String()),
  metadata: Type.Record(Type.String(), Type.String()),
  status: Type.String(),
  matchedAmount: Amount,
  openAmount: Amount,
  matches: Type.Array(Match),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

const IncomingPayment = Type.Object({
  id: Type.String(),
  companyId: Type.String(),
  status: Type.String(),
  amount: Amount,
  currency: Type.String(),
  matchedAmount: Amount,
  openAmount: Amount,
  bookingDate: Nullable(Type.String()),
  valueDate: Nullable(Type.String()),
  counterparty: Type.Object({ name: Nullable(Type.String()), iban: Nullable(Type.String()) }),
  reference: Nullable(Type.String()),
  endToEndId: Nullable(Type.String()),
  remittance: Nullable(Type.String()),
  entry: Type.Object({ documentId: Type.String(), entryIndex: Type.Integer(), bankRef: Nullable(Type.String()) }),
  matches: Type.Array(Match),
  returned: Nullable(
    Type.Object(
      {
        rule: Type.Literal('return'),
        matchedBy: Type.Union([Type.Literal('end-to-end-id'), Type.Literal('amount-counterparty')]),
        reason: Type.String({ description: 'the return reason code, or reversal when the bank gave none' }),
        amount: Amount,
        bookingDate: Nullable(Type.String()),
        entry: Type.Object({
          documentId: Type.String(),
          entryIndex: Nullable(Type.Integer()),
          bankRef: Nullable(Type.String()),
        }),
        previousStatus: Type.String(),
        released: Type.Array(Type.Object({ matchId: Type.String(), expectedPaymentId: Type.String(), amount: Amount })),
        returnedAt: Type.String(),
      },
      { description: 'the statement entry that reversed the credit (docs/adr/0076)' },
    ),
  ),
  createdAt: Type.String(),
});

const ExpectedFields = {
  direction: Type.Optional(Type.Union([Type.Literal('credit'), Type.Literal('debit')])),
  amount: Type.Optional(Amount),
  amountMin: Type.Optional(Amount),
  amountMax: Type.Optional(Amount),
  dateFrom: Type.Optional(Type.String({ maxLength: 10 })),
  dateTo: Type.Optional(Type.String({ maxLength: 10 })),
  metadata: Type.Optional(Type.Record(Type.String({ maxLength: 40 }), Type.String({ maxLength: 500 }))),
};
const CreateBody = Type.Object(
  {
    companyId: Type.String({ maxLength: 64 }),
    ...ExpectedFields,
    currency: Type.String({ maxLength: 3 }),
    counterparty: Type.Optional(
      Type.Object(
        {
          name: Type.Optional(Type.String({ maxLength: 140 })),
          iban: Type.Optional(Type.String({ maxLength: 42 })),
          accountOther: Type.Optional(Type.String({ maxLength: 34 })),
        },
        { additionalProperties: false },
      ),
    ),
    reference: Type.Optional(
      Type.Object(
        {
          type: Type.Union([RefType, Type.Literal('NONE')]),
          value: Type.Optional(Type.String({ maxLength: 40 })),
          generate: Type.Optional(Type.Boolean()),
        },
        { additionalProperties: false },
      ),
    ),
    remittanceContains: Type.Optional(Type.String({ maxLength: 140 })),
  },
  { additionalProperties: false },
);
const PatchBody = Type.Object(
  { companyId: Type.String({ maxLength: 64 }), ...ExpectedFields },
  { additionalProperties: false },
);

export const receivablesRoutes: FastifyPluginAsyncTypebox<HttpServices> = async (app, { ctx }) => {
  referenceRoutes(app, ctx);
  expectedPaymentRoutes(app, ctx);
  incomingPaymentRoutes(app, ctx);
  reconciliationQueueRoutes(app, ctx);
  manualMatchRoutes(app, ctx);
};

/** The routes of /references and /references/validate. */
function referenceRoutes(app: RouteApp, ctx: HttpServices['ctx']): void {
  app.post(
    '/references',
    {
      schema: {
        tags,
        description: 'Issues a creditor reference with valid check digits (RF, Finnish, Swedish OCR, Norwegian KID).',
        body: Type.Object(
          {
            companyId: Type.String({ maxLength: 64 }),
            type: RefType,
            base: Type.Optional(Type.String({ minLength: 1, maxLength: 24 })),
            ocrLengthDigit: Type.Optional(Type.Boolean()),
            kidAlgorithm: Type.Optional(KidAlgorithm),
          },
          { additionalProperties: false },
        ),
        response: {
          201: Type.Object({ type: Type.String(), value: Type.String(), printed: Type.String() }),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request, reply) => reply.status(201).send(await issueReference(ctx, principalOf(request), request.body)),
  );

  app.get(
    '/references/validate',
    {
      schema: {
        tags,
        description: 'Whether a creditor reference has valid check digits, its normalised form, and why not.',
        querystring: Type.Object({
          type: RefType,
          value: Type.String({ minLength: 1, maxLength: 64 }),
          ocrLengthDigit: Type.Optional(Type.Boolean()),
          kidAlgorithm: Type.Optional(KidAlgorithm),
        }),
        response: {
          200: Type.Object({ valid: Type.Boolean(), normalised: Type.String(), reason: Nullable(Type.String()) }),
          ...errorResponses(400, 401, 403),
        },
      },
    },
    async (request) => checkReference(request.query),
  );
}

/** The routes of /expected-payments, /expected-payments/:id and /expected-payments/:id/archive. */
function expectedPaymentRoutes(app: RouteApp, ctx: HttpServices['ctx']): void {
  app.post(
    '/expected-payments',
    {
      schema: {
        tags,
        description:
          'Records a payment the company expects, with an exact amount or a range, a window and evidence to match.',
        body: CreateBody,
        response: { 201: ExpectedPayment, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => reply.status(201).send(await createExpected(ctx, principalOf(request), request.body)),
  );

  app.get(
    '/expected-payments',
    {
      schema: {
        tags,
        querystring: ListQuery,
        response: {
          200: Type.Object({ items: Type.Array(ExpectedPayment), nextCursor: NextCursor }),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) => listExpectedPayments(ctx, principalOf(request), request.query),
  );

  app.get(
    '/expected-payments/:id',
    {
      schema: {
        tags,
        params: Id,
        querystring: CompanyQuery,
        response: { 200: ExpectedPayment, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => getExpected(ctx, principalOf(request), request.params.id, request.query.companyId),
  );

  app.patch(
    '/expected-payments/:id',
    {
      schema: {
        tags,
        params: Id,
        body: PatchBody,
        response: { 200: ExpectedPayment, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => patchExpected(ctx, principalOf(request), request.params.id, request.body),
  );

  app.post(
    '/expected-payments/:id/archive',
    {
      schema: {
        tags,
        params: Id,
        body: Type.Object({ companyId: Type.String({ maxLength: 64 }) }, { additionalProperties: false }),
        response: { 200: ExpectedPayment, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => archiveExpected(ctx, principalOf(request), request.params.id, request.body.companyId),
  );
}

/** The routes of /incoming-payments and /incoming-payments/:id. */
function incomingPaymentRoutes(app: RouteApp, ctx: HttpServices['ctx']): void {
  app.get(
    '/incoming-payments',
    {
      schema: {
        tags,
        querystring: ListQuery,
        response: {
          200: Type.Object({ items: Type.Array(IncomingPayment), nextCursor: NextCursor }),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) => listIncomingPayments(ctx, principalOf(request), request.query),
  );

  app.get(
    '/incoming-payments/:id',
    {
      schema: {
        tags,
        params: Id,
        querystring: CompanyQuery,
        response: { 200: IncomingPayment, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => getIncoming(ctx, principalOf(request), request.params.id, request.query.companyId),
  );
}

/** The routes of /reconciliation/settings and /reconciliation/exceptions. */
function reconciliationQueueRoutes(app: RouteApp, ctx: HttpServices['ctx']): void {
  app.put(
    '/reconciliation/settings',
    {
      schema: {
        tags,
        body: Type.Object(
          {
            companyId: Type.String({ maxLength: 64 }),
            toleranceAmount: Type.String({ maxLength: 40 }),
            tolerancePercent: Type.String({ maxLength: 40 }),
            windowDays: Type.Integer({ minimum: 0, maximum: 90 }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            companyId: Type.String(),
            toleranceAmount: Type.String(),
            tolerancePercent: Type.String(),
            windowDays: Type.Integer(),
          }),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) => putReconciliationSettings(ctx, principalOf(request), request.body),
  );

  app.get(
    '/reconciliation/exceptions',
    {
      schema: {
        tags,
        description:
          'What needs a person: credits nothing matched, outbound lines unanswered past their answer window (no pain.002, no statement booking; candidates are unmatched statement debits, ref `unmatched-entry:<id>`), ambiguous credits, overdue expected payments; each with at most 5 nearest candidates and why each did not match.',
        querystring: Type.Object({
          companyId: Type.String({ maxLength: 64 }),
          kind: Type.Optional(Type.String({ maxLength: 32 })),
          cursor: Type.Optional(Type.String({ maxLength: 512 })),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
        }),
        response: {
          200: Type.Object({
            items: Type.Array(
              Type.Object({
                kind: Type.Union([
                  Type.Literal('unmatched-incoming'),
                  Type.Literal('unanswered-outbound'),
                  Type.Literal('ambiguous'),
                  Type.Literal('overdue-expected'),
                ]),
                subject: Type.Record(Type.String(), Type.Unknown()),
                candidates: Type.Array(
                  Type.Object({
                    ref: Type.String(),
                    amountDelta: Amount,
                    daysDelta: Type.Integer(),
                    referenceMatch: Type.Boolean(),
                    why: Type.String(),
                    entry: Type.Optional(
                      Type.Object(
                        { documentId: Type.String(), entryIndex: Type.Integer() },
                        { description: "an unanswered line's candidate debit: the entry of a manual match" },
                      ),
                    ),
                  }),
                ),
                since: Type.String(),
              }),
            ),
            nextCursor: NextCursor,
          }),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) => listExceptions(ctx, principalOf(request), request.query),
  );
}

/** The routes of /reconciliation/matches and /reconciliation/matches/:id. */
function manualMatchRoutes(app: RouteApp, ctx: HttpServices['ctx']): void {
  const ManualMatch = Type.Union([
    Type.Object({
      ...Match.properties,
      unmatchedAt: Nullable(Type.String()),
      unmatchReason: Nullable(Type.String()),
    }),
    // A statement debit matched to the outbound lines it paid (docs/adr/0076).
    Type.Object({
      id: Type.String(),
      rule: Type.Literal('manual'),
      manual: Type.Boolean(),
      amount: Amount,
      amountDelta: Amount,
      entry: Type.Object({ documentId: Type.String(), entryIndex: Nullable(Type.Integer()) }),
      outboundLines: Type.Array(Type.Object({ documentId: Type.String(), index: Type.Integer() })),
      actorUserId: Nullable(Type.String()),
      reason: Nullable(Type.String()),
      createdAt: Type.String(),
      unmatchedAt: Nullable(Type.String()),
      unmatchReason: Nullable(Type.String()),
    }),
  ]);

  app.post(
    '/reconciliation/matches',
    {
      schema: {
        tags,
        description:
          'Matches by hand, with a reason, one of three forms: an incoming payment to credit expected payments {incomingPaymentId, expectedPaymentIds}; a statement debit to debit expected payments {entry, expectedPaymentIds}; or a statement debit to the pending outbound lines it paid {entry, outboundLines}, whose amounts must add up to it exactly (422 amounts_differ). The audit trail names the actor.',
        body: Type.Object(
          {
            companyId: Type.String({ maxLength: 64 }),
            incomingPaymentId: Type.Optional(Type.String({ maxLength: 64 })),
            expectedPaymentIds: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 50 })),
            entry: Type.Optional(
              Type.Object({ documentId: Type.String({ maxLength: 64 }), entryIndex: Type.Integer() }),
            ),
            outboundLines: Type.Optional(
              Type.Array(Type.Object({ documentId: Type.String({ maxLength: 64 }), index: Type.Integer() }), {
                maxItems: 50,
              }),
            ),
            reason: Type.String({ minLength: 1, maxLength: 500 }),
          },
          { additionalProperties: false },
        ),
        response: {
          201: Type.Object({ matches: Type.Array(ManualMatch) }),
          ...errorResponses(400, 401, 403, 404, 409, 422),
        },
      },
    },
    async (request, reply) => reply.status(201).send(await manualMatch(ctx, principalOf(request), request.body)),
  );

  app.delete(
    '/reconciliation/matches/:id',
    {
      schema: {
        tags,
        description: 'Undoes a match (manual or automatic) with a reason; both sides return to the queue.',
        params: Id,
        querystring: CompanyQuery,
        body: Type.Object({ reason: Type.String({ minLength: 1, maxLength: 500 }) }, { additionalProperties: false }),
        response: { 200: ManualMatch, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      unmatch(ctx, principalOf(request), request.params.id, {
        companyId: request.query.companyId,
        reason: request.body.reason,
      }),
  );
}
