import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, Type } from 'typebox';
import { documentsJson } from '../../app/journal/documents-json.ts';
import { listEvents } from '../../app/journal/events.ts';
import { exportDocuments } from '../../app/journal/export.ts';
import { journalList } from '../../app/journal/list.ts';
import {
  getDocument,
  getDocumentFile,
  getDocumentPayments,
  paymentTypeCounts,
} from '../../app/journal/read-document.ts';
import { reconciliationPage } from '../../app/journal/reconciliation.ts';
import { principalOf } from '../plugins/auth.ts';
import { errorResponses } from '../schemas/common.ts';
import {
  DocumentPage,
  DocumentPayments,
  DocumentWithPayload,
  EventPage,
  ExportResult,
  JournalList,
  mediaResponse,
  PaymentTypeCounts,
  ReconciliationPage,
} from '../schemas/responses.ts';
import type { HttpServices } from '../services.ts';
import type { RouteApp } from './route-app.ts';

const Id = Type.String({ minLength: 1, maxLength: 64 });
const CompanyQuery = Type.Object({ companyId: Id });
const Cursor = Type.Optional(Type.String({ maxLength: 512 }));
const Direction = Type.Optional(Type.Union([Type.Literal('inbound'), Type.Literal('outbound')]));
const DocParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

export const journalReadRoutes: FastifyPluginAsyncTypebox<HttpServices> = async (app, { ctx }) => {
  documentListRoutes(app, ctx);
  documentRoutes(app, ctx);
  journalReferenceRoutes(app, ctx);
};

/** The routes of /journal/documents, /journal/list and /journal/export. */
function documentListRoutes(app: RouteApp, ctx: HttpServices['ctx']): void {
  app.get(
    '/journal/documents',
    {
      schema: {
        tags: ['journal'],
        description:
          'Journal documents newest first (keyset cursor), metadata only. amountMin/amountMax filter the returned page only. `total` is exact without q and dates; with dates exact up to 10,000 matches, else at most 30 s old; with q exact when every match was seen, else estimated from a sample (`totalExact: false`).',
        querystring: Type.Object({
          companyId: Id,
          direction: Direction,
          type: Type.Optional(Type.String({ maxLength: 32 })),
          collected: Type.Optional(Type.Boolean()),
          q: Type.Optional(Type.String({ maxLength: 200 })),
          status: Type.Optional(Type.String({ maxLength: 500 })),
          amountMin: Type.Optional(Type.String({ maxLength: 64 })),
          amountMax: Type.Optional(Type.String({ maxLength: 64 })),
          dateFrom: Type.Optional(Type.String({ maxLength: 32 })),
          dateTo: Type.Optional(Type.String({ maxLength: 32 })),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
          cursor: Cursor,
        }),
        response: { 200: DocumentPage, ...errorResponses(400, 401, 403, 404) },
      },
    },
    // The answer's JSON text (its first page kept while unchanged, docs/adr/0053).
    async (request, reply) => {
      const json = await documentsJson(ctx, principalOf(request), request.query);
      // Already the JSON text of DocumentPage: a string with a JSON type is sent as it is.
      return reply.type('application/json; charset=utf-8').send(json as unknown as Static<typeof DocumentPage>);
    },
  );

  app.get(
    '/journal/list',
    {
      schema: {
        tags: ['journal'],
        querystring: Type.Object({
          companyId: Id,
          cursor: Cursor,
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
          direction: Direction,
          type: Type.Optional(Type.String({ maxLength: 32 })),
          uncollectedOnly: Type.Optional(Type.Boolean()),
        }),
        response: { 200: JournalList, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => journalList(ctx, principalOf(request), request.query),
  );

  app.post(
    '/journal/export',
    {
      schema: {
        tags: ['journal'],
        description: 'Marks the named documents collected; 207 when some, not all, journal numbers were found.',
        body: Type.Object({
          companyId: Id,
          journalNos: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 1000 }),
          filter: Type.Optional(
            Type.Object({ direction: Direction, type: Type.Optional(Type.String({ maxLength: 32 })) }),
          ),
          platformId: Type.Optional(Id),
        }),
        response: { 200: ExportResult, 207: ExportResult, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const result = await exportDocuments(ctx, principalOf(request), request.body);
      return reply.status(result.status as 200 | 207).send(result.body);
    },
  );
}

/** The routes of /journal/documents/:id, /journal/documents/:id/payments and /journal/documents/:id/file. */
function documentRoutes(app: RouteApp, ctx: HttpServices['ctx']): void {
  app.get(
    '/journal/documents/:id',
    {
      schema: {
        tags: ['journal'],
        params: DocParams,
        querystring: CompanyQuery,
        response: { 200: DocumentWithPayload, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => getDocument(ctx, principalOf(request), request.query.companyId, request.params.id),
  );

  app.get(
    '/journal/documents/:id/payments',
    {
      schema: {
        tags: ['journal'],
        params: DocParams,
        querystring: CompanyQuery,
        response: { 200: DocumentPayments, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => getDocumentPayments(ctx, principalOf(request), request.query.companyId, request.params.id),
  );

  app.get(
    '/journal/documents/:id/file',
    {
      schema: {
        tags: ['journal'],
        description: 'The pain.001 XML as an attachment; does not set the collected flag.',
        params: DocParams,
        querystring: CompanyQuery,
        response: { 200: mediaResponse('application/xml', 'the pain.001 file'), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      const file = await getDocumentFile(ctx, principalOf(request), request.query.companyId, request.params.id);
      return reply
        .type('application/xml; charset=utf-8')
        .header('Content-Disposition', `attachment; filename="${file.filename}"`)
        .send(file.xml);
    },
  );
}

/** The routes of /journal/payment-types, /journal/reconciliation and /journal/events. */
function journalReferenceRoutes(app: RouteApp, ctx: HttpServices['ctx']): void {
  app.get(
    '/journal/payment-types',
    {
      schema: {
        tags: ['journal'],
        querystring: CompanyQuery,
        response: { 200: PaymentTypeCounts, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => paymentTypeCounts(ctx, principalOf(request), request.query.companyId),
  );

  app.get(
    '/journal/reconciliation',
    {
      schema: {
        tags: ['journal'],
        querystring: Type.Object({
          companyId: Id,
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
          cursor: Cursor,
        }),
        response: { 200: ReconciliationPage, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => reconciliationPage(ctx, principalOf(request), request.query),
  );

  app.get(
    '/journal/events',
    {
      schema: {
        tags: ['journal'],
        description:
          'The audit trail. Default: newest first by cursor. since=<seq>: oldest first after that seq, nextCursor is the next since value (null: caught up). connectionId narrows to one channel, documentId to the events of one document.',
        querystring: Type.Object({
          companyId: Id,
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 5000 })),
          cursor: Cursor,
          since: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
          connectionId: Type.Optional(Type.String({ maxLength: 64 })),
          documentId: Type.Optional(Type.String({ maxLength: 64 })),
        }),
        response: { 200: EventPage, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => listEvents(ctx, principalOf(request), request.query),
  );
}
