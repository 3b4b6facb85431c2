import { and, eq, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { CompanyScope } from './executor.ts';

/**
 * The tenant condition every query on company data carries (DESIGN.md: tenancy is enforced in the
 * store): the row belongs to the scope's platform and company.
 */
export function inCompany(table: { platformId: PgColumn; companyId: PgColumn }, scope: CompanyScope): SQL {
  return and(eq(table.platformId, scope.platformId), eq(table.companyId, scope.companyId)) as SQL;
}
