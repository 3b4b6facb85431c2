/**
 * An installed application written against RFC 8252 (OAuth 2.0 for Native Apps): a command-line
 * client of payops that signs its user in through the browser with the authorization code flow,
 * PKCE (S256) and a loopback redirect, then submits and reads payments with a token limited to its
 * scopes. It uses nothing but Node's standard library, as any third-party tool could.
 *
 *   npm run oauth-example -- login --base URL --client-id oac_... --port 53682 [--scope "..."] [--tokens FILE]
 *   npm run oauth-example -- submit payment.json [--base URL --client-id ... --tokens FILE]
 *   npm run oauth-example -- documents --company comp_... [--base URL --client-id ... --tokens FILE]
 *   npm run oauth-example -- logout [--base URL --client-id ... --tokens FILE]
 *
 * The redirect URI is http://127.0.0.1:<port>/callback and must be registered for the client exactly
 * (POST /platforms/{platformId}/oauth-clients). `submit` reads a POST /journal/payments body (with
 * companyId) from the file. Tokens are kept in --tokens (default ./.payops-tokens.json, mode 0600);
 * an expired access token is refreshed (the pair rotates), and when the grant is gone the command
 * says so and exits with status 2.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';

type Tokens = { access_token: string; refresh_token: string; scope: string };
type Metadata = {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  revocation_endpoint: string;
  code_challenge_methods_supported: string[];
};

class Revoked extends Error {}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    base: { type: 'string', default: 'http://127.0.0.1:8080' },
    'client-id': { type: 'string' },
    port: { type: 'string', default: '53682' },
    scope: { type: 'string', default: 'payments:submit payments:read' },
    tokens: { type: 'string', default: '.payops-tokens.json' },
    company: { type: 'string' },
  },
});
const [command, argument] = positionals;
const base = values.base.replace(/\/$/, '');
const clientId = values['client-id'];
const tokenFile = values.tokens;

async function discover(): Promise<Metadata> {
  // RFC 8414: the endpoints come from the server's own metadata, not from assumptions.
  const res = await fetch(`${base}/.well-known/oauth-authorization-server`);
  if (!res.ok) throw new Error(`no authorization server metadata at ${base} (${res.status})`);
  const metadata = (await res.json()) as Metadata;
  if (!metadata.code_challenge_methods_supported.includes('S256'))
    throw new Error('the server does not offer PKCE S256');
  return metadata;
}

async function tokenRequest(metadata: Metadata, params: Record<string, string>): Promise<Tokens> {
  const res = await fetch(metadata.token_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...params, client_id: requireClientId() }),
  });
  const body = (await res.json()) as Tokens & { error?: string; error_description?: string };
  if (res.ok) return body;
  if (body.error === 'invalid_grant' || body.error === 'invalid_client') {
    throw new Revoked(`access was revoked or has expired (${body.error}: ${body.error_description}); run login again`);
  }
  throw new Error(`token endpoint: ${body.error}: ${body.error_description}`);
}

function requireClientId(): string {
  if (!clientId) throw new Error('--client-id is required');
  return clientId;
}

function save(tokens: Tokens): void {
  writeFileSync(tokenFile, JSON.stringify(tokens, null, 2), { mode: 0o600 });
}

function load(): Tokens {
  return JSON.parse(readFileSync(tokenFile, 'utf8')) as Tokens;
}

/** RFC 8252 §7.3: a loopback redirect on 127.0.0.1, listening only until the one answer arrives. */
function awaitRedirect(port: number): Promise<URLSearchParams> {
  return new Promise((resolve, reject) => {
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
      if (url.pathname !== '/callback') {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('Signed in. You can close this window.');
      server.close();
      resolve(url.searchParams);
    });
    server.once('error', reject);
    server.listen(port, '127.0.0.1');
  });
}

async function login(): Promise<void> {
  const metadata = await discover();
  const port = Number(values.port);
  const redirectUri = `http://127.0.0.1:${port}/callback`;
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const state = randomBytes(16).toString('base64url');
  const answer = awaitRedirect(port);
  const url = new URL(metadata.authorization_endpoint);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: requireClientId(),
    redirect_uri: redirectUri,
    scope: values.scope,
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  }).toString();
  process.stdout.write(`Open this address in your browser to sign in:\n${url}\n`);
  const params = await answer;
  if (params.get('state') !== state) throw new Error('the answer does not carry our state: ignored');
  // RFC 9207: the answer must come from the server we asked.
  if (params.get('iss') !== null && params.get('iss') !== metadata.issuer)
    throw new Error('the answer names another issuer');
  const error = params.get('error');
  if (error) throw new Revoked(`sign-in refused: ${error} (${params.get('error_description') ?? ''})`);
  const tokens = await tokenRequest(metadata, {
    grant_type: 'authorization_code',
    code: params.get('code') ?? '',
    redirect_uri: redirectUri,
    code_verifier: verifier,
  });
  save(tokens);
  process.stdout.write(`Signed in; granted: ${tokens.scope}\n`);
}

/** An API call with the access token; on 401 the pair is refreshed once (rotating it) and the call retried. */
async function call(method: string, path: string, init: { body?: unknown; headers?: Record<string, string> } = {}) {
  const send = (tokens: Tokens) =>
    fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${tokens.access_token}`,
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...init.headers,
      },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
  let res = await send(load());
  if (res.status === 401) {
    const tokens = await tokenRequest(await discover(), {
      grant_type: 'refresh_token',
      refresh_token: load().refresh_token,
    });
    save(tokens);
    res = await send(tokens);
    if (res.status === 401) throw new Revoked('access was revoked; run login again');
  }
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

async function submit(file: string | undefined): Promise<void> {
  if (!file) throw new Error('submit needs a payment file');
  const body = JSON.parse(readFileSync(file, 'utf8')) as { companyId: string };
  const idempotencyKey = randomBytes(12).toString('hex');
  const document = await call('POST', '/journal/payments', { body, headers: { 'idempotency-key': idempotencyKey } });
  const again = await call(
    'GET',
    `/journal/documents/${String(document.id)}?companyId=${encodeURIComponent(body.companyId)}`,
  );
  process.stdout.write(
    `${JSON.stringify({ id: again.id, journalNo: again.journalNo, status: again.status, bankKey: again.bankKey })}\n`,
  );
}

async function documents(): Promise<void> {
  if (!values.company) throw new Error('documents needs --company');
  const page = await call('GET', `/journal/documents?companyId=${encodeURIComponent(values.company)}`);
  const items = page.items as { id: string; journalNo: string; status: string }[];
  for (const d of items) process.stdout.write(`${d.journalNo}\t${d.status}\t${d.id}\n`);
}

async function logout(): Promise<void> {
  const metadata = await discover();
  // RFC 7009: revoking the refresh token ends the whole grant.
  await fetch(metadata.revocation_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      token: load().refresh_token,
      token_type_hint: 'refresh_token',
      client_id: requireClientId(),
    }),
  });
  process.stdout.write('Signed out.\n');
}

const commands: Record<string, () => Promise<void>> = {
  login,
  submit: () => submit(argument),
  documents,
  logout,
};

try {
  const run = command === undefined ? undefined : commands[command];
  if (!run) throw new Error(`usage: ${Object.keys(commands).join(' | ')} (see the header of this file)`);
  await run();
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = error instanceof Revoked ? 2 : 1;
}
