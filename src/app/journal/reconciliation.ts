import { choosePlan, reconciliationRows } from '../../db/repositories/journal-pages.ts';
import type { AppContext } from '../context.ts';
import { companyScope } from '../identity/company-scope.ts';
import type { Principal } from '../identity/principal.ts';
import { decodePageCursor, encodePageCursor } from './read-documents.ts';
import { companyCounts } from './read-page.ts';
import { reconStateOf } from './reconciliation-state.ts';

/** GET /journal/reconciliation page size (contract, Limits). */
export const RECON_DEFAULT_LIMIT = 500;
export const RECON_MAX_LIMIT = 1000;

/**
 * GET /journal/reconciliation: outbound documents newest first with the state their payment lines
 * add up to and the latest line evidence. A non-null nextCursor means more payments exist.
 */
export async function reconciliationPage(
  ctx: AppContext,
  principal: Principal,
  query: { companyId: string; limit?: number | undefined; cursor?: string | undefined },
) {
  const scope = await companyScope(ctx, principal, query.companyId);
  const limit = Math.min(query.limit ?? RECON_DEFAULT_LIMIT, RECON_MAX_LIMIT);
  const key = decodePageCursor(query.cursor);
  const plan = choosePlan(await companyCounts(ctx, scope), { direction: 'outbound' }, limit + 1);
  const rows = await reconciliationRows(ctx.db, scope, plan, key, limit + 1);
  const more = rows.length > limit;
  const items = more ? rows.slice(0, limit) : rows;
  const last = items[items.length - 1];
  return {
    items: items.map((r) => ({
      documentId: r.id,
      journalNo: r.journal_no,
      messageId: r.message_id,
      bankKey: r.bank_key,
      summary: r.summary,
      totals: r.totals,
      status: r.status,
      createdAt: r.created_at,
      state: reconStateOf(r.line_count, r.cleared_count, r.rejected_count),
      evidence: r.latest_evidence,
    })),
    nextCursor: more && last ? encodePageCursor({ sortKey: last.sort_key, id: last.id }) : null,
  };
}
