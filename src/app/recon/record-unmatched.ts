import type { CompanyScope, Tx } from '../../db/executor.ts';
import { hasOpenUnmatched, insertUnmatchedEntries, resolveUnmatched } from '../../db/repositories/unmatched-entries.ts';
import type { StatementLeftovers } from '../../domain/recon/unmatched-entries.ts';
import type { AppContext } from '../context.ts';

/**
 * What a statement's matching left over, asked for after reconcileStatement ran (the entries stay in
 * the ingest's file worker: only the leftovers come back).
 */
export type LeftoverSource = {
  leftovers(request: { account: string; matchedKeys: boolean }): Promise<StatementLeftovers>;
};

export type UnmatchedRecon = { unmatched: number; resolved: number };

/**
 * Records the statement's booked debits and returns that matched no outbound line, in the ingest
 * transaction after reconcileStatement (docs/adr/0047): one row per bank entry, the first statement
 * that brought it keeping it. When the account has entries still open, the keys of this statement's
 * matched entries resolve them: the same bank entry, seen again, matched a line this time.
 * A statement that names no account records nothing (there is no account to key its entries by).
 */
export async function recordUnmatchedEntries(
  ctx: AppContext,
  tx: Tx,
  scope: CompanyScope,
  input: { documentId: string; accountKey: string | null; entries: LeftoverSource },
): Promise<UnmatchedRecon> {
  if (input.accountKey === null) return { unmatched: 0, resolved: 0 };
  const openBefore = await hasOpenUnmatched(tx, scope, input.accountKey);
  const left = await input.entries.leftovers({ account: input.accountKey, matchedKeys: openBefore });
  const now = ctx.clock.now();
  const resolved =
    left.matchedKeys.length > 0 ? await resolveUnmatched(tx, scope, left.matchedKeys, input.documentId, now) : 0;
  const unmatched =
    left.unmatched.length > 0
      ? await insertUnmatchedEntries(
          tx,
          scope,
          { documentId: input.documentId, accountKey: input.accountKey },
          left.unmatched,
          now,
        )
      : 0;
  return { unmatched, resolved };
}
