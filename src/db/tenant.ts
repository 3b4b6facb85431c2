import { and, eq, type SQL, sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { CompanyScope } from './executor.ts';

/**
 * The tenant condition every query on company data carries (DESIGN.md: tenancy is enforced in the
 * store): the row belongs to the scope's platform and company.
 */
export function inCompany(table: { platformId: PgColumn; companyId: PgColumn }, scope: CompanyScope): SQL {
  return and(eq(table.platformId, scope.platformId), eq(table.companyId, scope.companyId)) as SQL;
}

/**
 * The tenant condition of a query that finds its rows by their key (a primary key, a list of ids): the
 * same check as inCompany, written so that it filters the rows the key found and never serves as the
 * way in. With `company_id = $1` the planner may read the company's rows through a company index and
 * keep those with the keys, which it does when its statistics do not know the company yet (a young
 * database, or a company that grew since the last ANALYZE: PostgreSQL then assumes 0.5 % of the
 * table): the cost grows with the company, and a set-wise update joined that way costs company rows
 * × batch (130 ms a batch of 100 at 5,000 lines). `|| ''` leaves the value alone and no index holds it
 * (docs/adr/0051). Set-wise updates carry the tenant in their row set instead (updateDocumentStatuses).
 */
export function inCompanyByKey(table: { platformId: PgColumn; companyId: PgColumn }, scope: CompanyScope): SQL {
  return sql`(${table.platformId} || '') = ${scope.platformId} AND (${table.companyId} || '') = ${scope.companyId}`;
}
