import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { releaseFile } from '../../app/bank-files/file-worker.ts';
import { parseStatements } from '../../app/bank-files/parse-statements.ts';
import { receivePaymentStatus } from '../../app/bank-files/receive-payment-status.ts';
import { AppError } from '../../app/errors.ts';
import { principalOf } from '../plugins/auth.ts';
import { bodyToWorker } from '../plugins/body-to-worker.ts';
import { errorResponses } from '../schemas/common.ts';
import { PaymentStatusResult, StatementList } from '../schemas/responses.ts';
import type { HttpServices } from '../services.ts';

/** Bank files are large: a statement of 100,000 entries is tens of megabytes. */
const STATEMENT_BODY_LIMIT = 64 * 1024 * 1024;

/** The raw file types (body-parsers.ts takes them as a buffer on every other route). */
const RAW_TYPES = [
  'text/plain',
  'text/xml',
  'application/xml',
  'application/octet-stream',
  'application/x-www-form-urlencoded',
];

export const inboundRoutes: FastifyPluginAsyncTypebox<HttpServices> = async (app, { ctx }) => {
  // The statement route in a context of its own, where a raw file's bytes stream into the file worker.
  app.register(async (raw) => {
    raw.removeContentTypeParser(RAW_TYPES);
    raw.addContentTypeParser(RAW_TYPES, bodyToWorker(STATEMENT_BODY_LIMIT, true));
    raw.post(
      '/inbound/statement',
      {
        bodyLimit: STATEMENT_BODY_LIMIT,
        // A raw body streamed into the worker that a refused request never parsed is dropped.
        onResponse: async (request) => {
          const upload = (request.body as { upload?: unknown } | undefined)?.upload;
          if (typeof upload === 'number') releaseFile(upload);
        },
        schema: {
          tags: ['inbound'],
          description:
            'Raw camt.052/053/054 or MT940/MT942 file as the body (any text or XML content type). Stateless: nothing is stored.',
          documentedBody: {
            content: Object.fromEntries(
              ['text/plain', 'application/xml', 'text/xml', 'application/octet-stream'].map((type) => [
                type,
                { schema: { type: 'string', description: 'the raw statement file' } },
              ]),
            ),
          },
          response: { 200: StatementList, ...errorResponses(400, 401, 413, 422) },
        },
      },
      async (request, reply) => {
        const body = request.body as { upload?: unknown; content?: unknown } | undefined | null;
        if (body === undefined || body === null) throw new AppError('empty_body', 'the file is empty');
        // A raw file was streamed into the worker (its upload's number); a JSON client may wrap it as {content}.
        const content = typeof body.upload === 'number' ? body.upload : body.content;
        if (typeof content !== 'string' && typeof content !== 'number') {
          throw new AppError('bad_request', 'send the raw file as the body');
        }
        // Parsed off the event loop; the JSON streams out (parse-statements.ts).
        return reply.type('application/json; charset=utf-8').send(await parseStatements(content));
      },
    );
  });

  app.post(
    '/inbound/payment-status',
    {
      bodyLimit: STATEMENT_BODY_LIMIT,
      schema: {
        tags: ['inbound'],
        description:
          'Journals a pain.002, matches it to the original payment (message id, then end-to-end ids) and advances its status. 200: the normalised report plus documentId, journalNo, status of the matched payment.',
        body: Type.Object({
          companyId: Type.String({ maxLength: 64 }),
          content: Type.String({ minLength: 1 }),
          bankKey: Type.Optional(Type.String({ maxLength: 64 })),
          platformId: Type.Optional(Type.String({ maxLength: 64 })),
        }),
        response: { 200: PaymentStatusResult, ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request) => receivePaymentStatus(ctx, principalOf(request), request.body),
  );
};
