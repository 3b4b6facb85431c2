/**
 * A fuzzer over every route of /openapi.json: for each operation, requests with generated path
 * parameters, every declared query parameter and a body built from the declared properties, each
 * value drawn from hostile inputs (wrong types, huge and negative numbers, long strings, control
 * characters, malformed ids and cursors) mixed with the sandbox's real ids and credentials so the
 * requests also reach the handlers behind the schema. Every answer must be below 500 and, when an
 * error, the contract's envelope (OAuth's flat shape on its token routes; pages on HTML routes).
 */
import fc from 'fast-check';
import type { TestApp } from '../harness.ts';

type Schema = { type?: string | string[]; properties?: Record<string, Schema>; enum?: unknown[]; items?: Schema };
type Parameter = { name: string; in: 'path' | 'query' | 'header'; schema?: Schema };
type Operation = {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
};
export type OpenApi = { paths: Record<string, Record<string, Operation>> };

export type FuzzContext = {
  apiKey: string;
  sessionToken: string;
  platformId: string;
  companyId: string;
};

export type FuzzFinding = { method: string; url: string; status: number; body: string; payload?: unknown };

const HUGE_NUMBERS = [
  '100000000000000000000',
  '9223372036854775807',
  '9223372036854775808',
  '-9223372036854775809',
  '18446744073709551616',
  '1e309',
  '-1',
  '0',
  '-0',
  '1.5',
  'NaN',
  'Infinity',
  '0x10',
  '  7  ',
];
const MALFORMED = [
  '',
  ' ',
  'null',
  'undefined',
  '[]',
  '{}',
  '%00',
  '\u0000',
  'a\r\nb',
  '../../etc/passwd',
  "' OR 1=1 --",
  '<script>',
  '😀',
  '\uD800',
  '\uDC00',
  'a\uDBFFz',
  'doc_',
  'comp_00000000000000000000000000',
  'eyJhIjoxfQ',
  '____',
  '2026-13-45',
  '2026-02-30T25:61:00Z',
  'true',
];

/**
 * JSON that no JavaScript value stringifies to, spliced raw into a body where a property's value
 * stands (issue 41): escapes of a NUL and of lone surrogates, exponents past a double's range, and
 * nesting past the parsers' 64 levels.
 */
const RAW_JSON = [
  '"\\u0000"',
  '"a\\u0000b"',
  '"\\ud800"',
  '"\\udfff"',
  '"x\\udbffy"',
  '1e400',
  '-1e400',
  '1e-400',
  '123456789012345678901234567890e999',
  `${'['.repeat(65)}${']'.repeat(65)}`,
  `${'['.repeat(300)}${']'.repeat(300)}`,
  `${'{"a":'.repeat(70)}1${'}'.repeat(70)}`,
];
/** Stands where a raw JSON text goes; a string value no generator makes. */
const RAW_SLOT = '\u0001raw\u0001';

/** A hostile text value (path segment, query value, header). */
const hostileText = (ctx: FuzzContext) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...HUGE_NUMBERS, ...MALFORMED) },
    { weight: 2, arbitrary: fc.constantFrom(ctx.companyId, ctx.platformId) },
    { weight: 1, arbitrary: fc.string({ maxLength: 40, unit: 'binary' }) },
    { weight: 1, arbitrary: fc.base64String({ maxLength: 60 }) },
    { weight: 1, arbitrary: fc.integer().map(String) },
    { weight: 1, arbitrary: fc.constant('x'.repeat(5000)) },
  );

/** A hostile JSON value for a body property. */
const hostileJson = (ctx: FuzzContext): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 3, arbitrary: hostileText(ctx) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(1e308, -1e308, 2 ** 63, -(2 ** 53) - 2, 0.1, -1, 0, Number.MAX_SAFE_INTEGER),
    },
    { weight: 1, arbitrary: fc.boolean() },
    { weight: 1, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.array(fc.oneof(fc.string({ maxLength: 10 }), fc.integer()), { maxLength: 4 }) },
    { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 3 }) },
    { weight: 1, arbitrary: fc.constant('y'.repeat(70_000)) },
  );

const isNumeric = (schema: Schema | undefined) => [schema?.type].flat().some((t) => t === 'integer' || t === 'number');

