import { findCompany } from '../../db/repositories/companies.ts';
import {
  findConnection,
  findConnectionFor,
  listConnections,
  upsertConnection,
} from '../../db/repositories/connections.ts';
import { webServicesProfile } from '../../domain/banks/connectivity.ts';
import { getProfile } from '../../domain/conversion/index.ts';
import { recordEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import { AppError, badRequest, notFound } from '../errors.ts';
import { requireCompanyAdmin, requireCompanyAdminOrToken } from '../identity/access.ts';
import type { Principal } from '../identity/principal.ts';
import { initialStatus } from './status.ts';
import { connectionView } from './view.ts';

export const ENVIRONMENTS = ['test', 'production'] as const;

export async function listCompanyConnections(
  ctx: AppContext,
  principal: Principal,
  platformId: string,
  companyId: string,
) {
  requireCompanyAdminOrToken(principal, platformId, companyId);
  const rows = await listConnections(ctx.db, { platformId, companyId });
  return { items: await Promise.all(rows.map((row) => connectionView(ctx, row))) };
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
  return connectionView(ctx, row);
}

/**
 * Companies made by /sandbox/provision are sandbox-only (DESIGN.md, Identity): no real money may move
 * from them, so a production connection is refused with 403 sandbox_only.
 */
async function refuseSandboxOnly(ctx: AppContext, scope: { platformId: string; companyId: string }) {
  const company = await findCompany(ctx.db, { platformId: scope.platformId }, scope.companyId);
  if (!company) throw notFound('company');
  if (company.sandboxOnly) {
    throw new AppError(
      'sandbox_only',
      'this company is sandbox-only: production connections are refused; use the test environment',
    );
  }
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
  if (environment === 'production') await refuseSandboxOnly(ctx, input);
  const existing = await findConnectionFor(ctx.db, input, profile.key, environment);
  if (existing) return connectionView(ctx, existing);
  const id = ctx.ids.next('conn');
  const simulated = await sandboxSimulation(ctx, input, profile.key, environment);
  const row = await ctx.db.transaction(async (tx) => {
    const connection = await upsertConnection(tx, {
      id,
      platformId: input.platformId,
      companyId: input.companyId,
      bankKey: profile.key,
      environment,
      // A converted-only bank needs no channel; a host-to-host one waits for its activation.
      status: initialStatus(profile.deliveryMode),
      createdAt: ctx.clock.now(),
      ...(simulated ?? {}),
    });
    if (connection.id === id) {
      await recordEvent(ctx, tx, {
        platformId: input.platformId,
        companyId: input.companyId,
        type: 'connection.created',
        message: `connection ${id} to ${profile.key} (${environment}) created`,
        actorUserId: session.user.id,
        metadata: {
          connectionId: id,
          bankKey: profile.key,
          environment,
          status: connection.status,
          ...(simulated ? { simulatedBank: true } : {}),
        },
        bankKey: profile.key,
        environment,
        connectionId: id,
      });
    }
    return connection;
  });
  return connectionView(ctx, row);
}

/**
 * In a sandbox deployment, a test-environment connection to a simulated web-services bank (op,
 * nordea-fi) points at the simulator, and the simulator issues the activation a real bank would post
 * or text (transfer key, activation code): the readiness shows it, and the user activates with it.
 */
async function sandboxSimulation(
  ctx: AppContext,
  scope: { platformId: string; companyId: string },
  bankKey: string,
  environment: string,
) {
  const banks = ctx.sandboxBanks;
  const ebics = getProfile(bankKey)?.channel === 'EBICS';
  if (
    !ctx.config.sandbox ||
    environment !== 'test' ||
    !banks?.simulates(bankKey) ||
    (!webServicesProfile(bankKey) && !ebics)
  ) {
    return undefined;
  }
  const company = await findCompany(ctx.db, { platformId: scope.platformId }, scope.companyId);
  const activation = await banks.issueActivation(bankKey, { name: company?.name ?? 'Sandbox Company' });
  if (activation.family === 'C') {
    const { family: _family, ...subscriber } = activation;
    return {
      channelSealed: ctx.encryptor.encrypt(JSON.stringify({ kind: 'ebics', ...subscriber, simulator: true })),
      sandboxActivationSealed: ctx.encryptor.encrypt(JSON.stringify(subscriber)),
      ebicsState: 'new' as const,
    };
  }
  const customerId = activation.family === 'A' ? activation.userId : activation.signerId;
  return {
    channelSealed: ctx.encryptor.encrypt(JSON.stringify({ kind: 'fi-ws', customerId, simulator: true })),
    sandboxActivationSealed: ctx.encryptor.encrypt(JSON.stringify(activation)),
  };
}
