import type { CompanyScope, Tx } from '../../db/executor.ts';
import { hasOpenUnmatched, insertUnmatchedEntries, resolveUnmatched } from '../../db/repositories/unmatched-entries.ts';
import type { StatementLeftovers } from '../../domain/recon/unmatched-entries.ts';
import type { AppContext } from '../context.ts';

/**
 * What a statement's matching left over, asked for after reconcileStatement ran (the entries stay in
 * the ingest's file worker: only the leftovers come back).
 */
export type LeftoverSource = {
  /** One page of the records from `from` (the matched keys come with the first), and where the next starts. */
  leftovers(request: {
    account: string;
    matchedKeys: boolean;
    from: number;
    limit: number;
  }): Promise<StatementLeftovers & { next: number | null }>;
};

/** Records asked of the file worker at a time. */
const LEFTOVER_PAGE = 500;

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
  const now = ctx.clock.now();
  let resolved = 0;
  let unmatched = 0;
  // Page by page: a large statement's records are never all in this thread (file worker, leftovers).
  for (let from: number | null = 0; from !== null; ) {
    const left = await input.entries.leftovers({
      account: input.accountKey,
      matchedKeys: openBefore,
      from,
      limit: LEFTOVER_PAGE,
    });
    if (left.matchedKeys.length > 0) {
      resolved += await resolveUnmatched(tx, scope, left.matchedKeys, input.documentId, now);
    }
    if (left.unmatched.count > 0) {
      unmatched += await insertUnmatchedEntries(
        tx,
        scope,
        { documentId: input.documentId, accountKey: input.accountKey },
        left.unmatched,
        now,
      );
    }
    from = left.next;
  }
  return { unmatched, resolved };
}
