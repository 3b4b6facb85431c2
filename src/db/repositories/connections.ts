import { and, asc, eq, isNotNull } from 'drizzle-orm';
import type { CompanyScope, Executor } from '../executor.ts';
import { connections } from '../schema/index.ts';
import { inCompany } from '../tenant.ts';

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

export async function findConnection(
  q: Executor,
  scope: CompanyScope,
  connectionId: string,
): Promise<ConnectionRow | undefined> {
  const rows = await q
    .select()
    .from(connections)
    .where(and(inCompany(connections, scope), eq(connections.id, connectionId)))
    .limit(1);
  return rows[0];
}

/** Creates the company's connection to a bank in an environment, or returns the one it has. */
export async function upsertConnection(q: Executor, row: typeof connections.$inferInsert): Promise<ConnectionRow> {
  await q.insert(connections).values(row).onConflictDoNothing();
  const rows = await q
    .select()
    .from(connections)
    .where(
      and(
        eq(connections.platformId, row.platformId),
        eq(connections.companyId, row.companyId),
        eq(connections.bankKey, row.bankKey),
        eq(connections.environment, row.environment),
      ),
    )
    .limit(1);
  return rows[0]!;
}

/** The company's connection to a bank in one environment. */
export async function findConnectionFor(
  q: Executor,
  scope: CompanyScope,
  bankKey: string,
  environment: string,
): Promise<ConnectionRow | undefined> {
  const rows = await q
    .select()
    .from(connections)
    .where(
      and(inCompany(connections, scope), eq(connections.bankKey, bankKey), eq(connections.environment, environment)),
    )
    .limit(1);
  return rows[0];
}

/** Active connections that have a channel of their own to poll (SFTP ...), across all tenants: the pickup job's work list. */
export async function listPollableConnections(q: Executor): Promise<ConnectionRow[]> {
  return q
    .select()
    .from(connections)
    .where(and(eq(connections.status, 'active'), isNotNull(connections.channelSealed)))
    .orderBy(asc(connections.id));
}

export async function setConnectionSigningCert(
  q: Executor,
  scope: CompanyScope,
  connectionId: string,
  cert: { sealed: string; subject: string; expiry: Date },
): Promise<void> {
  await q
    .update(connections)
    .set({ signingCertSealed: cert.sealed, signingCertSubject: cert.subject, signingCertExpiry: cert.expiry })
    .where(and(inCompany(connections, scope), eq(connections.id, connectionId)));
}
