import type { CompanyScope } from '../../db/executor.ts';
import { findCompanyPlatform } from '../../db/repositories/journal-documents.ts';
import type { AppContext } from '../context.ts';
import { forbidden, notFound } from '../errors.ts';
import { assertPlatform } from '../identity/access.ts';
import type { Principal } from '../identity/principal.ts';

/**
 * The tenant scope of a data-plane call: the credential's platform plus the stated company. A stated
 * platformId other than the credential's, or a company of another platform, is 403 forbidden; a
 * company that does not exist is 404.
 */
export async function companyScopeOf(
  ctx: AppContext,
  principal: Principal,
  companyId: string,
  statedPlatformId?: string,
): Promise<CompanyScope> {
  if (statedPlatformId !== undefined) assertPlatform(principal, statedPlatformId);
  const owner = await findCompanyPlatform(ctx.db, companyId);
  if (owner === undefined) throw notFound('company');
  if (owner !== principal.platformId) throw forbidden('the company is outside this credential');
  return { platformId: principal.platformId, companyId };
}
