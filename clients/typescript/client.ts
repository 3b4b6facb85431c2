/**
 * The typed TypeScript client of the payment operations API: the types are generated from
 * /openapi.json by openapi-typescript (schema.d.ts, `npm run client:generate`; `npm run lint` fails
 * when they drift from what the server describes), the calls go through openapi-fetch. Each call is
 * typed by its path and method: its parameters, request body and the answers of each status.
 *
 *   const api = createPayopsClient({ baseUrl: 'https://payops.example', apiKey: process.env.PAYOPS_KEY });
 *   const { data, error } = await api.GET('/profiles');
 */
import createClient from 'openapi-fetch';
import type { paths } from './schema.d.ts';

export type { components, operations, paths } from './schema.d.ts';

export type PayopsClientOptions = {
  baseUrl: string;
  /** X-API-Key: a platform's API key (host-to-host). */
  apiKey?: string;
  /** X-Session-Token: an admin session from POST /auth/login. */
  sessionToken?: string;
  /** Authorization: Bearer, an installed application's OAuth access token. */
  accessToken?: string;
  /** Service-Version: pins the API version (YYYY-MM-DD). */
  serviceVersion?: string;
  fetch?: typeof globalThis.fetch;
};

export function createPayopsClient(options: PayopsClientOptions) {
  const headers: Record<string, string> = {};
  if (options.apiKey) headers['x-api-key'] = options.apiKey;
  if (options.sessionToken) headers['x-session-token'] = options.sessionToken;
  if (options.accessToken) headers['authorization'] = `Bearer ${options.accessToken}`;
  if (options.serviceVersion) headers['service-version'] = options.serviceVersion;
  return createClient<paths>({
    baseUrl: options.baseUrl,
    headers,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}

export type PayopsClient = ReturnType<typeof createPayopsClient>;
