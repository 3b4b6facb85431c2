import type { CompanyScope } from '../../db/executor.ts';
import { findCompanyPlatform } from '../../db/repositories/companies.ts';
import type { AppContext } from '../context.ts';
import { forbidden, notFound } from '../errors.ts';
import { assertPlatform, assertTokenReaches } from './access.ts';
import type { Principal } from './principal.ts';

/**
 * A company never changes platform, so where it belongs is remembered per process for a minute
 * (found companies only): the hot list routes save a round trip. A company removed meanwhile
 * (sandbox retention) has no documents left to read, its rows cascading with it.
 */
const PLATFORM_TTL_MS = 60_000;
const MAX_ENTRIES = 10_000;
const platforms = new Map<string, { platformId: string; at: number }>();

async function platformOf(ctx: AppContext, companyId: string): Promise<string | undefined> {
  const now = ctx.clock.now().getTime();
  const hit = platforms.get(companyId);
  if (hit && now - hit.at >= 0 && now - hit.at < PLATFORM_TTL_MS) return hit.platformId;
  const platformId = await findCompanyPlatform(ctx.db, companyId);
  if (platformId === undefined) platforms.delete(companyId);
  else {
    if (platforms.size >= MAX_ENTRIES && !platforms.has(companyId))
      platforms.delete(platforms.keys().next().value as string);
    platforms.set(companyId, { platformId, at: now });
  }
  return platformId;
}

/**
 * The tenant scope of a data-plane call: the platform is the credential's, the company is named by the
 * caller. A company of another platform is 403 forbidden (contract, Authentication: a stated scope
 * outside the key's platform); a company that does not exist is 404. An OAuth token reaches only the
 * companies its user administers at the time of the request.
 */
export async function companyScope(
  ctx: AppContext,
  principal: Principal,
  companyId: string,
  statedPlatformId?: string,
): Promise<CompanyScope> {
  if (statedPlatformId !== undefined) assertPlatform(principal, statedPlatformId);
  const platformId = await platformOf(ctx, companyId);
  if (platformId === undefined) throw notFound('company');
  if (platformId !== principal.platformId) throw forbidden('the company is outside this credential');
  assertTokenReaches(principal, companyId);
  return { platformId, companyId };
}
