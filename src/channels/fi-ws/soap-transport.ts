import { createGuardedAgent } from '../../platform/outbound-http.ts';
import { SsrfError, type SsrfPolicy } from '../../platform/ssrf-guard.ts';
import { WsChannelError } from './errors.ts';

/**
 * SOAP 1.1 over HTTPS to a bank (DESIGN.md, Bank connectivity): POST text/xml, no redirects followed
 * (a bank endpoint does not move), HTTPS only, every connection through the SSRF guard and pinned to
 * the checked address. `ca` replaces the system roots when given (a simulator's own CA); otherwise
 * the system roots (plus EXTRA_CA_CERTS) verify the bank's TLS certificate.
 */
export type SoapTransport = {
  post(url: string, xml: string): Promise<{ status: number; body: string }>;
  close(): Promise<void>;
};

export type SoapTransportOptions = {
  policy: SsrfPolicy;
  ca?: string[] | undefined;
  timeoutMs?: number;
  /** Largest answer read (downloads carry whole statements): 64 MiB by default. */
  maxResponseBytes?: number;
};

export function createSoapTransport(options: SoapTransportOptions): SoapTransport {
  const agent = createGuardedAgent({
    policy: options.policy,
    ...(options.ca ? { ca: options.ca } : {}),
    connections: 4,
  });
  const timeoutMs = options.timeoutMs ?? 60_000;
  const limit = options.maxResponseBytes ?? 64 * 1024 * 1024;
  return {
    async post(url, xml) {
      const target = new URL(url);
      if (target.protocol !== 'https:') throw new WsChannelError('invalid_config', `${url} is not an HTTPS URL`, false);
      try {
        const res = await agent.request({
          origin: target.origin,
          path: `${target.pathname}${target.search}`,
          method: 'POST',
          headers: { 'content-type': 'text/xml; charset=UTF-8', soapaction: '""' },
          body: xml,
          signal: AbortSignal.timeout(timeoutMs),
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        });
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const chunk of res.body) {
          size += (chunk as Buffer).length;
          if (size > limit) {
            res.body.destroy();
            throw new WsChannelError('bad_response', `the answer from ${target.host} exceeds ${limit} bytes`, false);
          }
          chunks.push(chunk as Buffer);
        }
        return { status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') };
      } catch (error) {
        if (error instanceof WsChannelError) throw error;
        if (error instanceof SsrfError) {
          throw new WsChannelError('address_refused', `${target.host}: ${error.message}`, false, { cause: error });
        }
        const name = (error as Error).name;
        if (name === 'TimeoutError' || name === 'AbortError') {
          throw new WsChannelError('timeout', `${target.host} did not answer within ${timeoutMs} ms`, true);
        }
        throw new WsChannelError('transport', `HTTPS to ${target.host} failed: ${(error as Error).message}`, true, {
          cause: error,
        });
      }
    },
    close: () => agent.close(),
  };
}
