import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { HttpServices } from '../services.ts';

export const accountsRoutes: FastifyPluginAsyncTypebox<HttpServices> = async (_app, _services) => {};