const valueFor = (ctx: FuzzContext, name: string, schema: Schema | undefined): fc.Arbitrary<unknown> => {
  const real = name === 'companyId' ? ctx.companyId : name === 'platformId' ? ctx.platformId : undefined;
  const choices: { weight: number; arbitrary: fc.Arbitrary<unknown> }[] = [{ weight: 4, arbitrary: hostileJson(ctx) }];
  // The tenant scope mostly right, so requests get past authorisation into the handlers.
  if (real !== undefined) choices.push({ weight: 12, arbitrary: fc.constant(real) });
  if (isNumeric(schema)) choices.push({ weight: 6, arbitrary: fc.constantFrom(...HUGE_NUMBERS) });
  if (schema?.enum && schema.enum.length > 0) choices.push({ weight: 2, arbitrary: fc.constantFrom(...schema.enum) });
  return fc.oneof(...choices);
};

const credentials = (ctx: FuzzContext) =>
  fc.constantFrom<Record<string, string>>(
    { 'x-api-key': ctx.apiKey },
    { 'x-api-key': ctx.apiKey },
    { 'x-api-key': ctx.apiKey },
    { 'x-session-token': ctx.sessionToken },
    { 'x-session-token': ctx.sessionToken },
    { 'x-session-token': ctx.sessionToken },
    {},
    { 'x-api-key': 'key_0000' },
    { authorization: 'Bearer oat_garbage' },
    { authorization: 'Basic Og==' },
  );

type Request = {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: unknown;
};

function requestArbitrary(ctx: FuzzContext, method: string, path: string, op: Operation): fc.Arbitrary<Request> {
  const params = op.parameters ?? [];
  const pathParams = params.filter((p) => p.in === 'path').map((p) => p.name);
  const queryParams = params.filter((p) => p.in === 'query');
  const headerParams = params.filter((p) => p.in === 'header');
  const bodySchema = op.requestBody?.content?.['application/json']?.schema;
  const bodyProps = Object.entries(bodySchema?.properties ?? {});
  const text = hostileText(ctx);

  const pathArb = fc.tuple(
    ...pathParams.map((name) =>
      name === 'platformId' || name === 'companyId'
        ? fc.oneof(fc.constant(name === 'platformId' ? ctx.platformId : ctx.companyId), text)
        : text,
    ),
  );
  const queryArb = fc.tuple(
    ...queryParams.map((p) =>
      fc.option(
        valueFor(ctx, p.name, p.schema).map((v) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''))),
        { nil: undefined, freq: 4 },
      ),
    ),
  );
  const headerArb = fc.tuple(...headerParams.map(() => fc.option(text, { nil: undefined })));
  const bodyArb: fc.Arbitrary<unknown> = bodySchema
    ? fc.oneof(
        {
          weight: 6,
          arbitrary: fc
            .tuple(
              ...bodyProps.map(([name, schema]) => fc.option(valueFor(ctx, name, schema), { nil: undefined, freq: 5 })),
            )
            .chain((values) =>
              fc
                .option(fc.dictionary(fc.string({ maxLength: 12 }), hostileJson(ctx), { maxKeys: 2 }), {
                  nil: undefined,
                })
                .map((extra) => {
                  const body: Record<string, unknown> = { ...(extra ?? {}) };
                  bodyProps.forEach(([name], i) => {
                    if (values[i] !== undefined) body[name] = values[i];
                  });
                  return body;
                }),
            ),
        },
        { weight: 1, arbitrary: hostileJson(ctx) },
      )
    : fc.constant(undefined);

  return fc
    .record({
      path: pathArb,
      query: queryArb,
      headers: headerArb,
      body: bodyArb,
      auth: credentials(ctx),
      raw: fc.nat(9),
      spliced: fc.option(fc.record({ json: fc.constantFrom(...RAW_JSON), at: fc.nat() }), { freq: 3 }),
    })
    .map(({ path: values, query, headers, body, auth, raw, spliced }) => {
      let i = 0;
      const url = path.replace(/\{[^}]+\}/g, () => encodeURIComponent((values[i++] ?? '').toWellFormed()));
      const search = new URLSearchParams();
      queryParams.forEach((p, j) => {
        const v = query[j];
        if (v !== undefined) search.append(p.name, v);
      });
      const h: Record<string, string> = { ...auth };
      headerParams.forEach((p, j) => {
        const v = headers[j];
        // A header value cannot carry CR, LF or NUL; the transport refuses it before the server.
        if (v !== undefined && !/[\r\n\0]/.test(v) && /^[\t\x20-\x7e\x80-\xff]*$/.test(v)) h[p.name] = v;
      });
      const qs = search.toString();
      const request: Request = { method: method.toUpperCase(), url: qs ? `${url}?${qs}` : url, headers: h };
      if (method !== 'get' && method !== 'delete') {
        if (raw === 0) {
          // Now and then a malformed or oddly typed body instead of JSON.
          request.headers['content-type'] = 'application/json';
          request.payload = '{"companyId": ';
        } else if (spliced) {
          // A raw JSON text in place of one property's value (or a property of its own, on a route
          // that declares no JSON body: the OAuth token endpoints take forms but parse JSON too).
          const object =
            body !== null && typeof body === 'object' && !Array.isArray(body) ? { ...(body as object) } : {};
          const names = Object.keys(object);
          const name = names.length > 0 ? names[spliced.at % names.length]! : (bodyProps[0]?.[0] ?? 'token');
          (object as Record<string, unknown>)[name] = RAW_SLOT;
          request.headers['content-type'] = 'application/json';
          request.payload = JSON.stringify(object).replace(JSON.stringify(RAW_SLOT), spliced.json);
        } else if (body !== undefined) request.payload = body;
      }
      return request;
    });
}

