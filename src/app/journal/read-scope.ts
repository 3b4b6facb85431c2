import type { CompanyScope } from '../../db/executor.ts';
import type { AppContext } from '../context.ts';
import { AppError, forbidden } from '../errors.ts';
import { isCompanyAdmin } from '../identity/access.ts';
import { companyScope } from '../identity/company-scope.ts';
import type { Principal } from '../identity/principal.ts';

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
    throw new AppError('admin_required', 'exporting the journal needs a company admin');
  return scope;
}
