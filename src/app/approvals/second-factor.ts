import type { Executor } from '../../db/executor.ts';
import { findTwoFactor } from '../../db/repositories/two-factor.ts';
import type { AppContext } from '../context.ts';
import type { CodeVerdict } from '../identity/code-limits.ts';
import { verdictOf, verifyUserSecondFactor } from '../identity/two-factor.ts';

/** Whether the user has 2FA enabled (canApprove under a policy with twoFactorRequired). */
export async function hasSecondFactor(q: Executor, platformId: string, userId: string): Promise<boolean> {
  const enrolment = await findTwoFactor(q, { platformId }, userId);
  return Boolean(enrolment?.enabledAt);
}

/**
 * Checks the TOTP code sent with an approval and spends it in the decision's transaction, so a code
 * is used up only if the decision commits, and never accepted twice. Recovery codes are for signing
 * in, not for approving payments. What the code was is told to `verdict` (the wrong-code limits).
 */
export async function secondFactorVerified(
  ctx: AppContext,
  tx: Executor,
  platformId: string,
  userId: string,
  code: string | undefined,
  verdict: (v: CodeVerdict) => void,
): Promise<boolean> {
  const outcome = await verifyUserSecondFactor(ctx, tx, { platformId }, userId, code ?? null);
  verdict(verdictOf(outcome));
  return outcome.ok;
}
