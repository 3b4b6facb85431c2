import type { Executor } from '../../db/executor.ts';
import {
  insertApiKey,
  listActiveApiKeys,
  notificationsDelivered,
  revokeApiKey,
} from '../../db/repositories/api-keys.ts';
import { randomSecret, sha256Hex } from '../../platform/secrets.ts';
import { recordEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import { notFound } from '../errors.ts';
import { decodeCursor, page } from '../pagination.ts';
import { plainText } from '../plain-text.ts';
import { requireWorkspaceAdmin } from './access.ts';
import { forgetApiKey } from './authenticate.ts';
import { expectRevocation } from './key-revocations.ts';
import type { Principal } from './principal.ts';

export type CreatedApiKey = { id: string; key: string; label: string; createdAt: string };

/** A new key: 256 random bits behind `key_`; only its SHA-256 digest is stored. */
export async function issueApiKey(
  ctx: AppContext,
  q: Executor,
  platformId: string,
  label: string,
  actorUserId: string | null = null,
): Promise<CreatedApiKey> {
  const key = randomSecret('key_', 32);
  const row = await insertApiKey(q, {
    id: ctx.ids.next('ak'),
    platformId,
    label,
    digest: sha256Hex(key),
    createdAt: ctx.clock.now(),
  });
  await recordEvent(ctx, q, {
    platformId,
    type: 'api-key.created',
    message: `API key ${row.id} (${label}) created`,
    actorUserId,
    metadata: { keyId: row.id, label },
  });
  return { id: row.id, key, label: row.label, createdAt: row.createdAt.toISOString() };
}

export async function createApiKey(ctx: AppContext, principal: Principal, platformId: string, label: string) {
  const session = requireWorkspaceAdmin(principal, platformId);
  const trimmed = plainText(label, 'label');
  return ctx.db.transaction((tx) => issueApiKey(ctx, tx, platformId, trimmed, session.user.id));
}

export async function listApiKeys(
  ctx: AppContext,
  principal: Principal,
  platformId: string,
  cursor: string | undefined,
  limit = 100,
) {
  requireWorkspaceAdmin(principal, platformId);
  const rows = await listActiveApiKeys(ctx.db, { platformId }, decodeCursor(cursor), limit + 1);
  const result = page(rows, limit);
  return {
    items: result.items.map((k) => ({
      id: k.id,
      label: k.label,
      createdAt: k.createdAt.toISOString(),
      lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
    })),
    nextCursor: result.nextCursor,
  };
}

export async function deleteApiKey(ctx: AppContext, principal: Principal, platformId: string, keyId: string) {
  const session = requireWorkspaceAdmin(principal, platformId);
  // Listened for before the revocation commits, so that its notification cannot come first.
  const revocation = expectRevocation(ctx.db, keyId);
  const result = await ctx.db
    .transaction(async (tx) => {
      const revoked = await revokeApiKey(tx, { platformId }, keyId, ctx.clock.now());
      if (!revoked) throw notFound('api key');
      await recordEvent(ctx, tx, {
        platformId,
        type: 'api-key.revoked',
        message: `API key ${keyId} revoked`,
        actorUserId: session.user.id,
        metadata: { keyId },
      });
      return { id: keyId, revoked: true };
    })
    .catch((error: unknown) => {
      revocation.cancel();
      throw error;
    });
  forgetApiKey(ctx, keyId);
  // The revocation's NOTIFY reached this process's listener, and with it (PostgreSQL signals them all
  // at the commit) every other API process's: when the client reads this answer, no process takes the
  // key any more (docs/adr/0049). Bounded, should the listener's connection be slow or dying.
  await revocation.heard(1_000);
  // And every other listener was sent it too (the queue empties once all have read it), so no other
  // process answers the client's next request before its listener could read the revocation.
  for (let waited = 0; waited < 1_000 && !(await notificationsDelivered(ctx.db)); waited += 10) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return result;
}
