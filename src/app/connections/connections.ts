import {
  type ConnectionRow,
  findConnection,
  listConnections,
  upsertConnection,
} from '../../db/repositories/connections.ts';
import { getProfile } from '../../domain/conversion/index.ts';
import { recordEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import { badRequest, notFound } from '../errors.ts';
import { requireCompanyAdmin, requireCompanyAdminOrToken } from '../identity/access.ts';
import type { Principal } from '../identity/principal.ts';

export const ENVIRONMENTS = ['test', 'production'] as const;

/**
 * A connection with its readiness: whether payments can be delivered through it now, and what is
 * missing otherwise. Converted-only banks need no channel, so they are ready once created.
 */
function view(row: ConnectionRow) {
  const profile = getProfile(row.bankKey);
  const hostToHost = profile?.deliveryMode === 'host-to-host';
  const missing: string[] = [];
  if (hostToHost && row.status !== 'active') missing.push('activation');
  return {
    id: row.id,
    platformId: row.platformId,
    companyId: row.companyId,
    bankKey: row.bankKey,
    bankName: profile?.bankName ?? row.bankKey,
    environment: row.environment,
    status: row.status,
    deliveryMode: profile?.deliveryMode ?? 'converted-only',
    createdAt: row.createdAt.toISOString(),
    signingCertSubject: row.signingCertSubject,
    signingCertExpiry: row.signingCertExpiry?.toISOString() ?? null,
    readiness: { ready: missing.length === 0, missing },
  };
}

export async function listCompanyConnections(
  ctx: AppContext,
  principal: Principal,
  platformId: string,
  companyId: string,
) {
  requireCompanyAdminOrToken(principal, platformId, companyId);
  const rows = await listConnections(ctx.db, { platformId, companyId });
  return { items: rows.map(view) };
}

export async function getCompanyConnection(
  ctx: AppContext,
  principal: Principal,
  platformId: string,
  companyId: string,
  connectionId: string,
) {
  requireCompanyAdminOrToken(principal, platformId, companyId);
  const row = await findConnection(ctx.db, { platformId, companyId }, connectionId);
  if (!row) throw notFound('connection');
  return view(row);
}

/** Creates the connection, or returns the existing one for that bank and environment. */
export async function createConnection(
  ctx: AppContext,
  principal: Principal,
  input: { platformId: string; companyId: string; bankKey: string; environment?: string | undefined },
) {
  const session = requireCompanyAdmin(principal, input.platformId, input.companyId);
  const profile = getProfile(input.bankKey);
  if (!profile) throw notFound('bank');
  const environment = input.environment ?? 'production';
  if (!(ENVIRONMENTS as readonly string[]).includes(environment))
    throw badRequest('environment must be test or production');
  const id = ctx.ids.next('conn');
  const row = await ctx.db.transaction(async (tx) => {
    const connection = await upsertConnection(tx, {
      id,
      platformId: input.platformId,
      companyId: input.companyId,
      bankKey: profile.key,
      environment,
      // A converted-only bank needs no channel; a host-to-host one waits for its activation.
      status: profile.deliveryMode === 'host-to-host' ? 'pending-activation' : 'active',
      createdAt: ctx.clock.now(),
    });
    if (connection.id === id) {
      await recordEvent(ctx, tx, {
        platformId: input.platformId,
        companyId: input.companyId,
        type: 'connection.created',
        message: `connection ${id} to ${profile.key} (${environment}) created`,
        actorUserId: session.user.id,
        metadata: { connectionId: id, bankKey: profile.key, environment, status: connection.status },
        bankKey: profile.key,
        environment,
        connectionId: id,
      });
    }
    return connection;
  });
  return view(row);
}
