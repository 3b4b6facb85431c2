import { eq } from 'drizzle-orm';
import type { Executor } from '../executor.ts';
import { oauthCodes } from '../schema/index.ts';

export type OAuthCodeRow = typeof oauthCodes.$inferSelect;

export async function insertOAuthCode(q: Executor, row: typeof oauthCodes.$inferInsert): Promise<void> {
  await q.insert(oauthCodes).values(row);
}

/**
 * Code lookup for an exchange, locking the row: of two exchanges of one code, the second waits and
 * then finds it used. The digest is the only handle an application holds (a credential lookup).
 */
export async function lockOAuthCodeByDigest(q: Executor, digest: string): Promise<OAuthCodeRow | undefined> {
  const rows = await q.select().from(oauthCodes).where(eq(oauthCodes.digest, digest)).limit(1).for('update');
  return rows[0];
}

/** Marks a code used by the exchange that created `grantId`. */
export async function markOAuthCodeUsed(q: Executor, codeId: string, at: Date, grantId: string | null): Promise<void> {
  await q.update(oauthCodes).set({ usedAt: at, grantId }).where(eq(oauthCodes.id, codeId));
}
