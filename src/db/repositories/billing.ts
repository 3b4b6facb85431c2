import { sql } from 'drizzle-orm';
import type { CompanyScope, Executor } from '../executor.ts';

/** The billing state the production submit gates read (contract: Errors, Limits). */
export type BillingState = {
  activePackage: boolean;
  productionPaymentsSent: number;
  pastDueSince: Date | null;
};

/**
 * The company's billing row, created with defaults when missing and locked until the caller's
 * transaction ends, so two production submits at once cannot both pass the last free slot.
 * Undefined when the company is not in the scope's platform.
 */
export async function lockBilling(tx: Executor, scope: CompanyScope, now: Date): Promise<BillingState | undefined> {
  const result = await tx.execute<{
    active_package: boolean;
    production_payments_sent: number;
    past_due_since: string | Date | null;
  }>(sql`
    INSERT INTO company_billing (company_id, updated_at)
    SELECT id, ${now.toISOString()}::timestamptz FROM companies
     WHERE id = ${scope.companyId} AND platform_id = ${scope.platformId}
    ON CONFLICT (company_id) DO UPDATE SET updated_at = company_billing.updated_at
    RETURNING active_package, production_payments_sent, past_due_since`);
  const row = result.rows[0];
  if (!row) return undefined;
  return {
    activePackage: row.active_package,
    productionPaymentsSent: Number(row.production_payments_sent),
    pastDueSince: row.past_due_since === null ? null : new Date(row.past_due_since),
  };
}

/** Counts journaled production payments (the row is already locked by lockBilling). */
export async function addProductionPayments(
  tx: Executor,
  scope: CompanyScope,
  count: number,
  now: Date,
): Promise<void> {
  await tx.execute(sql`
    UPDATE company_billing SET production_payments_sent = production_payments_sent + ${count},
           updated_at = ${now.toISOString()}::timestamptz
     WHERE company_id = ${scope.companyId}
       AND EXISTS (SELECT 1 FROM companies WHERE id = ${scope.companyId} AND platform_id = ${scope.platformId})`);
}

/** Sets billing fields (billing administration and tests). */
export async function setBilling(
  q: Executor,
  scope: CompanyScope,
  patch: { activePackage?: boolean; productionPaymentsSent?: number; pastDueSince?: Date | null },
  now: Date,
): Promise<void> {
  await lockBilling(q, scope, now);
  const sets = [sql`updated_at = ${now.toISOString()}::timestamptz`];
  if (patch.activePackage !== undefined) sets.push(sql`active_package = ${patch.activePackage}`);
  if (patch.productionPaymentsSent !== undefined)
    sets.push(sql`production_payments_sent = ${patch.productionPaymentsSent}`);
  if (patch.pastDueSince !== undefined)
    sets.push(
      sql`past_due_since = ${patch.pastDueSince === null ? null : patch.pastDueSince.toISOString()}::timestamptz`,
    );
  await q.execute(sql`
    UPDATE company_billing SET ${sql.join(sets, sql`, `)}
     WHERE company_id = ${scope.companyId}
       AND EXISTS (SELECT 1 FROM companies WHERE id = ${scope.companyId} AND platform_id = ${scope.platformId})`);
}

export type BillingStatusRow = BillingState & { packageId: string | null };

/** The company's billing state as it stands (defaults when no row was written yet). */
export async function readBilling(q: Executor, scope: CompanyScope): Promise<BillingStatusRow> {
  const result = await q.execute<{
    active_package: boolean;
    package_id: string | null;
    production_payments_sent: number;
    past_due_since: string | Date | null;
  }>(sql`
    SELECT b.active_package, b.package_id, b.production_payments_sent, b.past_due_since
      FROM company_billing b JOIN companies c ON c.id = b.company_id
     WHERE b.company_id = ${scope.companyId} AND c.platform_id = ${scope.platformId}`);
  const row = result.rows[0];
  if (!row) return { activePackage: false, packageId: null, productionPaymentsSent: 0, pastDueSince: null };
  return {
    activePackage: row.active_package,
    packageId: row.package_id,
    productionPaymentsSent: Number(row.production_payments_sent),
    pastDueSince: row.past_due_since === null ? null : new Date(row.past_due_since),
  };
}

/** The operator's package activation (`cli billing activate`): the package is active from now on. */
export async function activatePackage(
  q: Executor,
  scope: CompanyScope,
  pkg: { id: string; name: string },
  now: Date,
): Promise<void> {
  await lockBilling(q, scope, now);
  await q.execute(sql`
    UPDATE company_billing SET active_package = true, package_id = ${pkg.id}, package_name = ${pkg.name},
           updated_at = ${now.toISOString()}::timestamptz
     WHERE company_id = ${scope.companyId}
       AND EXISTS (SELECT 1 FROM companies WHERE id = ${scope.companyId} AND platform_id = ${scope.platformId})`);
}
