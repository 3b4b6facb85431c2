import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type ErrorCode, statusOf } from '../../app/error-codes.ts';
import { AppError } from '../../app/errors.ts';
import { databaseUnavailableOf } from '../../app/system/database-unavailable.ts';
import { lingerBeforeClose } from './lingering-close.ts';

/**
 * Every failure answers the contract's envelope `{error: {code, message, details?}}`. Client
 * mistakes get a 4xx with a stable code; anything unexpected is a 500 that says nothing internal.
 */
type Envelope = { error: { code: ErrorCode; message: string; details?: Record<string, unknown> } };

/** Fastify's own errors by its code; each answers its table status (error-codes.ts). */
const FRAMEWORK_CODES: Record<string, [ErrorCode, string]> = {
  FST_ERR_CTP_EMPTY_JSON_BODY: ['invalid_json', 'the JSON body is empty'],
  FST_ERR_CTP_INVALID_JSON_BODY: ['invalid_json', 'the body is not valid JSON'],
  FST_ERR_CTP_BODY_TOO_LARGE: ['payload_too_large', 'the request body is larger than this route accepts'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ['unsupported_media_type', 'this content type is not accepted here'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: ['bad_request', 'the content length does not match the body'],
  FST_ERR_BAD_URL: ['bad_request', 'the URL is not valid (a malformed percent-encoding)'],
  FST_ERR_MAX_PARAM_LENGTH: ['uri_too_long', 'a path parameter is longer than any id this API issues'],
};

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
};

function envelope(code: ErrorCode, message: string, details?: Record<string, unknown>): Envelope {
  return details === undefined ? { error: { code, message } } : { error: { code, message, details } };
}

/** The envelope of an application error, for an answer built outside the error handler. */
export function errorEnvelope(error: AppError): Envelope {
  return envelope(error.code, error.message, error.details);
}

function validationIssues(error: FastifyError) {
  return (error.validation ?? []).map((v) => ({
    path: `${error.validationContext ?? 'body'}${v.instancePath.replaceAll('/', '.')}`,
    message: v.message ?? 'invalid',
    ...(v.params && 'missingProperty' in v.params ? { field: String(v.params.missingProperty) } : {}),
    ...(v.params && 'additionalProperty' in v.params ? { field: String(v.params.additionalProperty) } : {}),
  }));
}

function toEnvelope(error: FastifyError | AppError | Error): { status: number; body: Envelope } {
  if (error instanceof AppError)
    return { status: error.status, body: envelope(error.code, error.message, error.details) };
  const e = error as FastifyError;
  if (e.validation) {
    return {
      status: 400,
      body: envelope('validation_failed', 'the request does not match the schema', { issues: validationIssues(e) }),
    };
  }
  const known = e.code ? FRAMEWORK_CODES[e.code] : undefined;
  if (known) return { status: statusOf(known[0]), body: envelope(known[0], known[1]) };
  if (e instanceof SyntaxError && e.statusCode === 400) {
    return { status: 400, body: envelope('invalid_json', 'the body is not valid JSON') };
  }
  const status = e.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    // A 4xx of no code of its own answers as bad_request: a code has one status (error-codes.ts).
    const code = CODE_BY_STATUS[status] ?? 'bad_request';
    return { status: statusOf(code), body: envelope(code, e.message || 'bad request') };
  }
  return { status: 500, body: envelope('internal_error', 'internal error; quote the X-Request-ID when reporting it') };
}

/** Route patterns by method, to tell an unknown path (404) from a wrong method (405). */
function routeTable(app: FastifyInstance) {
  const routes: { methods: string[]; pattern: RegExp }[] = [];
  app.addHook('onRoute', (route) => {
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).map(String);
    const source = route.url
      .split('/')
      .map((part) =>
        part.startsWith(':') ? '[^/]+' : part === '*' ? '.*' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
      )
      .join('/');
    routes.push({ methods, pattern: new RegExp(`^${source}/?$`) });
  });
  return (path: string) => [...new Set(routes.filter((r) => r.pattern.test(path)).flatMap((r) => r.methods))];
}

/**
 * Errors the router raises before any route or hook runs (a malformed percent-encoding, an
 * over-long path parameter): Fastify's `frameworkErrors` option, answered in the same envelope.
 */
export function frameworkErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const { status, body } = toEnvelope(error);
  request.log.info({ errorCode: body.error.code, status }, 'request refused');
  void reply.status(status).type('application/json').send(body);
}

export function registerErrors(app: FastifyInstance): void {
  const allowedMethods = routeTable(app);
  app.setErrorHandler((raised: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    // The database gone mid-request (a failover, a terminated backend): 503 with Retry-After, not a 500.
    const unavailable = databaseUnavailableOf(raised);
    const error = unavailable ?? raised;
    const { status, body } = toEnvelope(error);
    if (unavailable) request.log.warn({ err: raised }, 'request failed: database unavailable');
    else if (status >= 500) request.log.error({ err: error }, 'request failed');
    else request.log.info({ errorCode: body.error.code, status }, 'request refused');
    if (error instanceof AppError && error.headers) reply.headers(error.headers);
    // Refused before its body was read (413): let the client read the answer before the close.
    if (!request.raw.complete) lingerBeforeClose(request.raw.socket);
    return reply.status(status).type('application/json').send(body);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const methods = allowedMethods(path).filter((m) => m !== 'HEAD');
    if (methods.length > 0) {
      return reply
        .status(405)
        .header('Allow', methods.join(', '))
        .send(envelope('method_not_allowed', `${request.method} is not allowed here; use ${methods.join(' or ')}`));
    }
    return reply.status(404).send(envelope('not_found', `no route for ${request.method} ${path}`));
  });
}
