/**
 * /openapi.json as DESIGN.md asks for it ("API description and errors"): every operation named
 * (operationId, stable, from src/http/schemas/operation-ids.ts), summarised, tagged, with its
 * security from the route access table; `servers` from PUBLIC_BASE_URL; each error response's code
 * one of the error-code table's codes of that status. OPENAPI_OUT=<file> also writes the document
 * (for `redocly lint` and the client generation, clients/typescript).
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { ERROR_CODES } from '../../src/app/error-codes.ts';
import { connectivityProfiles, listPaymentTypes, listProfiles } from '../../src/domain/conversion/index.ts';
import { ROUTE_ACCESS } from '../../src/http/access/route-access.ts';
import { OPERATION_IDS } from '../../src/http/schemas/operation-ids.ts';
import { body, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';

type Operation = {
  operationId?: string;
  summary?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  responses: Record<string, { content?: Record<string, { schema: { $ref?: string } }> }>;
};
type Doc = {
  servers: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { properties: { error: { properties: { code: { enum?: string[] } } } } }> };
};

let t: TestApp;
let doc: Doc;
before(async () => {
  t = await startTestApp();
  doc = body<Doc>(await t.request({ method: 'GET', url: '/openapi.json' }));
  if (process.env.OPENAPI_OUT) writeFileSync(process.env.OPENAPI_OUT, JSON.stringify(doc, null, 2));
});
after(() => t.close());

const operations = () =>
  Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op })),
  );

test('every operation has a unique camelCase operationId, a summary and a tag', () => {
  const seen = new Map<string, string>();
  for (const { key, op } of operations()) {
    assert.match(
      op.operationId ?? '',
      /^[a-z][a-zA-Z]+$/,
      `${key} has an operationId (src/http/schemas/operation-ids.ts)`,
    );
    assert.equal(seen.get(op.operationId ?? ''), undefined, `${key}: ${op.operationId} is not used twice`);
    seen.set(op.operationId ?? '', key);
    assert.ok((op.summary ?? '').length > 0, `${key} has a summary`);
    assert.ok((op.tags ?? []).length > 0, `${key} has a tag`);
  }
  assert.equal(doc.paths['/journal/payments']?.['post']?.operationId, 'submitPayment');
  assert.equal(doc.paths['/journal/documents']?.['get']?.operationId, 'listDocuments');
});

test('every operationId names a route of the access table', () => {
  for (const key of Object.keys(OPERATION_IDS)) assert.ok(ROUTE_ACCESS[key], `${key} is a route`);
});

test('security comes from the route access table; servers from PUBLIC_BASE_URL', () => {
  assert.deepEqual(doc.servers, [{ url: t.ctx.config.publicBaseUrl }]);
  for (const { key, op } of operations()) assert.ok(Array.isArray(op.security), `${key} states its security`);
  assert.deepEqual(doc.paths['/health']?.['get']?.security, []);
  assert.deepEqual(doc.paths['/journal/payments']?.['post']?.security, [
    { apiKey: [] },
    { session: [] },
    { oauth: ['payments:submit'] },
  ]);
  // The metrics route exists only with metrics on (not in this app): its line is the metrics token.
  if (doc.paths['/metrics']) assert.deepEqual(doc.paths['/metrics']['get']?.security, [{ metricsToken: [] }]);
});

test("an error response's code is one of the table's codes of its status", () => {
  for (const { key, op } of operations()) {
    for (const [status, response] of Object.entries(op.responses)) {
      if (Number(status) < 400) continue;
      // /ready's 503 is its own {ready: false, error} body; the OAuth token routes answer OAuth's flat shape.
      const ref = response.content?.['application/json']?.schema.$ref;
      if (['GET /ready', 'POST /oauth/token', 'POST /oauth/revoke'].includes(key)) continue;
      // The consent pages answer their refusals as an HTML page (the sign-in page again, with why).
      if (response.content?.['text/html'] && !response.content['application/json']) continue;
      assert.equal(ref, `#/components/schemas/Error${status}`, `${key} ${status}`);
    }
  }
  const codes400 = doc.components.schemas['Error400']?.properties.error.properties.code.enum ?? [];
  assert.ok(codes400.includes('validation_failed'));
  for (const code of codes400) assert.equal(ERROR_CODES[code as keyof typeof ERROR_CODES].status, 400, code);
});

test('the discovery schemas that serialise the answers drop nothing of them', async () => {
  const { apiKey } = await provisionAndLogin(t);
  const get = async (url: string) => body(await t.request({ method: 'GET', url, headers: { 'x-api-key': apiKey } }));
  assert.deepEqual((await get('/profiles'))['items'], JSON.parse(JSON.stringify(listProfiles())));
  assert.deepEqual((await get('/payment-types'))['items'], JSON.parse(JSON.stringify(listPaymentTypes())));
  assert.deepEqual((await get('/connectivity/profiles'))['items'], JSON.parse(JSON.stringify(connectivityProfiles())));
  for (const path of ['/profiles', '/payment-types', '/banks/{bankKey}/payment-types', '/connectivity/profiles']) {
    assert.ok(doc.paths[path]?.['get']?.responses['200'], `${path} documents its 200`);
  }
});

test('the response check of the harness refuses a body that does not match, and (strict) an undocumented status', async () => {
  const { responseChecker } = await import('../support/openapi-responses.ts');
  const check = responseChecker(t.app);
  const answer = (statusCode: number, payload: unknown) =>
    ({
      raw: { req: { method: 'GET' } },
      statusCode,
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify(payload),
    }) as never;
  assert.throws(() => check(answer(200, { items: 'not a list', profiles: [] }), '/profiles'), /does not match/);
  check(answer(200, { items: [], profiles: [] }), '/profiles');
  const previous = process.env.OPENAPI_RESPONSES;
  process.env.OPENAPI_RESPONSES = 'strict';
  try {
    assert.throws(() => responseChecker(t.app)(answer(418, {}), '/profiles'), /does not document/);
  } finally {
    if (previous === undefined) delete process.env.OPENAPI_RESPONSES;
    else process.env.OPENAPI_RESPONSES = previous;
  }
});
