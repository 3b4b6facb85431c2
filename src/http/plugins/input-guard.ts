import type { FastifyInstance } from 'fastify';
import { AppError } from '../../app/errors.ts';

/** What is wrong with a text a client sent, or undefined when nothing is. */
function textFault(text: string): string | undefined {
  if (text.includes('\u0000')) return 'a NUL character';
  // A high surrogate without its low half (or the reverse): JSON's `\ud800` escape makes one.
  if (!text.isWellFormed()) return 'a lone UTF-16 surrogate';
  return undefined;
}

/** Where a text with a fault sits in a parsed value (a dotted path), its keys included, and the fault. */
function faultyTextPath(value: unknown, path: string, depth = 0): { where: string; fault: string } | undefined {
  if (typeof value === 'string') {
    const fault = textFault(value);
    return fault ? { where: path, fault } : undefined;
  }
  if (depth > 64 || value === null || typeof value !== 'object' || Buffer.isBuffer(value)) return undefined;
  for (const [key, inner] of Object.entries(value)) {
    const keyFault = textFault(key);
    if (keyFault) return { where: `${path} (a key)`, fault: keyFault };
    const found = faultyTextPath(inner, `${path}.${key}`, depth + 1);
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
 * cut the value there. Nor a lone UTF-16 surrogate (JSON's `"\ud800"`): it is no character at all,
 * PostgreSQL's jsonb refuses it (an audit event quoting a company name) and UTF-8 cannot encode it.
 * Refused for every route at once, before validation: path parameters, query and the parsed JSON
 * body (raw bank files arrive as bytes and are judged by their parsers).
 */
export function registerInputGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const found =
      faultyTextPath(request.params, 'params') ??
      faultyTextPath(request.query, 'querystring') ??
      faultyTextPath(request.body, 'body');
    if (found) {
      const field = found.where.replace(/ \(a key\)$/, '');
      throw new AppError('bad_request', `${found.where} contains ${found.fault}`, { field });
    }
  });
  // After validation: schema coercion turns `limit=Infinity` or a JSON `1e309` into a number no
  // maximum catches (the validator lets Infinity through), which would reach SQL as 'Infinity'.
  app.addHook('preHandler', async (request) => {
    const where =
      nonFinitePath(request.params, 'params') ??
      nonFinitePath(request.query, 'querystring') ??
      nonFinitePath(request.body, 'body');
    if (where) {
      throw new AppError('validation_failed', `${where} is not a finite number`, {
        issues: [{ path: where, message: 'must be a finite number' }],
      });
    }
  });
}
