import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyContentTypeParser } from 'fastify';
import { Type } from 'typebox';
import { releaseFile, startUpload } from '../../app/bank-files/file-worker.ts';
import { parseStatements } from '../../app/bank-files/parse-statements.ts';
import { receivePaymentStatus } from '../../app/bank-files/receive-payment-status.ts';
import { AppError } from '../../app/errors.ts';
import { principalOf } from '../plugins/auth.ts';
import { errorResponses } from '../schemas/common.ts';
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

/**
 * A raw bank file's chunks go to the file worker as they arrive (at most a few MB unread there, else
 * the body waits in the socket), so the event loop never holds or joins a 50 MB body and three at
 * once are not 150 MB waiting in this thread (docs/adr/0064). Over the limit: 413 payload_too_large.
 */
const streamRawBody: FastifyContentTypeParser = (request, payload, done) => {
  const tooLarge = () =>
    new AppError('payload_too_large', `the request body is larger than ${STATEMENT_BODY_LIMIT} bytes`);
  const declared = Number(request.headers['content-length'] ?? Number.NaN);
  if (declared > STATEMENT_BODY_LIMIT) {
    payload.resume();
    done(tooLarge(), undefined);
    return;
  }
  const upload = startUpload(Number.isSafeInteger(declared) && declared >= 0 ? declared : undefined, true);
  let size = 0;
  let finished = false;
  const finish = (error: Error | null) => {
    if (finished) return;
    finished = true;
    if (error) upload.abort();
    done(error, error ? undefined : { upload: upload.file });
  };
  payload.on('data', (chunk: Buffer) => {
    if (finished) return;
    size += chunk.length;
    if (size > STATEMENT_BODY_LIMIT) finish(tooLarge());
    else if (!upload.push(chunk)) {
      payload.pause();
      upload.drained(() => payload.resume());
    }
  });
  payload.on('end', () => finish(null));
  payload.on('error', (error) => finish(error));
};

export const inboundRoutes: FastifyPluginAsyncTypebox<HttpServices> = async (app, { ctx }) => {
  // The statement route in a context of its own, where a raw file's bytes stream into the file worker.
  app.register(async (raw) => {
    raw.removeContentTypeParser(RAW_TYPES);
    raw.addContentTypeParser(RAW_TYPES, streamRawBody);
    raw.post(
      '/inbound/statement',
      {
        bodyLimit: STATEMENT_BODY_LIMIT,
        // A raw body streamed into the worker (streamRawBody) that a refused request never parsed is dropped.
        onResponse: async (request) => {
          const upload = (request.body as { upload?: unknown } | undefined)?.upload;
          if (typeof upload === 'number') releaseFile(upload);
        },
        schema: {
          tags: ['inbound'],
          description:
            'Raw camt.052/053/054 or MT940/MT942 file as the body (any text or XML content type). Stateless: nothing is stored.',
          response: errorResponses(400, 401, 413, 422),
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
        response: errorResponses(400, 401, 403, 404, 422),
      },
    },
    async (request) => receivePaymentStatus(ctx, principalOf(request), request.body),
  );
};
