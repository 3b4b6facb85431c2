import type { Executor } from '../../db/executor.ts';
import { activatePackage, setBilling } from '../../db/repositories/billing.ts';
import { findCompanyPlatform } from '../../db/repositories/companies.ts';
import { findPackage, PACKAGES } from '../../domain/billing/packages.ts';
import { recordEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';

type CommandResult = { stdout?: string; stderr?: string; exitCode: number };
type BillingCliContext = Pick<AppContext, 'db' | 'clock' | 'ids'>;

const USAGE = `usage: cli billing activate <companyId> <packageId>
       cli billing past-due <companyId> <YYYY-MM-DD>
       cli billing paid <companyId>
`;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The operator's billing commands (DESIGN.md, Billing): billing is changed offline, never over the
 * API. Each change is an audit event of the company (actor: the operator, no user).
 */
export async function billingCommand(ctx: BillingCliContext, args: string[]): Promise<CommandResult> {
  const [action, companyId, value, ...rest] = args;
  if (!action || !companyId || rest.length > 0) return { stderr: USAGE, exitCode: 2 };
  const platformId = await findCompanyPlatform(ctx.db, companyId);
  if (platformId === undefined) return { stderr: `unknown company ${companyId}\n`, exitCode: 2 };
  const scope = { platformId, companyId };
  const now = ctx.clock.now();
  const audit = (tx: Executor, type: string, message: string, metadata: Record<string, unknown>) =>
    recordEvent(ctx, tx, {
      platformId,
      companyId,
      type,
      message,
      actorUserId: null,
      metadata: { ...metadata, by: 'operator' },
    });

  if (action === 'activate' && value) {
    const pkg = findPackage(value);
    if (!pkg)
      return { stderr: `unknown package ${value}; one of ${PACKAGES.map((p) => p.id).join(', ')}\n`, exitCode: 2 };
    await ctx.db.transaction(async (tx) => {
      await activatePackage(tx, scope, pkg, now);
      await audit(tx, 'billing.package_activated', `package ${pkg.id} activated`, { packageId: pkg.id });
    });
    return { stdout: `package ${pkg.id} active for ${companyId}\n`, exitCode: 0 };
  }
  if (action === 'past-due' && value) {
    const since = DATE.test(value) ? new Date(`${value}T00:00:00.000Z`) : undefined;
    if (!since || Number.isNaN(since.getTime()) || since.toISOString().slice(0, 10) !== value) {
      return { stderr: `invalid date ${value}; expected YYYY-MM-DD\n`, exitCode: 2 };
    }
    await ctx.db.transaction(async (tx) => {
      await setBilling(tx, scope, { pastDueSince: since }, now);
      await audit(tx, 'billing.past_due', `an invoice is past due since ${value}`, {
        pastDueSince: since.toISOString(),
      });
    });
    return { stdout: `${companyId} past due since ${value}\n`, exitCode: 0 };
  }
  if (action === 'paid' && value === undefined) {
    await ctx.db.transaction(async (tx) => {
      await setBilling(tx, scope, { pastDueSince: null }, now);
      await audit(tx, 'billing.paid', 'past-due invoices paid', {});
    });
    return { stdout: `${companyId} has no past-due invoice\n`, exitCode: 0 };
  }
  return { stderr: USAGE, exitCode: 2 };
}
