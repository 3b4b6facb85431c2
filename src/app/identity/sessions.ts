import type { Executor } from '../../db/executor.ts';
import {
  countChallengeFailure,
  findOpenChallengeByDigest,
  insertLoginChallenge,
  lockOpenChallengeByDigest,
  markChallengeUsed,
} from '../../db/repositories/login-challenges.ts';
import { touchPlatformActivity } from '../../db/repositories/platforms.ts';
import {
  insertSession,
  listLiveUserSessions,
  revokeOwnSession,
  revokeSession,
} from '../../db/repositories/sessions.ts';
import { hasEnabledTwoFactor } from '../../db/repositories/two-factor.ts';
import { findUser, findUserByEmailForLogin, type UserRow } from '../../db/repositories/users.ts';
import { randomSecret, sha256Hex } from '../../platform/secrets.ts';
import { recordEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import { AppError, notFound, unauthorized } from '../errors.ts';
import {
  accountSubject,
  countFailure,
  enforce,
  forgiveOne,
  LOGIN_CODE_FAILURES_PER_IP,
  LOGIN_FAILURES_PER_ACCOUNT,
  LOGIN_FAILURES_PER_IP,
  LOGIN_PER_IP_AND_ACCOUNT,
  LOGIN_SLOWED_ACCOUNT,
  peek,
  refuseAtLimit,
} from '../rate-limits.ts';
import { withCodeLimits } from './code-limits.ts';
import type { SessionPrincipal } from './principal.ts';
import { verdictOf, verifyUserSecondFactor } from './two-factor.ts';

/** Admin sessions last 12 hours from login; there is no sliding renewal. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/** The second login step (DESIGN.md): 5 minutes, single use, void after 5 wrong codes. */
export const LOGIN_CHALLENGE_TTL_MS = 5 * 60 * 1000;
export const LOGIN_CHALLENGE_MAX_FAILURES = 5;
const CHALLENGE_TOKEN_FORMAT = /^lc_[0-9a-f]{64}$/;
const USER_AGENT_MAX = 256;

// Verified against when the email is unknown, so a miss costs as long as a wrong password.
let dummyHash: Promise<string> | undefined;

/** Where a login comes from: kept with the session for GET /me/sessions, and the per-IP limits' subject. */
export type ClientInfo = { ip: string; userAgent: string | null };

export type UserView = {
  id: string;
  email: string;
  name: string;
  roles: string[];
  status: string;
  platformId: string;
  companyId: string | null;
  workspaceAdmin: boolean;
};

export function userView(
  user: Pick<UserRow, 'id' | 'email' | 'name' | 'roles' | 'status' | 'platformId' | 'companyId' | 'workspaceAdmin'>,
): UserView {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    roles: user.roles,
    status: user.status,
    platformId: user.platformId,
    companyId: user.companyId,
    workspaceAdmin: user.workspaceAdmin,
  };
}

export type SessionOpened = { sessionToken: string; expiresAt: string; user: UserView };
export type ChallengeIssued = { twoFactorRequired: true; challengeToken: string; expiresAt: string };
export type LoginResult = SessionOpened | ChallengeIssued;

/**
 * Email and password login. A user with 2FA enabled gets a challenge instead of a session, answered
 * by completeLoginChallenge. Limits (counted in PostgreSQL, so across processes; ADR 0057): attempts
 * per address and email (the right password gives its hit back); failures per address whatever the
 * emails; failures per account whatever the address, past which the account is slowed to one
 * password check a minute — except the right password of a user with 2FA from an address that has
 * not failed on it, which gets its challenge (the second factor then decides). Successes never count.
 */