/** Routes whose effect would end the run's credentials; fuzzed last. */
const LAST = ['/auth/logout'];

/** The operations of the document, in a stable order (credential-ending ones last). */
export function operationsOf(doc: OpenApi): { method: string; path: string; op: Operation }[] {
  const ops: { method: string; path: string; op: Operation }[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      ops.push({ method, path, op });
    }
  }
  const rank = (p: string) => (LAST.includes(p) ? 1 : 0);
  return ops.sort(
    (a, b) => rank(a.path) - rank(b.path) || a.path.localeCompare(b.path) || a.method.localeCompare(b.method),
  );
}

/** Whether an answer is acceptable: below 500, and an error in the envelope its route promises. */
export function answerProblem(path: string, status: number, contentType: string, body: string): string | undefined {
  if (status >= 500) return `status ${status}`;
  if (status < 400 || !contentType.includes('json')) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return 'an error body that is not JSON';
  }
  const error = (parsed as { error?: unknown }).error;
  if (path.startsWith('/oauth/') && typeof error === 'string') return undefined;
  const e = error as { code?: unknown; message?: unknown } | undefined;
  if (typeof e?.code !== 'string' || typeof e.message !== 'string' || e.message === '') {
    return 'an error outside the envelope {error: {code, message}}';
  }
  return undefined;
}

export async function fuzzRoutes(
  t: TestApp,
  ctx: FuzzContext,
  options: { seed: number; runsPerRoute: number; remoteAddress: () => string },
): Promise<{ operations: number; requests: number; findings: FuzzFinding[]; statuses: Record<string, number> }> {
  const doc = (await t.request({ method: 'GET', url: '/openapi.json' })).json() as OpenApi;
  const findings: FuzzFinding[] = [];
  const statuses: Record<string, number> = {};
  let requests = 0;
  const ops = operationsOf(doc);
  for (const [index, { method, path, op }] of ops.entries()) {
    await fc.assert(
      fc.asyncProperty(requestArbitrary(ctx, method, path, op), async (request) => {
        requests++;
        const res = await t.request({
          method: request.method as 'GET',
          url: request.url,
          headers: request.headers,
          remoteAddress: options.remoteAddress(),
          ...(request.payload !== undefined ? { payload: request.payload as string } : {}),
        });
        statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
        const problem = answerProblem(path, res.statusCode, String(res.headers['content-type'] ?? ''), res.body);
        if (problem) {
          findings.push({
            method: request.method,
            url: request.url,
            status: res.statusCode,
            body: res.body.slice(0, 300),
            payload: request.payload,
          });
        }
        return true;
      }),
      { seed: options.seed + index, numRuns: options.runsPerRoute, endOnFailure: true },
    );
  }
  return { operations: ops.length, requests, findings, statuses };
}

/**
 * Form values a browser can be made to send: NUL, what decodes to U+FFFD (a lone surrogate's UTF-8,
 * bytes that are no UTF-8), huge and odd numbers, long text; written percent-encoded as they are.
 */
const FORM_VALUES = [
  '%00',
  'a%00b',
  '%ED%A0%80',
  '%ED%BF%BF',
  '%FF%FE',
  '%',
  '%zz',
  '1e400',
  '-1e400',
  '100000000000000000000',
  'NaN',
  '-1',
  '%0D%0A',
  '..%2F..%2Fetc%2Fpasswd',
  '%3Cscript%3E',
  'x'.repeat(5000),
];

