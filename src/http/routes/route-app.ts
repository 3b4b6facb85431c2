import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { HttpServices } from '../services.ts';

/**
 * The Fastify instance a route plugin receives (TypeBox type provider included), for the functions a
 * plugin registers its routes through: one function per group of routes keeps each short.
 */
export type RouteApp = Parameters<FastifyPluginAsyncTypebox<HttpServices>>[0];
