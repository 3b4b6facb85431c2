import type { FastifyInstance } from 'fastify';
import { AppError } from '../../app/errors.ts';

/** JSON deeper than this is refused before parsing: no payload of ours nests anywhere near it. */
export const MAX_JSON_DEPTH = 64;

/**
 * Nesting depth of a JSON text, counted outside strings, stopping as soon as it passes `limit`.
 * Strings are skipped with indexOf (native), so a 50 MB bank file inside `content` costs a few
 * milliseconds, not a character-by-character walk on the event loop.
 */
function jsonDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      // The closing quote: the next one not escaped by an odd run of backslashes.
      let end = text.indexOf('"', i + 1);
      while (end !== -1) {
        let slashes = 0;
        while (text.charCodeAt(end - 1 - slashes) === 92 /* \ */) slashes++;
        if (slashes % 2 === 0) break;
        end = text.indexOf('"', end + 1);
      }
      if (end === -1) return false; // unterminated: the parser refuses it as invalid JSON
      i = end;
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
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
      done(new AppError('bad_request', `JSON nested deeper than ${MAX_JSON_DEPTH} levels`), undefined);
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
