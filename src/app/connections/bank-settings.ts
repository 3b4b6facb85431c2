import { listBankConnections, updateConnection } from '../../db/repositories/connections.ts';
import { getProfile } from '../../domain/conversion/index.ts';
import { recordEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import { AppError, notFound } from '../errors.ts';
import { requireCompanyAdmin, requireCompanyMember } from '../identity/access.ts';
import type { Principal } from '../identity/principal.ts';

/**
 * The per-company bank settings applied on the delivery path (POST /journal/payments): the charge
 * bearer and the execution-date offset (DESIGN.md). They belong to the company and the bank, so they
 * are kept on the company's connections to the bank, test and production alike (the submit reads them
 * with the connection); the bank needs a connection first.
 */
export type BankSettings = {
  chargeBearer: 'SLEV' | 'SHAR' | 'DEBT' | 'CRED' | null;
  executionDateOffsetDays: number | null;
};

type Stored = { chargeBearer?: string; executionDateOffsetDays?: number };

function viewOf(bankKey: string, stored: Stored | null, environments: string[]) {
  return {
    bankKey,
    chargeBearer: (stored?.chargeBearer ?? null) as BankSettings['chargeBearer'],
    executionDateOffsetDays: stored?.executionDateOffsetDays ?? null,
    environments,
  };
}

export async function getBankSettings(
  ctx: AppContext,
  principal: Principal,
  input: { platformId: string; companyId: string; bankKey: string },
) {
  requireCompanyMember(principal, input.platformId, input.companyId);
  if (!getProfile(input.bankKey)) throw notFound('bank');
  const rows = await listBankConnections(ctx.db, input, input.bankKey);
  // Both environments carry the same settings (PUT writes them together); production's are the reference.
  const reference = rows.find((r) => r.environment === 'production') ?? rows[0];
  return viewOf(
    input.bankKey,
    reference?.settings ?? null,
    rows.map((r) => r.environment),
  );
}

export async function putBankSettings(
  ctx: AppContext,
  principal: Principal,
  input: { platformId: string; companyId: string; bankKey: string } & Partial<BankSettings>,
) {
  const session = requireCompanyAdmin(principal, input.platformId, input.companyId);
  const profile = getProfile(input.bankKey);
  if (!profile) throw notFound('bank');
  const scope = { platformId: input.platformId, companyId: input.companyId };
  return ctx.db.transaction(async (tx) => {
    const rows = await listBankConnections(tx, scope, input.bankKey);
    if (rows.length === 0) {
      throw new AppError(
        'connection_not_found',
        `the company has no connection to ${input.bankKey}; create one first`,
        {
          bankKey: input.bankKey,
        },
      );
    }
    const current: Stored = rows.find((r) => r.environment === 'production')?.settings ?? rows[0]?.settings ?? {};
    const next: Stored = { ...current };
    if (input.chargeBearer !== undefined) {
      if (input.chargeBearer === null) delete next.chargeBearer;
      else next.chargeBearer = input.chargeBearer;
    }
    if (input.executionDateOffsetDays !== undefined) {
      if (input.executionDateOffsetDays === null) delete next.executionDateOffsetDays;
      else next.executionDateOffsetDays = input.executionDateOffsetDays;
    }
    for (const row of rows) await updateConnection(tx, scope, row.id, { settings: next });
    await recordEvent(ctx, tx, {
      platformId: scope.platformId,
      companyId: scope.companyId,
      type: 'bank.settings_updated',
      message: `bank settings for ${input.bankKey} updated: ${JSON.stringify(next)}`,
      actorUserId: session.user.id,
      metadata: { bankKey: input.bankKey, settings: next, environments: rows.map((r) => r.environment) },
      bankKey: input.bankKey,
    });
    return viewOf(
      input.bankKey,
      next,
      rows.map((r) => r.environment),
    );
  });
}
