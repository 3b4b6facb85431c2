import type { CompanyScope } from '../../db/executor.ts';
import { findEndpoint, type WebhookEndpointRow } from '../../db/repositories/webhooks.ts';
import type { AppContext } from '../context.ts';
import { AppError, forbidden, notFound } from '../errors.ts';
import { requireCompanyAdmin } from '../identity/access.ts';
import { companyScope } from '../identity/company-scope.ts';
import type { Principal } from '../identity/principal.ts';

/**
 * Webhook routes take a platform API key or an admin session of the company (a company admin, or a
 * workspace admin inside its company context). A company of another platform is 403 forbidden.
 */
export async function webhookScope(ctx: AppContext, principal: Principal, companyId: string): Promise<CompanyScope> {
  const scope = await companyScope(ctx, principal, companyId);
  if (principal.kind === 'session') requireCompanyAdmin(principal, scope.platformId, companyId);
  return scope;
}

/**
 * The endpoint `id` of the caller's platform (404 otherwise); a stated `companyId` must be the
 * endpoint's company and inside the platform (403 otherwise); a session must administer its company.
 */
export async function endpointFor(
  ctx: AppContext,
  principal: Principal,
  id: string,
  statedCompanyId?: string,
  options: { forUpdate?: boolean; tx?: Parameters<typeof findEndpoint>[0] } = {},
): Promise<WebhookEndpointRow> {
  if (statedCompanyId !== undefined) await companyScope(ctx, principal, statedCompanyId);
  const row = await findEndpoint(options.tx ?? ctx.db, { platformId: principal.platformId }, id, {
    forUpdate: options.forUpdate ?? false,
  });
  if (!row) throw notFound('webhook endpoint');
  if (statedCompanyId !== undefined && row.companyId !== statedCompanyId) {
    throw forbidden('the webhook endpoint belongs to another company');
  }
  if (principal.kind === 'session') requireCompanyAdmin(principal, row.platformId, row.companyId);
  return row;
}

export function actorOf(principal: Principal): string | null {
  return principal.kind === 'session' ? principal.user.id : null;
}

export function validationFailed(path: string, code: string, message: string): AppError {
  return new AppError('validation_failed', message, { issues: [{ path, code, message }] });
}
