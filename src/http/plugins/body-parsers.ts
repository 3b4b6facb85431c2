import type { FastifyInstance } from 'fastify';
import { AppError } from '../../app/errors.ts';

/** JSON deeper than this is refused before parsing: no payload of ours nests anywhere near it. */
export const MAX_JSON_DEPTH = 64;

/** Nesting depth of a JSON text, counted outside strings, stopping as soon as it passes `limit`. */
function jsonDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > limit) return true;
    } else if (c === 125 || c === 93) depth--;
  }
  return false;
}

/**
 * JSON goes through Fastify's own parser (prototype-poisoning safe) after a depth check; bank files
 * (XML, MT940, plain text) arrive as raw bytes for the routes that take them.
 */
export function registerBodyParsers(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(/^application\/([a-z.+-]*\+)?json$/, { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) {
      done(new AppError(400, 'bad_request', `JSON nested deeper than ${MAX_JSON_DEPTH} levels`), undefined);
      return;
    }
    parseJson(request, text, done);
  });
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser(
    ['text/plain', 'text/xml', 'application/xml', 'application/octet-stream', 'application/x-www-form-urlencoded'],
    { parseAs: 'buffer' },
    (_request, body, done) => done(null, body),
  );
}
