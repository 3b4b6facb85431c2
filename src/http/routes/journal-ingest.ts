import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { HttpServices } from '../services.ts';

export const journalIngestRoutes: FastifyPluginAsyncTypebox<HttpServices> = async (_app, _services) => {};
