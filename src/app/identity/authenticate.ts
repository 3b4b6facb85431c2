import type { Listening } from '../../db/listen.ts';
import { findActiveApiKeyByDigest, isApiKeyActive, touchApiKeyLastUsed } from '../../db/repositories/api-keys.ts';
import { touchPlatformActivity } from '../../db/repositories/platforms.ts';
import { findLiveSessionByDigest, touchSessionLastSeen } from '../../db/repositories/sessions.ts';
import { findUser } from '../../db/repositories/users.ts';
import { recentCachePer } from '../../platform/recent-cache.ts';
import { sha256Hex } from '../../platform/secrets.ts';
import type { AppContext } from '../context.ts';
import { revocationWatchOf, watchKeyRevocations } from './key-revocations.ts';
import type { KeyPrincipal, SessionPrincipal } from './principal.ts';

const API_KEY_FORMAT = /^key_[0-9a-f]{64}$/;
const SESSION_TOKEN_FORMAT = /^st_[0-9a-f]{64}$/;
// lastUsedAt and platform activity move at most once a minute per key: no write per request.
const TOUCH_INTERVAL_MS = 60_000;

const lastTouched = new Map<string, number>();

function touch(ctx: AppContext, keyId: string, platformId: string): void {
  const now = ctx.clock.now();
  const previous = lastTouched.get(keyId);
  if (previous !== undefined && now.getTime() - previous < TOUCH_INTERVAL_MS) return;
  lastTouched.set(keyId, now.getTime());
  const staleBefore = new Date(now.getTime() - TOUCH_INTERVAL_MS);
  Promise.all([
    touchApiKeyLastUsed(ctx.db, keyId, now, staleBefore),
    touchPlatformActivity(ctx.db, platformId, now, staleBefore),
  ]).catch((err: unknown) => ctx.logger.warn({ err }, 'could not record key use'));
}

/**
 * How long a key found active is taken as active without a lookup, on routes that do not confirm it
 * themselves (docs/adr/0049), while this process hears every revocation as it commits (LISTEN,
 * key-revocations.ts): a revoked key is forgotten at once in every process; this bound only holds
 * should a listener's connection die without a word. The lookup was a third of a journal page's
 * statements.
 */
export const KEY_CONFIRMED_FOR_MS = 2_000;

/**
 * The raw key is looked up by its SHA-256 digest: the database compares digests, never the secret,
 * so the comparison's timing tells an attacker nothing about a valid key. A key this process found
 * active less than KEY_CONFIRMED_FOR_MS ago is answered from memory. `recent: true` may answer from
 * the keys this process found active before, however long ago: the principal then says so
 * (`recent`), and the caller must confirm the key before anything it answers is released (the
 * submit statement checks it; confirmApiKey otherwise).
 */
export async function authenticateApiKey(
  ctx: AppContext,
  raw: string,
  options: { recent?: boolean } = {},
): Promise<KeyPrincipal | null> {
  if (!API_KEY_FORMAT.test(raw)) return null;
  const digest = sha256Hex(raw);
  const cache = recentKeysOf(ctx.db);
  const seen = cache.get(digest);
  const now = ctx.clock.now().getTime();
  if (seen && options.recent) {
    touch(ctx, seen.id, seen.platformId);
    return { kind: 'key', platformId: seen.platformId, keyId: seen.id, recent: true };
  }
  // Only while every revocation is heard: a revoked key is forgotten as it commits (watchApiKeyRevocations).
  const watch = revocationWatchOf(ctx.db);
  if (seen && watch?.live && now >= seen.checkedAt && now - seen.checkedAt < KEY_CONFIRMED_FOR_MS) {
    // A notification that reached this process with the request is read first: one turn of the event
    // loop lets its socket's callback run, so a key revoked before this request was sent is not served.
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  if (
    seen &&
    cache.get(digest) === seen &&
    watch?.live &&
    now >= seen.checkedAt &&
    now - seen.checkedAt < KEY_CONFIRMED_FOR_MS
  ) {
    touch(ctx, seen.id, seen.platformId);
    return { kind: 'key', platformId: seen.platformId, keyId: seen.id };
  }
  const epoch = watch?.epoch;
  const key = await findActiveApiKeyByDigest(ctx.db, digest);
  if (!key) {
    cache.delete(digest);
    return null;
  }
  // Not remembered when a revocation (or a lost listener) was heard during the lookup: what it found
  // may already be revoked.
  if (watch?.live && watch.epoch === epoch) cache.set(digest, { ...key, checkedAt: now });
  touch(ctx, key.id, key.platformId);
  return { kind: 'key', platformId: key.platformId, keyId: key.id };
}

/** Whether a key taken from the recent keys is still active (looked up); forgets it if not. */
export async function confirmApiKey(ctx: AppContext, principal: KeyPrincipal): Promise<boolean> {
  const active = await isApiKeyActive(ctx.db, principal.platformId, principal.keyId);
  if (!active) forgetApiKey(ctx, principal.keyId);
  return active;
}

/** A key revoked (here or, as the submit statement found, in another process) is no longer taken from the cache. */
export function forgetApiKey(ctx: AppContext, keyId: string): void {
  recentKeysOf(ctx.db).deleteWhere((key) => key.id === keyId);
}

/**
 * Hears every key revocation as it commits, in every process of the app (the auth plugin starts it):
 * the key is forgotten here at once; all keys are, when notifications may have been missed.
 */
export function watchApiKeyRevocations(ctx: AppContext): Listening {
  return watchKeyRevocations(ctx, (keyId) => {
    if (keyId === null) recentKeysOf(ctx.db).deleteWhere(() => true);
    else forgetApiKey(ctx, keyId);
  });
}

/** Keys found active recently, by digest, per database pool, with when (clock ms) they were looked up. */
const recentKeysOf = recentCachePer<{ id: string; platformId: string; checkedAt: number }>(10_000);

/** lastSeenAt for GET /me/sessions moves at most once a minute per session, off the request's path. */
function touchSession(ctx: AppContext, sessionId: string, platformId: string, lastSeenAt: Date | null): void {
  const now = ctx.clock.now();
  const staleBefore = new Date(now.getTime() - TOUCH_INTERVAL_MS);
  if (lastSeenAt !== null && lastSeenAt >= staleBefore) return;
  touchSessionLastSeen(ctx.db, { platformId }, sessionId, now, staleBefore).catch((err: unknown) =>
    ctx.logger.warn({ err }, 'could not record session use'),
  );
}

export async function authenticateSession(ctx: AppContext, raw: string): Promise<SessionPrincipal | null> {
  if (!SESSION_TOKEN_FORMAT.test(raw)) return null;
  const session = await findLiveSessionByDigest(ctx.db, sha256Hex(raw), ctx.clock.now());
  if (!session) return null;
  const user = await findUser(ctx.db, { platformId: session.platformId }, session.userId);
  if (user?.status !== 'active') return null;
  touchSession(ctx, session.id, session.platformId, session.lastSeenAt);
  return {
    kind: 'session',
    platformId: session.platformId,
    sessionId: session.id,
    companyContextId: session.companyContextId,
    user: {
      id: user.id,
      email: user.email,
      name: user.name,
      roles: user.roles,
      workspaceAdmin: user.workspaceAdmin,
      companyId: user.companyId,
    },
  };
}
