import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { releaseFile } from '../../app/bank-files/file-worker.ts';
import { ingestUploadedBody } from '../../app/bank-files/ingest-upload.ts';
import { principalOf } from '../plugins/auth.ts';
import { bodyToWorker } from '../plugins/body-to-worker.ts';
import { errorResponses } from '../schemas/common.ts';
import { IngestedDocument } from '../schemas/responses.ts';
import type { HttpServices } from '../services.ts';

/**
 * Bank files are large: a statement of 100,000 entries is tens of megabytes. The documented limit
 * (README, Limits): a request body of at most 64 MiB, else 413 payload_too_large.
 */
export const INGEST_BODY_LIMIT = 64 * 1024 * 1024;

const JSON_TYPES = /^application\/([a-z.+-]*\+)?json$/;

export const journalIngestRoutes: FastifyPluginAsyncTypebox<HttpServices> = async (app, { ctx }) => {
  // In this route's own context the JSON body arrives as bytes: the file worker decodes, parses and
  // checks it (against the schema below, which stays the documented shape), never the event loop.
  app.removeContentTypeParser('application/json');
  app.removeContentTypeParser(JSON_TYPES);
  app.addContentTypeParser(JSON_TYPES, bodyToWorker(INGEST_BODY_LIMIT, false));
  app.post(
    '/journal/ingest',
    {
      bodyLimit: INGEST_BODY_LIMIT,
      // The body is checked in the file worker (ingest-body.ts, IngestBodyReader), not here.
      validatorCompiler: () => () => true,
      // An upload a refused request never read is dropped from the worker with the response.
      onResponse: async (request) => {
        const upload = (request.body as { upload?: unknown } | undefined)?.upload;
        if (typeof upload === 'number') releaseFile(upload);
      },
      schema: {
        tags: ['journal'],
        description:
          'Journals a bank file (camt.052/053/054, MT940/MT942: one IN-<n> document per statement block; pain.002: matched and applied like /inbound/payment-status). 201 every block ingested; 207 blocks ended differently or the file is incomplete; 200 the same content was ingested before (deduped, nothing re-run); 422 unrecognised or unparseable.',
        body: Type.Object({
          companyId: Type.String({ maxLength: 64 }),
          content: Type.String(),
          platformId: Type.Optional(Type.String({ maxLength: 64 })),
          bankKey: Type.Optional(Type.String({ maxLength: 64 })),
          environment: Type.Optional(Type.Union([Type.Literal('test'), Type.Literal('production')])),
        }),
        response: {
          200: IngestedDocument,
          201: IngestedDocument,
          207: IngestedDocument,
          ...errorResponses(400, 401, 403, 404, 413, 422),
        },
      },
    },
    async (request, reply) => {
      const { upload } = request.body as unknown as { upload: number };
      const result = await ingestUploadedBody(ctx, principalOf(request), upload);
      return reply.status(result.status).send(result.body);
    },
  );
};
