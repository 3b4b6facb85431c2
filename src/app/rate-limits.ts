import {
  countHit,
  deleteCounter,
  deleteExpiredCounters,
  peekHits,
  uncountHit,
  type WindowCount,
} from '../db/repositories/rate-limits.ts';
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
/**
 * Sign-in attempts of one email from one address (DESIGN: 10 per 15 minutes per address and email).
 * Counted before the password is checked; the right password gives its hit back.
 */
export const LOGIN_PER_IP_AND_ACCOUNT: Limit = { name: 'login-ip-account', max: 10, windowMs: FIFTEEN_MINUTES };
/**
 * Failed sign-ins from one address, whatever the emails: a password spray stops here, while an office
 * behind one NAT (whose successes never count) does not reach it (ADR 0057).
 */
export const LOGIN_FAILURES_PER_IP: Limit = { name: 'login-failures-ip', max: 50, windowMs: FIFTEEN_MINUTES };
/** Failed sign-ins of one account from any address: past this the account is slowed (ADR 0057). */
export const LOGIN_FAILURES_PER_ACCOUNT: Limit = { name: 'login-account', max: 10, windowMs: FIFTEEN_MINUTES };
/** A slowed account takes one password check a minute, except the owner's right password with 2FA. */
export const LOGIN_SLOWED_ACCOUNT: Limit = { name: 'login-account-slowed', max: 1, windowMs: 60 * 1000 };
/** Wrong second-factor codes from one address at sign-in. */
export const LOGIN_CODE_FAILURES_PER_IP: Limit = { name: 'login-2fa-ip', max: 30, windowMs: FIFTEEN_MINUTES };
/**
 * Wrong second-factor codes (TOTP or recovery) of one user, at sign-in and at every step-up, from any
 * session or challenge: the cap per 15 minutes that keeps a 6-digit code out of reach (ADR 0057).
 */
export const CODE_FAILURES_PER_USER: Limit = { name: '2fa-user', max: 10, windowMs: FIFTEEN_MINUTES };
/** Wrong codes on one session's step-ups: 5, as a sign-in challenge is void after 5 (DESIGN). */
export const CODE_FAILURES_PER_SESSION: Limit = { name: '2fa-session', max: 5, windowMs: FIFTEEN_MINUTES };
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

/**
 * Counts a hit and throws 429 (with Retry-After) once the window holds more than `max`; answers the
 * window's count. Counting first keeps concurrent attempts from slipping past together.
 */
export async function enforce(ctx: AppContext, limit: Limit, subject: string): Promise<WindowCount> {
  const count = await hit(ctx, limitKey(limit, subject), limit.windowMs);
  if (count.hits > limit.max) throw rateLimited(count.resetAt, ctx.clock.now());
  return count;
}

/**
 * For limits that count failures only (so successes never count): throws 429 when the window already
 * holds `max` hits, without counting; the caller counts a failure with `countFailure`. Attempts in
 * flight at once can pass together, so such a limit may be passed by the concurrency of one client.
 */
export async function refuseAtLimit(ctx: AppContext, limit: Limit, subject: string): Promise<WindowCount> {
  const count = await peek(ctx, limit, subject);
  if (count.hits >= limit.max) throw rateLimited(count.resetAt, ctx.clock.now());
  return count;
}

/** The window's count without counting a hit. */
export async function peek(ctx: AppContext, limit: Limit, subject: string): Promise<WindowCount> {
  return peekHits(ctx.db, limitKey(limit, subject), ctx.clock.now());
}

export async function countFailure(ctx: AppContext, limit: Limit, subject: string): Promise<WindowCount> {
  return hit(ctx, limitKey(limit, subject), limit.windowMs);
}

/** Forgets the window's hits altogether. */
export async function clearCount(ctx: AppContext, limit: Limit, subject: string): Promise<void> {
  await deleteCounter(ctx.db, limitKey(limit, subject));
}

export async function forgiveOne(ctx: AppContext, limit: Limit, subject: string): Promise<void> {
  await uncountHit(ctx.db, limitKey(limit, subject), ctx.clock.now());
}
