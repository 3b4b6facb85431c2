import type { FastifyInstance } from 'fastify';
import { AppError } from '../../app/errors.ts';

/** Where a NUL character sits in a parsed value (a dotted path), or undefined when there is none. */
function nulPath(value: unknown, path: string, depth = 0): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (depth > 64 || value === null || typeof value !== 'object' || Buffer.isBuffer(value)) return undefined;
  for (const [key, inner] of Object.entries(value)) {
    const found = nulPath(inner, `${path}.${key}`, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** Where a number that is not finite sits (`1e309` and `Infinity` coerce to one), or undefined. */
function nonFinitePath(value: unknown, path: string, depth = 0): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : path;
  if (depth > 64 || value === null || typeof value !== 'object' || Buffer.isBuffer(value)) return undefined;
  for (const [key, inner] of Object.entries(value)) {
    const found = nonFinitePath(inner, `${path}.${key}`, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/**
 * No text a client sends may hold a NUL character: PostgreSQL cannot store one in text (it answers
 * "invalid byte sequence"), no id, name or file we accept has one, and a C library downstream would
 * cut the value there. Refused for every route at once, before validation: path parameters, query
 * and the parsed JSON body (raw bank files arrive as bytes and are judged by their parsers).
 */
export function registerInputGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const where =
      nulPath(request.params, 'params') ?? nulPath(request.query, 'querystring') ?? nulPath(request.body, 'body');
    if (where) throw new AppError(400, 'bad_request', `${where} contains a NUL character`, { field: where });
  });
  // After validation: schema coercion turns `limit=Infinity` or a JSON `1e309` into a number no
  // maximum catches (the validator lets Infinity through), which would reach SQL as 'Infinity'.
  app.addHook('preHandler', async (request) => {
    const where =
      nonFinitePath(request.params, 'params') ??
      nonFinitePath(request.query, 'querystring') ??
      nonFinitePath(request.body, 'body');
    if (where) {
      throw new AppError(400, 'validation_failed', `${where} is not a finite number`, {
        issues: [{ path: where, message: 'must be a finite number' }],
      });
    }
  });
}
