import type { Executor } from '../../db/executor.ts';
import { addProductionPayments, lockBilling } from '../../db/repositories/billing.ts';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';

/** Contract Limits: 10 free lifetime production payments; 30 or more days past due blocks. */
export const FREE_PRODUCTION_PAYMENTS = 10;
export const PAST_DUE_GRACE_DAYS = 30;
const DAY_MS = 86_400_000;

/**
 * The production submit gates, run inside the submit transaction (never for test submits, never for
 * preview). The billing row stays locked until commit, so the check and the count are atomic: two
 * submits at the ninth payment cannot both take the tenth slot. One submitted document counts as one
 * production payment, whatever its number of transactions (a salary batch is one payment order).
 */
export async function passBillingGates(
  ctx: AppContext,
  tx: Executor,
  scope: { platformId: string; companyId: string },
): Promise<void> {
  const now = ctx.clock.now();
  const billing = await lockBilling(tx, scope, now);
  if (!billing) throw new AppError('not_found', 'company not found');
  if (billing.pastDueSince && now.getTime() - billing.pastDueSince.getTime() >= PAST_DUE_GRACE_DAYS * DAY_MS) {
    throw new AppError('billing_past_due', 'an invoice is 30 or more days past due; production submits are paused', {
      pastDueSince: billing.pastDueSince.toISOString(),
      graceDays: PAST_DUE_GRACE_DAYS,
    });
  }
  if (!billing.activePackage && billing.productionPaymentsSent >= FREE_PRODUCTION_PAYMENTS) {
    throw new AppError(
      'trial_payments_exhausted',
      `the ${FREE_PRODUCTION_PAYMENTS} free production payments are used; choose a package to continue`,
      {
        productionPaymentsSent: billing.productionPaymentsSent,
        freeLimit: FREE_PRODUCTION_PAYMENTS,
        packagesUrl: `${ctx.config.publicBaseUrl}/billing/packages`,
      },
    );
  }
  await addProductionPayments(tx, scope, 1, now);
}
