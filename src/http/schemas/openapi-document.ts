import { ERROR_CODES, type ErrorCode } from '../../app/error-codes.ts';
import { accessOf, isPublic, type RouteAccess } from '../access/route-access.ts';
import { OPERATION_IDS } from './operation-ids.ts';

/**
 * What /openapi.json says beyond the route schemas, taken from the one source of each fact: the
 * operationId from operation-ids.ts, the security from the route access table, the error codes of
 * each status from the error-code table (src/app/error-codes.ts), `servers` from PUBLIC_BASE_URL.
 * Used as @fastify/swagger's `transform` (per route) and `transformObject` (the whole document).
 */

type Requirement = Record<string, string[]>;

/** The access line as OpenAPI security requirements: any one of them is enough. */
export function securityOf(method: string, url: string, access: RouteAccess): Requirement[] {
  // The metrics route checks its own bearer token (METRICS_TOKEN), not an API credential.
  if (method === 'GET' && url === '/metrics') return [{ metricsToken: [] }];
  if (isPublic(access)) return [];
  const any: Requirement[] = [];
  if (access.key === 'accept') any.push({ apiKey: [] });
  if (access.session === 'accept') any.push({ session: [] });
  // OpenAPI 3.1 lets a non-OAuth2 scheme carry role names: the scope the token must hold.
  if (access.token !== 'never') any.push({ oauth: [access.token] });
  if (access.optional) any.push({});
  return any;
}

/** The first sentence of a description: the operation's summary. */
function summaryOf(description: string | undefined, fallback: string): string {
  if (!description) return fallback;
  const sentence = /^(.+?[.:;])(\s|$)/s.exec(description)?.[1] ?? description;
  const line = sentence.replace(/\s+/g, ' ').replace(/[.:;]$/, '');
  return line.length <= 120 ? line : `${line.slice(0, 117)}...`;
}

type RouteSchema = Record<string, unknown> & {
  /**
   * The request body a route reads itself (a raw file, a form, an optional body): described here,
   * while Fastify validates nothing (a `body` schema would).
   */
  documentedBody?: unknown;
  bodyOptional?: boolean;
  description?: string;
  summary?: string;
  tags?: string[];
  hide?: boolean;
};

export function describeRoute(input: {
  schema: RouteSchema | undefined;
  url: string;
  route: { method: string | string[] };
}) {
  const { url } = input;
  const schema: RouteSchema = { ...(input.schema ?? {}) };
  const method = (Array.isArray(input.route.method) ? input.route.method[0] : input.route.method) ?? 'GET';
  if (schema.hide) return { schema, url };
  if (schema.documentedBody !== undefined) {
    schema['body'] ??= schema.documentedBody;
    delete schema.documentedBody;
  }
  // @fastify/swagger marks every request body required; finishDocument clears it for these.
  if (schema.bodyOptional) schema['x-body-optional'] = true;
  delete schema.bodyOptional;
  const key = `${method === 'HEAD' ? 'GET' : method} ${url}`;
  const operationId = OPERATION_IDS[key];
  if (operationId) schema['operationId'] = operationId;
  schema.summary ??= summaryOf(schema.description, key);
  const segment = url.split('/')[1] ?? 'system';
  schema.tags ??= [segment.replace(/^\./, '') || 'system'];
  const { access, listed } = accessOf(method, url);
  schema['response'] = withCommonErrors(
    (schema['response'] ?? {}) as Record<string, unknown>,
    method,
    url,
    listed && !isPublic(access),
  );
  if (listed) schema['security'] = securityOf(method, url, access);
  return { schema, url };
}

/** The token and revocation endpoints answer OAuth's own flat error shape, from their own handler. */
const OWN_ERROR_SHAPE = new Set(['/oauth/token', '/oauth/revoke']);

/**
 * The refusals any route can give whatever its use case, added where a route does not name them:
 * 400 invalid_service_version (the Service-Version header, checked before routing), 500 and 503
 * database_unavailable; on an authenticated route 401 and 403 (the auth plugin: no or a wrong kind
 * of credential, a token without the scope); on a route that takes a body 413 and 415 (the body
 * parsers). A status a route documents itself keeps its own schema.
 */
function withCommonErrors(response: Record<string, unknown>, method: string, url: string, authenticated: boolean) {
  if (OWN_ERROR_SHAPE.has(url)) return response;
  const statuses = [400, 500, 503];
  if (authenticated) statuses.push(401, 403);
  if (method === 'POST' || method === 'PUT' || method === 'PATCH') statuses.push(413, 415);
  const out = { ...response };
  for (const status of statuses) out[status] ??= { $ref: 'ErrorEnvelope#' };
  return out;
}

/** The envelope of one status: its `code` is one of the table's codes of that status. */
function errorSchemaOf(status: number) {
  const codes = (Object.keys(ERROR_CODES) as ErrorCode[]).filter((c) => ERROR_CODES[c].status === status);
  return {
    type: 'object',
    description: codes.map((c) => `${c}: ${ERROR_CODES[c].meaning}`).join('\n'),
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: {
          code: codes.length > 0 ? { type: 'string', enum: codes } : { type: 'string' },
          message: { type: 'string' },
          details: { type: 'object', additionalProperties: true },
        },
      },
    },
  };
}

type Doc = {
  servers?: { url: string }[];
  paths?: Record<
    string,
    Record<
      string,
      { responses?: Record<string, ResponseObject>; requestBody?: { required?: boolean }; 'x-body-optional'?: true }
    >
  >;
  components?: { schemas?: Record<string, unknown> };
};
type ResponseObject = { description?: string; content?: Record<string, { schema?: { $ref?: string } }> };

const ENVELOPE_REF = '#/components/schemas/ErrorEnvelope';

/**
 * The whole document: `servers`, and each error response's envelope narrowed to its status's codes
 * (`ErrorNNN`, its description listing each code and what it means).
 */
export function finishDocument(doc: Doc, publicBaseUrl: string): Doc {
  doc.servers = [{ url: publicBaseUrl }];
  const components = doc.components ?? {};
  const schemas = components.schemas ?? {};
  components.schemas = schemas;
  doc.components = components;
  for (const operations of Object.values(doc.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      if (operation['x-body-optional']) {
        if (operation.requestBody) operation.requestBody.required = false;
        delete operation['x-body-optional'];
      }
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const n = Number(status);
        const envelope = Object.values(response.content ?? {}).some((c) => c.schema?.$ref === ENVELOPE_REF);
        if (!(n >= 400) || !envelope) continue;
        const name = `Error${n}`;
        schemas[name] ??= errorSchemaOf(n);
        // Errors are JSON even on a route that produces HTML or XML (the error handler's envelope).
        response.content = { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } };
        const codes = (Object.keys(ERROR_CODES) as ErrorCode[]).filter((c) => ERROR_CODES[c].status === n);
        response.description = codes.length > 0 ? codes.join(', ') : `error ${n}`;
      }
    }
  }
  // Every envelope is now one of a status; the generic one stays only if something still names it.
  if (!JSON.stringify(doc.paths ?? {}).includes(ENVELOPE_REF)) delete schemas['ErrorEnvelope'];
  return doc;
}

declare module 'fastify' {
  interface FastifySchema {
    /** A request body the route reads itself: in /openapi.json, never validated by Fastify (describeRoute). */
    documentedBody?: unknown;
    /** The request body may be left out (no body is valid): requestBody.required false. */
    bodyOptional?: boolean;
  }
}
