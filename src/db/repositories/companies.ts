import { and, asc, eq, gt } from 'drizzle-orm';
import type { Executor, PlatformScope } from '../executor.ts';
import { companies } from '../schema/index.ts';

export type CompanyRow = typeof companies.$inferSelect;

export async function insertCompany(q: Executor, row: typeof companies.$inferInsert): Promise<CompanyRow> {
  const [created] = await q.insert(companies).values(row).returning();
  return created!;
}

export async function findCompany(
  q: Executor,
  scope: PlatformScope,
  companyId: string,
): Promise<CompanyRow | undefined> {
  const rows = await q
    .select()
    .from(companies)
    .where(and(eq(companies.platformId, scope.platformId), eq(companies.id, companyId)))
    .limit(1);
  return rows[0];
}

/** Keyset page in id (creation) order. */
export async function listCompanies(
  q: Executor,
  scope: PlatformScope,
  after: string | undefined,
  limit: number,
): Promise<CompanyRow[]> {
  return q
    .select()
    .from(companies)
    .where(and(eq(companies.platformId, scope.platformId), after ? gt(companies.id, after) : undefined))
    .orderBy(asc(companies.id))
    .limit(limit);
}

/**
 * The platform a company belongs to, or undefined when no such company exists: an authorisation
 * lookup only (403 for another platform's company, 404 for an unknown one); no company data.
 */
export async function findCompanyPlatform(q: Executor, companyId: string): Promise<string | undefined> {
  const rows = await q
    .select({ platformId: companies.platformId })
    .from(companies)
    .where(eq(companies.id, companyId))
    .limit(1);
  return rows[0]?.platformId;
}
