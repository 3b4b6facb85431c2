import type { WhitelistCheck, WhitelistQuery } from '../../domain/journal/whitelist.ts';
import { sandboxWhitelistCheck } from '../../domain/journal/whitelist.ts';
import type { AppContext } from '../context.ts';

/**
 * Client of the Polish Ministry of Finance white-list API (domain.md §6.1):
 * `GET {base}/api/check/nip/{nip}/bank-account/{nrb}?date=YYYY-MM-DD` answers
 * `{result: {accountAssigned: 'TAK' | 'NIE', requestId}}`. The base URL is WHITELIST_API_URL; a
 * sandbox without it uses the deterministic local registry, so tests and demos need no network.
 * Answers are cached per (nip, nrb, date) for the process: the register has daily request quotas.
 */
export type WhitelistClient = { check(query: WhitelistQuery): Promise<WhitelistCheck> };

export const DEFAULT_WHITELIST_API_URL = 'https://wl-api.mf.gov.pl';
const TIMEOUT_MS = 5_000;
const CACHE_LIMIT = 10_000;

export function httpWhitelistClient(baseUrl: string, timeoutMs = TIMEOUT_MS): WhitelistClient {
  const base = baseUrl.replace(/\/+$/, '');
  const cache = new Map<string, WhitelistCheck>();
  return {
    async check(q) {
      const cacheKey = `${q.nip}/${q.nrb}/${q.date}`;
      const hit = cache.get(cacheKey);
      if (hit) return hit;
      const url = `${base}/api/check/nip/${encodeURIComponent(q.nip)}/bank-account/${encodeURIComponent(q.nrb)}?date=${encodeURIComponent(q.date)}`;
      const failed = (error: string): WhitelistCheck => ({ ...q, status: 'error', requestId: null, error });
      let response: Response;
      try {
        response = await fetch(url, {
          signal: AbortSignal.timeout(timeoutMs),
          headers: { accept: 'application/json' },
        });
      } catch (err) {
        return failed(
          `white list unreachable: ${(err as Error).name === 'TimeoutError' ? 'timeout' : (err as Error).message}`,
        );
      }
      let body: unknown;
      try {
        body = await response.json();
      } catch {
        return failed(`white list answered ${response.status} without JSON`);
      }
      if (!response.ok) {
        const message = (body as { message?: unknown } | null)?.message;
        return failed(`white list answered ${response.status}${typeof message === 'string' ? `: ${message}` : ''}`);
      }
      const result = (body as { result?: { accountAssigned?: unknown; requestId?: unknown } } | null)?.result;
      const assigned = result?.accountAssigned;
      if (assigned !== 'TAK' && assigned !== 'NIE') return failed('white list answer has no accountAssigned');
      const check: WhitelistCheck = {
        ...q,
        status: assigned === 'TAK' ? 'assigned' : 'not-assigned',
        requestId: typeof result?.requestId === 'string' ? result.requestId : null,
        error: null,
      };
      if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
      cache.set(cacheKey, check);
      return check;
    },
  };
}

const sandboxClient: WhitelistClient = { check: async (q) => sandboxWhitelistCheck(q) };
const clients = new WeakMap<object, WhitelistClient>();

/** The process's client for this configuration (one per config, so the cache is shared). */
export function whitelistClientFor(ctx: AppContext): WhitelistClient {
  const configured = ctx.config.whitelistApiUrl;
  if (configured === undefined && ctx.config.sandbox) return sandboxClient;
  let client = clients.get(ctx.config);
  if (!client) {
    client = httpWhitelistClient(configured ?? DEFAULT_WHITELIST_API_URL);
    clients.set(ctx.config, client);
  }
  return client;
}
