import { and, eq, gt, isNull } from 'drizzle-orm';
import type { Executor } from '../executor.ts';
import { invites } from '../schema/index.ts';

export async function insertInvite(q: Executor, row: typeof invites.$inferInsert): Promise<void> {
  await q.insert(invites).values(row);
}

/** Marks a live invite used and answers its user; undefined when unknown, used or expired. */
export async function consumeInvite(q: Executor, digest: string, now: Date): Promise<string | undefined> {
  const rows = await q
    .update(invites)
    .set({ usedAt: now })
    .where(and(eq(invites.digest, digest), isNull(invites.usedAt), gt(invites.expiresAt, now)))
    .returning({ userId: invites.userId });
  return rows[0]?.userId;
}

/** Voids the user's unused invite and reset tokens (a new reset, an erasure). */
export async function voidUserInvites(q: Executor, userId: string, at: Date): Promise<void> {
  await q
    .update(invites)
    .set({ usedAt: at })
    .where(and(eq(invites.userId, userId), isNull(invites.usedAt)));
}
