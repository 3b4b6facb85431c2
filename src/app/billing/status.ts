import { readBilling } from '../../db/repositories/billing.ts';
import { findPackage, PACKAGE_CURRENCY, PACKAGES } from '../../domain/billing/packages.ts';
import type { AppContext } from '../context.ts';
import { requireCompanyMember } from '../identity/access.ts';
import { companyScope } from '../identity/company-scope.ts';
import type { Principal } from '../identity/principal.ts';
import { FREE_PRODUCTION_PAYMENTS } from '../journal/billing-gates.ts';

/** GET /billing/packages: the public price list (the 402 body's packagesUrl points here). */
export function listPackages() {
  return { currency: PACKAGE_CURRENCY, items: PACKAGES.map((p) => ({ ...p })) };
}

/**
 * GET /billing/status: the company's package (null while on the free production payments), how many
 * production payments it sent, the free limit and since when an invoice is past due. An API key of the
 * platform, or a session of a company member.
 */
export async function billingStatus(ctx: AppContext, principal: Principal, companyId: string) {
  const scope = await companyScope(ctx, principal, companyId);
  if (principal.kind === 'session') requireCompanyMember(principal, scope.platformId, scope.companyId);
  const billing = await readBilling(ctx.db, scope);
  const pkg = billing.activePackage && billing.packageId ? findPackage(billing.packageId) : undefined;
  return {
    package: pkg ? { ...pkg } : null,
    productionPaymentsSent: billing.productionPaymentsSent,
    freeLimit: FREE_PRODUCTION_PAYMENTS,
    pastDueSince: billing.pastDueSince?.toISOString() ?? null,
  };
}
