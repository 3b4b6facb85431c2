/**
 * Every response the integration suite receives, checked against /openapi.json (issue 36): the
 * body of a documented status must match its schema (ajv, JSON Schema 2020-12, as OpenAPI 3.1
 * has it). OPENAPI_RESPONSES chooses how strict:
 * - `strict` (the default): a status the operation does not document fails, and the JSON body of a
 *   documented one must match its schema.
 * - `documented`: only the bodies of documented statuses are checked (an undocumented status passes).
 * - `off`: nothing is checked.
 * A violation fails the request's test (the harness's request() throws).
 */

import { Ajv2020 } from 'ajv/dist/2020.js';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';

type Mode = 'documented' | 'strict' | 'off';
type Responses = Record<string, { content?: Record<string, { schema?: unknown }> }>;
type Doc = { paths: Record<string, Record<string, { responses?: Responses }>>; components?: unknown };

export function responseChecker(app: FastifyInstance) {
  const mode = (process.env.OPENAPI_RESPONSES ?? 'strict') as Mode;
  if (mode === 'off') return (_r: LightMyRequestResponse, _u: string | undefined) => {};
  const doc = structuredClone(app.swagger()) as unknown as Doc;
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema({ $id: 'openapi', components: doc.components, paths: doc.paths } as object);
  // Fastify's route pattern (:id) to the document's path ({id}).
  const pathOf = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
  const pointer = (...parts: string[]) =>
    `openapi#/${parts.map((p) => encodeURIComponent(p.replaceAll('~', '~0').replaceAll('/', '~1'))).join('/')}`;
  return (res: LightMyRequestResponse, routeUrl: string | undefined) => {
    if (!routeUrl) return;
    const method = res.raw.req.method?.toLowerCase() ?? 'get';
    const path = pathOf(routeUrl);
    const operation = doc.paths[path]?.[method === 'head' ? 'get' : method];
    if (!operation || method === 'head') return;
    const status = String(res.statusCode);
    const response = operation.responses?.[status] ?? operation.responses?.['default'];
    if (!response) {
      if (mode === 'strict')
        throw new Error(`${method.toUpperCase()} ${path} answered ${status}, which it does not document`);
      return;
    }
    const json = response.content?.['application/json'];
    const type = String(res.headers['content-type'] ?? '');
    if (!json?.schema || !type.startsWith('application/json') || res.body === '') return;
    const key = pointer('paths', path, method, 'responses', status, 'content', 'application/json', 'schema');
    const validate = ajv.getSchema(key);
    if (!validate) throw new Error(`no schema at ${key}`);
    if (!validate(JSON.parse(res.body))) {
      throw new Error(
        `${method.toUpperCase()} ${path} ${status}: the body does not match /openapi.json: ${ajv.errorsText(validate.errors)}`,
      );
    }
  };
}
