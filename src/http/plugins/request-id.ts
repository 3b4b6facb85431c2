import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { randomBytesFromPool } from '../../platform/random-pool.ts';

/** A caller's own X-Request-ID is reused when well formed; anything else gets a fresh one. */
const WELL_FORMED = /^[A-Za-z0-9._:@-]{1,128}$/;

export function requestIdFor(request: IncomingMessage): string {
  const incoming = request.headers['x-request-id'];
  if (typeof incoming === 'string' && WELL_FORMED.test(incoming)) return incoming;
  return `req_${randomBytesFromPool(12).toString('hex')}`;
}

export function registerRequestId(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-ID', request.id);
  });
}
