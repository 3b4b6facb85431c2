import { and, asc, eq } from 'drizzle-orm';
import type { CompanyScope, Executor } from '../executor.ts';
import { connections } from '../schema/index.ts';

export type ConnectionRow = typeof connections.$inferSelect;

export async function insertConnection(q: Executor, row: typeof connections.$inferInsert): Promise<ConnectionRow> {
  const [created] = await q.insert(connections).values(row).returning();
  return created!;
}

export async function listConnections(q: Executor, scope: CompanyScope): Promise<ConnectionRow[]> {
  return q
    .select()
    .from(connections)
    .where(and(eq(connections.platformId, scope.platformId), eq(connections.companyId, scope.companyId)))
    .orderBy(asc(connections.id));
}