export async function login(
  ctx: AppContext,
  email: string,
  password: string,
  client: ClientInfo,
): Promise<LoginResult> {
  const account = accountSubject(email);
  const pair = `${client.ip}:${account}`;
  await refuseAtLimit(ctx, LOGIN_FAILURES_PER_IP, client.ip);
  const fromHere = await enforce(ctx, LOGIN_PER_IP_AND_ACCOUNT, pair);
  const slowed = (await peek(ctx, LOGIN_FAILURES_PER_ACCOUNT, account)).hits >= LOGIN_FAILURES_PER_ACCOUNT.max;
  // An address that already failed on this account waits for the account's slot before its password is read.
  const failedHere = fromHere.hits > 1;
  if (slowed && failedHere) await enforce(ctx, LOGIN_SLOWED_ACCOUNT, account);
  const user = await findUserByEmailForLogin(ctx.db, email.trim().toLowerCase());
  dummyHash ??= ctx.passwords.hash(randomSecret('dummy_', 16));
  const ok = await ctx.passwords.verify(user?.passwordHash ?? (await dummyHash), password);
  const right = user?.passwordHash && ok && user.status === 'active' ? user : undefined;
  const twoFactor =
    right !== undefined && (await hasEnabledTwoFactor(ctx.db, { platformId: right.platformId }, right.id));
  if (right) await forgiveOne(ctx, LOGIN_PER_IP_AND_ACCOUNT, pair);
  else {
    await countFailure(ctx, LOGIN_FAILURES_PER_ACCOUNT, account);
    await countFailure(ctx, LOGIN_FAILURES_PER_IP, client.ip);
  }
  if (slowed && !failedHere && !twoFactor) await enforce(ctx, LOGIN_SLOWED_ACCOUNT, account);
  if (!right) throw unauthorized();
  if (twoFactor) return issueChallenge(ctx, right, client);
  return openSession(ctx, ctx.db, right, client);
}

async function issueChallenge(ctx: AppContext, user: UserRow, client: ClientInfo): Promise<ChallengeIssued> {
  const now = ctx.clock.now();
  const token = randomSecret('lc_');
  const expiresAt = new Date(now.getTime() + LOGIN_CHALLENGE_TTL_MS);
  await insertLoginChallenge(ctx.db, {
    id: ctx.ids.next('lch'),
    userId: user.id,
    platformId: user.platformId,
    digest: sha256Hex(token),
    ip: client.ip,
    userAgent: trimUserAgent(client.userAgent),
    createdAt: now,
    expiresAt,
  });
  return { twoFactorRequired: true, challengeToken: token, expiresAt: expiresAt.toISOString() };
}

const wrongCode = () => new AppError('invalid_code', 'the code is wrong or already used');

/**
 * POST /auth/login/2fa: the challenge and a TOTP or recovery code open the session. A wrong code is
 * counted on the challenge (committed even though the request fails); the fifth voids it. An unknown,
 * used, expired or void challenge is 401 unauthorized: sign in again.
 */
export async function completeLoginChallenge(
  ctx: AppContext,
  challengeToken: string,
  code: string,
  client: ClientInfo,
): Promise<SessionOpened> {
  const digest = sha256Hex(challengeToken);
  const owner = CHALLENGE_TOKEN_FORMAT.test(challengeToken)
    ? await findOpenChallengeByDigest(ctx.db, digest, ctx.clock.now(), LOGIN_CHALLENGE_MAX_FAILURES)
    : undefined;
  const holder = owner && (await findUser(ctx.db, { platformId: owner.platformId }, owner.userId));
  if (!owner || holder?.status !== 'active') {
    await refuseAtLimit(ctx, LOGIN_CODE_FAILURES_PER_IP, client.ip);
    throw unauthorized();
  }
  const who = {
    platformId: owner.platformId,
    companyId: holder.companyId,
    userId: owner.userId,
    ip: client.ip,
    route: 'POST /auth/login/2fa',
  };
  return withCodeLimits(ctx, who, async (verdict) => {
    const outcome = await ctx.db.transaction(async (tx) => {
      const now = ctx.clock.now();
      const challenge = await lockOpenChallengeByDigest(tx, digest, now, LOGIN_CHALLENGE_MAX_FAILURES);
      if (challenge?.userId !== owner.userId) return { kind: 'unknown' as const };
      const scope = { platformId: challenge.platformId };
      const user = await findUser(tx, scope, challenge.userId);
      if (user?.status !== 'active') return { kind: 'unknown' as const };
      const factor = await verifyUserSecondFactor(ctx, tx, scope, user.id, code, { allowRecoveryCode: true });
      verdict(verdictOf(factor));
      if (!factor.ok) {
        await countChallengeFailure(tx, scope, challenge.id);
        return { kind: 'wrong' as const };
      }
      await markChallengeUsed(tx, scope, challenge.id, now);
      if (factor.method === 'recovery_code') {
        await recordEvent(ctx, tx, {
          platformId: user.platformId,
          companyId: user.companyId,
          type: 'user.recovery_code_used',
          message: `user ${user.id} signed in with a recovery code`,
          actorUserId: user.id,
          metadata: { userId: user.id },
        });
      }
      return { kind: 'opened' as const, session: await openSession(ctx, tx, user, client) };
    });
    if (outcome.kind === 'unknown') throw unauthorized();
    if (outcome.kind === 'wrong') throw wrongCode();
    return outcome.session;
  });
}

