import type { CompanyScope } from '../../db/executor.ts';
import { companyPlatform } from '../../db/repositories/journal-reads.ts';
import type { AppContext } from '../context.ts';
import { AppError, forbidden, notFound } from '../errors.ts';
import { isCompanyAdmin } from '../identity/access.ts';
import type { Principal } from '../identity/principal.ts';

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
  const platformId = await companyPlatform(ctx.db, companyId);
  if (platformId === undefined) platforms.delete(companyId);
  else {
    if (platforms.size >= MAX_ENTRIES && !platforms.has(companyId))
      platforms.delete(platforms.keys().next().value as string);
    platforms.set(companyId, { platformId, at: now });
  }
  return platformId;
}

/**
 * The tenant scope of a journal read: the platform is the credential's, the company is named by the
 * caller. A company of another platform is 403 forbidden (contract, Authentication: a stated scope
 * outside the key's platform); a company that does not exist is 404.
 */
export async function companyScope(ctx: AppContext, principal: Principal, companyId: string): Promise<CompanyScope> {
  const platformId = await platformOf(ctx, companyId);
  if (platformId === undefined) throw notFound('company');
  if (platformId !== principal.platformId) throw forbidden('the company is outside this credential');
  return { platformId, companyId };
}

/**
 * POST /journal/export takes an API key or a human session; a session must be an admin of the
 * company (a workspace admin inside its company context), else 403 admin_required.
 */
export async function exportScope(
  ctx: AppContext,
  principal: Principal,
  companyId: string,
  statedPlatformId: string | undefined,
): Promise<CompanyScope> {
  if (statedPlatformId !== undefined && statedPlatformId !== principal.platformId)
    throw forbidden('the platform is outside this credential');
  const scope = await companyScope(ctx, principal, companyId);
  if (principal.kind === 'session' && !isCompanyAdmin(principal, companyId))
    throw new AppError(403, 'admin_required', 'exporting the journal needs a company admin');
  return scope;
}
