import { randomBytes } from 'node:crypto';
import { generateSecret } from 'otplib';
import type { Executor, PlatformScope } from '../../db/executor.ts';
import {
  claimTimeStep,
  countUnusedRecoveryCodes,
  deleteTwoFactor,
  findTwoFactor,
  markTwoFactorEnabled,
  putPendingTwoFactor,
  replaceRecoveryCodes,
  spendRecoveryCode,
} from '../../db/repositories/two-factor.ts';
import { acceptedTimeStep, looksLikeTotpCode, normaliseRecoveryCode, otpauthUrl } from '../../domain/identity/totp.ts';
import { sha256Hex } from '../../platform/secrets.ts';
import { recordEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import { type CodeSubject, type CodeVerdict, withCodeLimits } from './code-limits.ts';
import type { SessionPrincipal } from './principal.ts';

/**
 * TOTP second factor (DESIGN.md, Identity): setup gives a secret (sealed at rest) that stays pending
 * until a code from it enables it; enabling hands out 10 single-use recovery codes, stored only as
 * digests. Every accepted TOTP code moves the user's last time step, so a code is never accepted twice.
 */
const ISSUER = 'PayOps';
const RECOVERY_CODE_COUNT = 10;
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

export type SecondFactorOutcome =
  | { ok: true; method: 'totp' | 'recovery_code' }
  | { ok: false; reason: 'not_enrolled' | 'invalid_code' };

/**
 * Checks a user's second factor and spends it: a TOTP code of a time step not newer than the last
 * accepted one is refused (reuse), and a recovery code (only with `allowRecoveryCode`) is used up.
 * `q` may be the caller's transaction: the spend then commits or rolls back with the caller's work.
 * Answers `not_enrolled` when the user has no enabled 2FA, `invalid_code` for a missing, wrong or
 * reused code. It never throws for a bad code, so callers choose their own refusal (login: 401,
 * approvals: 403 two_factor_required).
 */
export async function verifyUserSecondFactor(
  ctx: AppContext,
  q: Executor,
  scope: PlatformScope,
  userId: string,
  code: string | null | undefined,
  options: { allowRecoveryCode?: boolean } = {},
): Promise<SecondFactorOutcome> {
  const enrolment = await findTwoFactor(q, scope, userId);
  if (!enrolment?.enabledAt) return { ok: false, reason: 'not_enrolled' };
  if (typeof code !== 'string' || code.length === 0 || code.length > 64) return { ok: false, reason: 'invalid_code' };
  if (looksLikeTotpCode(code)) {
    const step = totpStep(ctx, enrolment.secretSealed, code, enrolment.lastTimeStep);
    if (step !== null && (await claimTimeStep(q, scope, userId, step))) return { ok: true, method: 'totp' };
    return { ok: false, reason: 'invalid_code' };
  }
  if (!options.allowRecoveryCode) return { ok: false, reason: 'invalid_code' };
  const spent = await spendRecoveryCode(q, scope, userId, recoveryDigest(code), ctx.clock.now());
  return spent ? { ok: true, method: 'recovery_code' } : { ok: false, reason: 'invalid_code' };
}

/** What a verification tells the wrong-code limits: `not_enrolled` is no guess at a code. */
export function verdictOf(outcome: SecondFactorOutcome): CodeVerdict {
  if (outcome.ok) return 'right';
  return outcome.reason === 'not_enrolled' ? 'unchecked' : 'wrong';
}

/** A step-up by a signed-in user: wrong codes count per user and per session. */
export function stepUpSubject(session: SessionPrincipal, route: string): CodeSubject {
  return {
    platformId: session.platformId,
    companyId: session.user.companyId,
    userId: session.user.id,
    sessionId: session.sessionId,
    route,
  };
}

function totpStep(ctx: AppContext, secretSealed: string, code: string, lastTimeStep: number | null): number | null {
  return acceptedTimeStep(ctx.encryptor.decrypt(secretSealed), code, ctx.clock.now(), lastTimeStep);
}

function recoveryDigest(code: string): string {
  return sha256Hex(`recovery:${normaliseRecoveryCode(code)}`);
}

function newRecoveryCode(): string {
  const bytes = randomBytes(10);
  let out = '';
  for (const byte of bytes) out += RECOVERY_ALPHABET[byte % RECOVERY_ALPHABET.length];
  return `${out.slice(0, 5)}-${out.slice(5)}`;
}

const alreadyEnabled = () => new AppError('two_factor_already_enabled', '2FA is already enabled for this user');
const notEnabled = () => new AppError('two_factor_not_enabled', '2FA is not enabled for this user');
const invalidCode = () => new AppError('wrong_code', 'the code is wrong, expired or already used');

/** POST /2fa/setup: a new pending secret (replacing a pending one); refused while 2FA is enabled. */
export async function setupTwoFactor(ctx: AppContext, session: SessionPrincipal) {
  const scope = { platformId: session.platformId };
  const secret = generateSecret({ length: 20 });
  const stored = await putPendingTwoFactor(
    ctx.db,
    scope,
    session.user.id,
    ctx.encryptor.encrypt(secret),
    ctx.clock.now(),
  );
  if (!stored) throw alreadyEnabled();
  return { secret, otpauthUrl: otpauthUrl(ISSUER, session.user.email, secret) };
}

/** POST /2fa/enable: a code from the pending secret enables 2FA and hands out the recovery codes once. */
export async function enableTwoFactor(ctx: AppContext, session: SessionPrincipal, code: string) {
  const scope = { platformId: session.platformId };
  return withCodeLimits(ctx, stepUpSubject(session, 'POST /2fa/enable'), (verdict) =>
    ctx.db.transaction(async (tx) => {
      const enrolment = await findTwoFactor(tx, scope, session.user.id);
      if (!enrolment) throw new AppError('two_factor_not_set_up', 'call POST /2fa/setup first');
      if (enrolment.enabledAt) throw alreadyEnabled();
      const step = totpStep(ctx, enrolment.secretSealed, code, enrolment.lastTimeStep);
      const right = step !== null && (await claimTimeStep(tx, scope, session.user.id, step));
      verdict(right ? 'right' : 'wrong');
      if (!right) throw invalidCode();
      if (!(await markTwoFactorEnabled(tx, scope, session.user.id, ctx.clock.now()))) throw alreadyEnabled();
      const recoveryCodes = await issueRecoveryCodes(ctx, tx, session);
      await audit(ctx, tx, session, 'user.2fa_enabled', 'enabled 2FA');
      return { enabled: true as const, recoveryCodes };
    }),
  );
}

/** POST /2fa/disable: a current TOTP code (or a recovery code) removes the secret and the recovery codes. */
export async function disableTwoFactor(ctx: AppContext, session: SessionPrincipal, code: string) {
  const scope = { platformId: session.platformId };
  return withCodeLimits(ctx, stepUpSubject(session, 'POST /2fa/disable'), (verdict) =>
    ctx.db.transaction(async (tx) => {
      const outcome = await verifyUserSecondFactor(ctx, tx, scope, session.user.id, code, { allowRecoveryCode: true });
      verdict(verdictOf(outcome));
      if (!outcome.ok && outcome.reason === 'not_enrolled') throw notEnabled();
      if (!outcome.ok) throw invalidCode();
      await deleteTwoFactor(tx, scope, session.user.id);
      await audit(ctx, tx, session, 'user.2fa_disabled', 'disabled 2FA');
      return { enabled: false as const };
    }),
  );
}

/** POST /2fa/recovery-codes: a current TOTP code replaces every recovery code with a new set. */
export async function regenerateRecoveryCodes(ctx: AppContext, session: SessionPrincipal, code: string) {
  const scope = { platformId: session.platformId };
  return withCodeLimits(ctx, stepUpSubject(session, 'POST /2fa/recovery-codes'), (verdict) =>
    ctx.db.transaction(async (tx) => {
      const outcome = await verifyUserSecondFactor(ctx, tx, scope, session.user.id, code);
      verdict(verdictOf(outcome));
      if (!outcome.ok && outcome.reason === 'not_enrolled') throw notEnabled();
      if (!outcome.ok) throw invalidCode();
      const recoveryCodes = await issueRecoveryCodes(ctx, tx, session);
      await audit(ctx, tx, session, 'user.2fa_recovery_codes_regenerated', 'replaced the 2FA recovery codes');
      return { recoveryCodes };
    }),
  );
}

/** GET /2fa/status: whether 2FA is enabled and how many recovery codes are left (never a secret). */
export async function twoFactorStatus(ctx: AppContext, session: SessionPrincipal) {
  const scope = { platformId: session.platformId };
  const enrolment = await findTwoFactor(ctx.db, scope, session.user.id);
  const enabled = Boolean(enrolment?.enabledAt);
  return {
    enabled,
    pending: Boolean(enrolment) && !enabled,
    recoveryCodesLeft: enabled ? await countUnusedRecoveryCodes(ctx.db, scope, session.user.id) : 0,
  };
}

async function issueRecoveryCodes(ctx: AppContext, tx: Executor, session: SessionPrincipal): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  await replaceRecoveryCodes(
    tx,
    { platformId: session.platformId },
    session.user.id,
    codes.map((c) => ({ id: ctx.ids.next('rcv'), digest: recoveryDigest(c) })),
    ctx.clock.now(),
  );
  return codes;
}

async function audit(ctx: AppContext, tx: Executor, session: SessionPrincipal, type: string, what: string) {
  await recordEvent(ctx, tx, {
    platformId: session.platformId,
    companyId: session.user.companyId,
    type,
    message: `user ${session.user.id} ${what}`,
    actorUserId: session.user.id,
    metadata: { userId: session.user.id },
  });
}