async function openSession(ctx: AppContext, q: Executor, user: UserRow, client: ClientInfo): Promise<SessionOpened> {
  const now = ctx.clock.now();
  const token = randomSecret('st_');
  const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
  await insertSession(q, {
    id: ctx.ids.next('sess'),
    userId: user.id,
    platformId: user.platformId,
    digest: sha256Hex(token),
    companyContextId: null,
    createdAt: now,
    expiresAt,
    lastSeenAt: now,
    ip: client.ip,
    userAgent: trimUserAgent(client.userAgent),
  });
  await touchPlatformActivity(q, user.platformId, now);
  return { sessionToken: token, expiresAt: expiresAt.toISOString(), user: userView(user) };
}

function trimUserAgent(userAgent: string | null): string | null {
  return userAgent === null ? null : userAgent.slice(0, USER_AGENT_MAX);
}

export async function logout(ctx: AppContext, session: SessionPrincipal): Promise<void> {
  await revokeSession(ctx.db, { platformId: session.platformId }, session.sessionId, ctx.clock.now());
}

export function me(session: SessionPrincipal) {
  return {
    user: { ...session.user, status: 'active', platformId: session.platformId },
    platformId: session.platformId,
    companyContextId: session.companyContextId,
  };
}

/** GET /me/sessions: the caller's live sessions (never a token), the calling one marked `current`. */
export async function listMySessions(ctx: AppContext, session: SessionPrincipal) {
  const rows = await listLiveUserSessions(ctx.db, { platformId: session.platformId }, session.user.id, ctx.clock.now());
  return {
    items: rows.map((s) => ({
      id: s.id,
      createdAt: s.createdAt.toISOString(),
      lastSeenAt: (s.lastSeenAt ?? s.createdAt).toISOString(),
      expiresAt: s.expiresAt.toISOString(),
      ip: s.ip,
      userAgent: s.userAgent,
      current: s.id === session.sessionId,
    })),
  };
}

/** DELETE /me/sessions/{id}: revokes one of the caller's own live sessions (another user's is 404). */
export async function revokeMySession(ctx: AppContext, session: SessionPrincipal, sessionId: string) {
  const now = ctx.clock.now();
  const revoked = await ctx.db.transaction(async (tx) => {
    const done = await revokeOwnSession(tx, { platformId: session.platformId }, session.user.id, sessionId, now);
    if (done) {
      await recordEvent(ctx, tx, {
        platformId: session.platformId,
        companyId: session.user.companyId,
        type: 'user.session_revoked',
        message: `user ${session.user.id} revoked session ${sessionId}`,
        actorUserId: session.user.id,
        metadata: { userId: session.user.id, sessionId },
      });
    }
    return done;
  });
  if (!revoked) throw notFound('session');
  return { ok: true as const };
}
