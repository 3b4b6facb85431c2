import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ingestFile } from '../../app/journal/ingest.ts';
import { principalOf } from '../plugins/auth.ts';
import { errorResponses } from '../schemas/common.ts';
import type { HttpServices } from '../services.ts';

/** Bank files are large: a statement of 100,000 entries is tens of megabytes. */
const INGEST_BODY_LIMIT = 64 * 1024 * 1024;

export const journalIngestRoutes: FastifyPluginAsyncTypebox<HttpServices> = async (app, { ctx }) => {
  app.post(
    '/journal/ingest',
    {
      bodyLimit: INGEST_BODY_LIMIT,
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
        response: errorResponses(400, 401, 403, 404, 413, 422),
      },
    },
    async (request, reply) => {
      const result = await ingestFile(ctx, principalOf(request), request.body);
      return reply.status(result.status).send(result.body);
    },
  );
};
