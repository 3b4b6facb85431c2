import { countHit, deleteExpiredCounters, uncountHit } from '../db/repositories/rate-limits.ts';
import { sha256Hex } from '../platform/secrets.ts';
import type { AppContext } from './context.ts';
import { AppError } from './errors.ts';

/**
 * Rate limits counted in PostgreSQL, so they hold across every API process of a deployment
 * (DESIGN.md, Identity; docs/adr/0016). A limit is a name, a window and a maximum; what it counts
 * (an address, an account) is part of the key. Values that are personal data (emails) are keyed by digest.
 */
export type Limit = { name: string; max: number; windowMs: number };

const FIFTEEN_MINUTES = 15 * 60 * 1000;
/** Login attempts from one address, whatever the emails: a password spray from one host stops here. */
export const LOGIN_PER_IP: Limit = { name: 'login-ip', max: 30, windowMs: FIFTEEN_MINUTES };
/** Failed logins of one account, from any address: a distributed guess at one password stops here. */
export const LOGIN_FAILURES_PER_ACCOUNT: Limit = { name: 'login-account', max: 10, windowMs: FIFTEEN_MINUTES };
/** Second-step codes (TOTP or recovery) from one address. */
export const LOGIN_CODES_PER_IP: Limit = { name: 'login-2fa-ip', max: 30, windowMs: FIFTEEN_MINUTES };
/** Invite and reset tokens tried from one address (contract: set-password is limited per IP). */
export const SET_PASSWORD_PER_IP: Limit = { name: 'set-password-ip', max: 10, windowMs: FIFTEEN_MINUTES };
/** Current-password checks of one user (change-password with a stolen session cannot guess freely). */
export const PASSWORD_CHECKS_PER_USER: Limit = { name: 'password-check-user', max: 10, windowMs: FIFTEEN_MINUTES };

// One counting call in this many also sweeps a few ended windows, so the table stays small without a job.
const SWEEP_EVERY = 200;
let calls = 0;

export function limitKey(limit: Limit, subject: string): string {
  return `${limit.name}:${subject}`;
}

/** An email as a counter subject: its digest, so the counters hold no addresses. */
export function accountSubject(email: string): string {
  return sha256Hex(email.trim().toLowerCase());
}

export function rateLimited(resetAt: Date, now: Date): AppError {
  const seconds = Math.max(1, Math.ceil((resetAt.getTime() - now.getTime()) / 1000));
  return new AppError(
    429,
    'rate_limited',
    `too many requests; retry after ${seconds} s`,
    { retryAfterSeconds: seconds },
    { 'retry-after': String(seconds) },
  );
}

/** Counts a hit (in the current window) and answers the window's count: for callers that decide themselves. */
export async function hit(ctx: AppContext, key: string, windowMs: number) {
  const now = ctx.clock.now();
  if (++calls % SWEEP_EVERY === 0) {
    deleteExpiredCounters(ctx.db, now, 500).catch((err: unknown) =>
      ctx.logger.warn({ err }, 'could not sweep rate-limit counters'),
    );
  }
  return countHit(ctx.db, key, windowMs, now);
}

/** Counts a hit and throws 429 (with Retry-After) once the window holds more than `max`. */
export async function enforce(ctx: AppContext, limit: Limit, subject: string): Promise<void> {
  const count = await hit(ctx, limitKey(limit, subject), limit.windowMs);
  if (count.hits > limit.max) throw rateLimited(count.resetAt, ctx.clock.now());
}

export async function forgiveOne(ctx: AppContext, limit: Limit, subject: string): Promise<void> {
  await uncountHit(ctx.db, limitKey(limit, subject), ctx.clock.now());
}
