import { loadSubmitContext, type SubmitContext } from '../../db/repositories/journal-submit.ts';
import { recentCachePer } from '../../platform/recent-cache.ts';
import type { AppContext } from '../context.ts';
import { AppError, forbidden, notFound } from '../errors.ts';

/** The body of POST /journal/payments and /journal/payments/preview, after the route's schema. */
export type SubmitInput = {
  companyId: string;
  bankKey: string;
  payment: unknown;
  environment: 'test' | 'production';
  validate: boolean;
  /** The Idempotency-Key header, else the body's idempotencyKey. */
  idempotencyKey: string | undefined;
};

/** `platformId` must not be sent (contract): the API key's platform is the only scope. */
export function refusePlatformId(body: unknown): void {
  if (body !== null && typeof body === 'object' && 'platformId' in body) {
    throw new AppError('bad_request', 'platformId must not be sent: the API key decides the platform', {
      field: 'platformId',
    });
  }
}

/**
 * Reads the company's submit context and checks the scope: an unknown company is 404, a company of
 * another platform 403 (DESIGN.md: ids of other tenants reveal nothing either way beyond that).
 * `recent: true` may answer from the contexts this process read before (no round trip): only for a
 * caller whose journaling statement checks that the context is still current (SubmitChecks).
 */
export async function companySubmitContext(
  ctx: AppContext,
  platformId: string,
  input: Pick<SubmitInput, 'companyId' | 'bankKey' | 'environment'>,
  options: { recent?: boolean } = {},
): Promise<SubmitContext> {
  const cache = recentContextsOf(ctx.db);
  const cacheKey = contextKey(platformId, input);
  const cached = options.recent ? cache.get(cacheKey) : undefined;
  if (cached) return { ...cached, recent: true };
  const found = await loadSubmitContext(
    ctx.db,
    { platformId, companyId: input.companyId },
    input.bankKey,
    input.environment,
  );
  if (found.companyPlatformId === undefined) throw notFound('company');
  if (found.companyPlatformId !== platformId) throw forbidden('the company is outside this credential');
  cache.set(cacheKey, found);
  return found;
}

function contextKey(platformId: string, input: Pick<SubmitInput, 'companyId' | 'bankKey' | 'environment'>): string {
  return `${platformId}\u0000${input.companyId}\u0000${input.bankKey}\u0000${input.environment}`;
}

/** Contexts in scope read recently, per database pool. */
const recentContextsOf = recentCachePer<SubmitContext>(10_000);

/** The message id of a canonical payment, when it carries a non-empty string one. */
export function messageIdOf(payment: unknown): string | null {
  if (payment === null || typeof payment !== 'object') return null;
  const value = (payment as Record<string, unknown>)['messageId'];
  return typeof value === 'string' && value !== '' ? value : null;
}
