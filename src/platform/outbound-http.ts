import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { rootCertificates } from 'node:tls';
import { Agent, buildConnector } from 'undici';
import { bareHost, resolveChecked, SsrfError, type SsrfPolicy } from './ssrf-guard.ts';

/**
 * Outbound HTTP for webhooks (DESIGN.md, Stack): undici with our own connector. Every connection,
 * redirects included, resolves its host once through the SSRF guard and connects to the checked
 * address (TLS still verifies the certificate against the original host name). Redirects are
 * followed by hand, at most `maxRedirects`, never from https down to http, each hop re-checked.
 */
export type OutboundResponse = { status: number; body: string; url: string };
export type OutboundRequest = {
  method?: 'POST' | 'GET';
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
};
export type OutboundHttp = {
  send(url: string, request: OutboundRequest): Promise<OutboundResponse>;
  close(): Promise<void>;
};

export type OutboundOptions = {
  policy: SsrfPolicy;
  /** EXTRA_CA_CERTS: a PEM file whose CAs are trusted besides the system roots. */
  extraCaCertsFile?: string | undefined;
  maxRedirects?: number;
  connections?: number;
};

const RESPONSE_BODY_LIMIT = 1024;

/**
 * An undici Agent whose every connection resolves its host once through the SSRF guard and connects
 * to the checked address; TLS verifies against `ca` (PEM strings) when given, else the system roots.
 */
export function createGuardedAgent(options: { policy: SsrfPolicy; ca?: string[]; connections?: number }): Agent {
  const base = buildConnector({ ...(options.ca ? { ca: options.ca } : {}), timeout: 10_000 });
  return new Agent({
    connections: options.connections ?? 16,
    keepAliveTimeout: 4_000,
    connect: (opts, callback) => {
      resolveChecked(opts.hostname, options.policy).then(
        (resolved) => {
          const host = bareHost(opts.hostname);
          const servername = opts.servername || (isIP(host) === 0 ? host : undefined);
          base({ ...opts, hostname: resolved.address, ...(servername ? { servername } : {}) }, callback);
        },
        (err: Error) => callback(err, null),
      );
    },
  });
}

/** The system roots plus the CAs of an EXTRA_CA_CERTS file, or undefined (system roots only). */
export function trustedCas(extraCaCertsFile: string | undefined): string[] | undefined {
  return extraCaCertsFile ? [...rootCertificates, readFileSync(extraCaCertsFile, 'utf8')] : undefined;
}

export function createOutboundHttp(options: OutboundOptions): OutboundHttp {
  const ca = trustedCas(options.extraCaCertsFile);
  const agent = createGuardedAgent({
    policy: options.policy,
    ...(ca ? { ca } : {}),
    ...(options.connections ? { connections: options.connections } : {}),
  });
  const maxRedirects = options.maxRedirects ?? 3;

  return {
    async send(url, request) {
      const signal = AbortSignal.timeout(request.timeoutMs);
      let current = new URL(url);
      let method = request.method ?? 'POST';
      let body = request.body;
      for (let hop = 0; ; hop++) {
        if (current.protocol !== 'https:' && current.protocol !== 'http:') {
          throw new SsrfError(`${current.protocol} URLs are not followed`);
        }
        if (current.username || current.password) throw new SsrfError('URLs with credentials are refused');
        const res = await agent.request({
          origin: current.origin,
          path: `${current.pathname}${current.search}`,
          method,
          headers: request.headers,
          ...(body !== undefined ? { body } : {}),
          signal,
          headersTimeout: request.timeoutMs,
          bodyTimeout: request.timeoutMs,
        });
        const location = res.headers.location;
        if (res.statusCode >= 300 && res.statusCode < 400 && typeof location === 'string') {
          await res.body.dump();
          if (hop >= maxRedirects)
            return { status: res.statusCode, body: 'too many redirects', url: current.toString() };
          const next = new URL(location, current);
          if (current.protocol === 'https:' && next.protocol !== 'https:') {
            throw new SsrfError(`redirect from https to ${next.protocol} refused`);
          }
          if (res.statusCode === 303 || ((res.statusCode === 301 || res.statusCode === 302) && method === 'POST')) {
            method = 'GET';
            body = undefined;
          }
          current = next;
          continue;
        }
        const text = await readLimited(res.body);
        return { status: res.statusCode, body: text, url: current.toString() };
      }
    },
    close: () => agent.close(),
  };
}

async function readLimited(stream: AsyncIterable<Buffer> & { destroy(): void }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= RESPONSE_BODY_LIMIT) {
      stream.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).toString('utf8').slice(0, RESPONSE_BODY_LIMIT);
}
