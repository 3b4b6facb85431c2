import { recordEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import {
  CODE_FAILURES_PER_SESSION,
  CODE_FAILURES_PER_USER,
  clearCount,
  countFailure,
  enforce,
  forgiveOne,
  type Limit,
  LOGIN_CODE_FAILURES_PER_IP,
  refuseAtLimit,
} from '../rate-limits.ts';

/**
 * Who answers a second-factor code: the user, the session of a step-up (approve, 2FA disable,
 * recovery codes, enable), the address of a sign-in. `route` names the check in the lock's audit event.
 */
export type CodeSubject = {
  platformId: string;
  companyId: string | null;
  userId: string;
  sessionId?: string;
  ip?: string;
  route: string;
};

/** What the guarded work tells about the code: right, wrong, or never checked (refused earlier, not enrolled). */
export type CodeVerdict = 'right' | 'wrong' | 'unchecked';

type Counted = { limit: Limit; subject: string; hits: number; resetAt: Date };

/**
 * Runs `work` under the wrong-code limits (ADR 0057): a hit is counted per session and per user
 * before the code is looked at (so attempts at once cannot pass together), and 429 with Retry-After
 * answers once either holds its maximum of wrong codes. A right code clears both counts (its holder
 * has the authenticator); a code not checked gives its hits back. Per address (sign-in only) wrong codes alone count. The wrong code that fills a
 * limit locks it for the rest of its window and is an audit event. `work` reports what it found with
 * `verdict`; work that throws before reporting leaves the code unchecked.
 */
export async function withCodeLimits<T>(
  ctx: AppContext,
  who: CodeSubject,
  work: (verdict: (v: CodeVerdict) => void) => Promise<T>,
): Promise<T> {
  if (who.ip !== undefined) await refuseAtLimit(ctx, LOGIN_CODE_FAILURES_PER_IP, who.ip);
  const counted: Counted[] = [];
  const giveBack = () => Promise.all(counted.map((c) => forgiveOne(ctx, c.limit, c.subject)));
  const limits: [Limit, string][] = [];
  if (who.sessionId !== undefined) limits.push([CODE_FAILURES_PER_SESSION, who.sessionId]);
  limits.push([CODE_FAILURES_PER_USER, who.userId]);
  for (const [limit, subject] of limits) {
    try {
      const count = await enforce(ctx, limit, subject);
      counted.push({ limit, subject, hits: count.hits, resetAt: count.resetAt });
    } catch (error) {
      // Refused before the code is read: the refused hit is given back too, so a lock ends with its window.
      await giveBack();
      await forgiveOne(ctx, limit, subject);
      throw error;
    }
  }
  const found: { verdict: CodeVerdict } = { verdict: 'unchecked' };
  try {
    return await work((v) => {
      found.verdict = v;
    });
  } finally {
    if (found.verdict === 'wrong') await settleWrong(ctx, who, counted);
    else if (found.verdict === 'right') await Promise.all(counted.map((c) => clearCount(ctx, c.limit, c.subject)));
    else await giveBack();
  }
}

async function settleWrong(ctx: AppContext, who: CodeSubject, counted: Counted[]): Promise<void> {
  if (who.ip !== undefined) await countFailure(ctx, LOGIN_CODE_FAILURES_PER_IP, who.ip);
  const locked = counted.filter((c) => c.hits === c.limit.max);
  if (locked.length === 0) return;
  await ctx.db.transaction(async (tx) => {
    for (const c of locked) {
      const per = c.limit === CODE_FAILURES_PER_SESSION ? 'session' : 'user';
      await recordEvent(ctx, tx, {
        platformId: who.platformId,
        companyId: who.companyId,
        type: 'user.2fa_locked',
        message: `second-factor codes of user ${who.userId} locked per ${per} after ${c.limit.max} wrong codes (${who.route})`,
        actorUserId: who.userId,
        metadata: {
          userId: who.userId,
          per,
          ...(per === 'session' ? { sessionId: who.sessionId } : {}),
          route: who.route,
          wrongCodes: c.limit.max,
          lockedUntil: c.resetAt.toISOString(),
        },
      });
    }
  });
}
