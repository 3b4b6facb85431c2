import { findCompany, insertCompany, listCompanies } from '../../db/repositories/companies.ts';
import { setSessionCompanyContext } from '../../db/repositories/sessions.ts';
import { recordEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import { decodeCursor, page } from '../pagination.ts';
import { plainText } from '../plain-text.ts';
import { requireWorkspaceAdmin } from './access.ts';
import type { Principal } from './principal.ts';

export const COMPANY_NAME_MAX = 200;

export type CompanyView = { id: string; name: string; createdAt: string };

const view = (c: { id: string; name: string; createdAt: Date }): CompanyView => ({
  id: c.id,
  name: c.name,
  createdAt: c.createdAt.toISOString(),
});

export async function listPlatformCompanies(
  ctx: AppContext,
  principal: Principal,
  platformId: string,
  cursor: string | undefined,
  limit = 100,
) {
  requireWorkspaceAdmin(principal, platformId);
  const rows = await listCompanies(ctx.db, { platformId }, decodeCursor(cursor), limit + 1);
  const result = page(rows, limit);
  return { items: result.items.map(view), nextCursor: result.nextCursor };
}

export async function createCompany(ctx: AppContext, principal: Principal, platformId: string, name: string) {
  const session = requireWorkspaceAdmin(principal, platformId);
  const trimmed = plainText(name, 'name', COMPANY_NAME_MAX);
  const company = await ctx.db.transaction(async (tx) => {
    const created = await insertCompany(tx, {
      id: ctx.ids.next('comp'),
      platformId,
      name: trimmed,
      createdAt: ctx.clock.now(),
    });
    await recordEvent(ctx, tx, {
      platformId,
      companyId: created.id,
      type: 'company.created',
      message: `company ${created.id} created`,
      actorUserId: session.user.id,
      metadata: { name: trimmed },
    });
    return created;
  });
  return { company: view(company) };
}

/** A workspace admin enters a company to act as its admin; the context lives on the session. */
export async function enterCompanyContext(ctx: AppContext, principal: Principal, companyId: string) {
  const session = requireWorkspaceAdmin(principal, principal.platformId);
  const company = await findCompany(ctx.db, { platformId: session.platformId }, companyId);
  if (!company) throw new AppError('not_found', 'company not found in this platform');
  await setSessionCompanyContext(ctx.db, { platformId: session.platformId }, session.sessionId, company.id);
  return { ok: true };
}

export async function leaveCompanyContext(ctx: AppContext, principal: Principal) {
  const session = requireWorkspaceAdmin(principal, principal.platformId);
  await setSessionCompanyContext(ctx.db, { platformId: session.platformId }, session.sessionId, null);
  return { ok: true };
}
