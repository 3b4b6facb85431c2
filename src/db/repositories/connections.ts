import { and, asc, eq, inArray, isNotNull, lte } from 'drizzle-orm';
import type { ConnectionStatus } from '../../domain/lifecycle/index.ts';
import type { CompanyScope, Executor } from '../executor.ts';
import { connectionFiles, connections } from '../schema/index.ts';
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

export type ConnectionPatch = Partial<
  Omit<typeof connections.$inferInsert, 'id' | 'platformId' | 'companyId' | 'status'>
>;

/**
 * Changes a connection of the company (certificates, settings ...); answers the row after. A status
 * change names the status it moves from, and nothing changes when the row has another (a racing
 * writer moved it first): the answer is then undefined.
 */
export async function updateConnection(
  q: Executor,
  scope: CompanyScope,
  connectionId: string,
  patch: ConnectionPatch,
  move?: { from: ConnectionStatus; to: ConnectionStatus },
): Promise<ConnectionRow | undefined> {
  const rows = await q
    .update(connections)
    .set(move ? { ...patch, status: move.to } : patch)
    .where(
      and(
        inCompany(connections, scope),
        eq(connections.id, connectionId),
        ...(move ? [eq(connections.status, move.from)] : []),
      ),
    )
    .returning();
  return rows[0];
}

/** The company's connections to one bank (both environments), for the per-company bank settings. */
export async function listBankConnections(q: Executor, scope: CompanyScope, bankKey: string): Promise<ConnectionRow[]> {
  return q
    .select()
    .from(connections)
    .where(and(inCompany(connections, scope), eq(connections.bankKey, bankKey)))
    .orderBy(asc(connections.environment));
}

/** Active connections whose own certificate expires by `before`, across all tenants: the renewal job's work list. */
export async function listCertificatesExpiringBy(q: Executor, before: Date): Promise<ConnectionRow[]> {
  return q
    .select()
    .from(connections)
    .where(
      and(
        eq(connections.status, 'active'),
        isNotNull(connections.clientCertPem),
        lte(connections.clientCertExpiry, before),
      ),
    )
    .orderBy(asc(connections.clientCertExpiry));
}

/** Which of these bank file references the connection has taken already. */
export async function knownFileReferences(
  q: Executor,
  scope: CompanyScope,
  connectionId: string,
  references: string[],
): Promise<Set<string>> {
  if (references.length === 0) return new Set();
  const rows = await q
    .select({ ref: connectionFiles.fileReference })
    .from(connectionFiles)
    .where(
      and(
        inCompany(connectionFiles, scope),
        eq(connectionFiles.connectionId, connectionId),
        inArray(connectionFiles.fileReference, references),
      ),
    );
  return new Set(rows.map((r) => r.ref));
}

/** Records a bank file as taken; false when it was recorded already (another worker took it). */
export async function recordConnectionFile(q: Executor, row: typeof connectionFiles.$inferInsert): Promise<boolean> {
  const rows = await q
    .insert(connectionFiles)
    .values(row)
    .onConflictDoNothing()
    .returning({ ref: connectionFiles.fileReference });
  return rows.length > 0;
}
