import type { CompanyScope, Executor } from '../../db/executor.ts';
import { chainedEvent, listChainAfter } from '../../db/repositories/activity-events.ts';
import { type ChainedEvent, verifyChain } from '../../domain/audit/hash-chain.ts';

export const VERIFY_PAGE = 1000;

export type AuditVerdict =
  | { ok: true; checked: number; firstSeq: number | null; lastSeq: number | null }
  | { ok: false; checked: number; brokenAtSeq: number; eventId: string; reason: string };

/**
 * Verifies a company's audit chain in seq order, a page at a time. Each page is checked together
 * with the last event of the page before it, so the link across a page boundary is checked too.
 */
export async function verifyCompanyChain(
  q: Executor,
  scope: CompanyScope,
  pageSize = VERIFY_PAGE,
): Promise<AuditVerdict> {
  let previous: ChainedEvent | undefined;
  let checked = 0;
  let firstSeq: number | null = null;
  for (;;) {
    const rows = await listChainAfter(q, scope, previous?.seq ?? 0, pageSize);
    if (rows.length === 0) break;
    const page = rows.map(chainedEvent);
    firstSeq ??= page[0]!.seq;
    const verdict = verifyChain(previous ? [previous, ...page] : page);
    const overlap = previous ? 1 : 0;
    if (!verdict.ok) {
      return {
        ok: false,
        checked: checked + verdict.checked - overlap,
        brokenAtSeq: verdict.brokenAtSeq,
        eventId: verdict.eventId,
        reason: verdict.reason,
      };
    }
    checked += verdict.checked - overlap;
    previous = page[page.length - 1];
    if (rows.length < pageSize) break;
  }
  return { ok: true, checked, firstSeq, lastSeq: previous?.seq ?? null };
}