/** The signed-in browser the dashboard's forms are fuzzed with (test/dashboard/support.ts). */
export type FuzzBrowser = { cookie: string; csrf: string; remoteAddress: string };

/**
 * The dashboard's form routes (every POST /dashboard/... of the route access table, sign-out last)
 * with the field names its pages render, each sent with hostile values and, mostly, the page's CSRF
 * token, so that the requests reach the handlers. Every answer must be below 500.
 */
export async function fuzzDashboardForms(
  t: TestApp,
  ctx: FuzzContext,
  browser: FuzzBrowser,
  routes: readonly string[],
  options: { seed: number; runsPerRoute: number },
): Promise<{ routes: number; requests: number; findings: FuzzFinding[]; formsSeen: number }> {
  const forms = routes
    .filter((r) => r.startsWith('POST /dashboard'))
    .sort((a, b) => Number(a.endsWith('/sign-out')) - Number(b.endsWith('/sign-out')) || a.localeCompare(b));
  const patternOf = (route: string) => new RegExp(`^${route.slice(5).replace(/:[A-Za-z]+/g, '[^/?]+')}(?:\\?.*)?$`);
  // The fields each form route takes, as the pages render them (every name seen, for a form no page shows).
  const all = new Set(['csrf_token', 'companyId', 'code', 'label', 'email', 'password', 'next', 'sign_in_token']);
  const byRoute = new Map<string, Set<string>>();
  for (const route of routes.filter((r) => r.startsWith('GET /dashboard') && !r.includes(':'))) {
    const page = await t.request({
      method: 'GET',
      url: route.slice(4),
      headers: { cookie: browser.cookie },
      remoteAddress: browser.remoteAddress,
    });
    for (const form of page.body.matchAll(/<form\b[^>]*\baction="([^"]+)"[^>]*>([\s\S]*?)<\/form>/g)) {
      const action = form[1]!.replaceAll('&amp;', '&');
      const target = forms.find((r) => patternOf(r).test(action));
      for (const m of form[2]!.matchAll(/\bname="([A-Za-z_][\w.[\]-]*)"/g)) {
        all.add(m[1]!);
        if (target) byRoute.set(target, (byRoute.get(target) ?? new Set()).add(m[1]!));
      }
    }
  }
  const value = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...FORM_VALUES) },
    { weight: 2, arbitrary: fc.constantFrom(ctx.companyId, ctx.platformId) },
    {
      weight: 1,
      arbitrary: fc.string({ maxLength: 20, unit: 'binary' }).map((v) => encodeURIComponent(v.toWellFormed())),
    },
  );
  const findings: FuzzFinding[] = [];
  let requests = 0;
  for (const [index, route] of forms.entries()) {
    const path = route.slice(5);
    const fieldNames = [...(byRoute.get(route) ?? all)].sort();
    const arbitrary = fc.record({
      params: fc.array(fc.oneof(value, fc.constantFrom('approve', 'reject', 'revoke', 'disable', 'delete')), {
        minLength: 4,
        maxLength: 4,
      }),
      fields: fc.array(fc.tuple(fc.constantFrom(...fieldNames), value), { minLength: 1, maxLength: 6 }),
      csrf: fc.nat(9),
    });
    await fc.assert(
      fc.asyncProperty(arbitrary, async ({ params, fields, csrf }) => {
        requests++;
        let i = 0;
        const url = path.replace(/:[A-Za-z]+/g, () => params[i++] ?? 'x');
        const body = [
          ...(csrf > 0 ? [`csrf_token=${encodeURIComponent(browser.csrf)}`] : []),
          ...fields.map(([name, v]) => `${encodeURIComponent(name)}=${v}`),
        ].join('&');
        const res = await t.request({
          method: 'POST',
          url,
          headers: { cookie: browser.cookie, 'content-type': 'application/x-www-form-urlencoded' },
          payload: body,
          remoteAddress: browser.remoteAddress,
        });
        if (res.statusCode >= 500) {
          findings.push({ method: 'POST', url, status: res.statusCode, body: res.body.slice(0, 300), payload: body });
        }
        return true;
      }),
      { seed: options.seed + index, numRuns: options.runsPerRoute, endOnFailure: true },
    );
  }
  return { routes: forms.length, requests, findings, formsSeen: byRoute.size };
}
