import { lockDocumentsByJournalNo, markCollected } from '../../db/repositories/journal-reads.ts';
import { recordEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import type { Principal } from '../identity/principal.ts';
import { exportScope } from './read-scope.ts';

export type ExportInput = {
  companyId: string;
  journalNos: string[];
  /** Narrows which of the named documents are exported; the others are reported in notFound. */
  filter?: { direction?: string | undefined; type?: string | undefined } | undefined;
  platformId?: string | undefined;
};

/**
 * POST /journal/export: marks the named documents collected (a document collected before keeps its
 * first collectedAt and says wasAlreadyCollected) and records one audit event in the same
 * transaction. 207 when some, not all, journal numbers were found.
 */
export async function exportDocuments(ctx: AppContext, principal: Principal, input: ExportInput) {
  const scope = await exportScope(ctx, principal, input.companyId, input.platformId);
  const wanted = [...new Set(input.journalNos)];
  const now = ctx.clock.now();
  const result = await ctx.db.transaction(async (tx) => {
    const rows = (await lockDocumentsByJournalNo(tx, scope, wanted)).filter(
      (r) =>
        (input.filter?.direction === undefined || r.direction === input.filter.direction) &&
        (input.filter?.type === undefined || r.type === input.filter.type),
    );
    const byNo = new Map(rows.map((r) => [r.journalNo, r]));
    // In the order the caller named them (rows were locked in id order, against deadlocks).
    const found = wanted.flatMap((no) => byNo.get(no) ?? []);
    const fresh = found.filter((r) => !r.collected);
    await markCollected(
      tx,
      scope,
      fresh.map((r) => r.id),
      now,
    );
    const exported = found.map((r) => ({
      journalNo: r.journalNo,
      documentId: r.id,
      direction: r.direction,
      type: r.type,
      sourceFormat: r.sourceFormat,
      bankKey: r.bankKey,
      createdAt: r.createdAt.toISOString(),
      wasAlreadyCollected: r.collected,
      transactionCount: r.transactionCount,
    }));
    const notFound = wanted.filter((no) => !byNo.has(no));
    if (exported.length > 0) {
      await recordEvent(ctx, tx, {
        platformId: scope.platformId,
        companyId: scope.companyId,
        type: 'journal.exported',
        message: `${exported.length} journal document(s) exported, ${fresh.length} newly collected`,
        actorUserId: principal.kind === 'key' ? null : principal.user.id,
        metadata: {
          collected: fresh.map((r) => ({ journalNo: r.journalNo, documentId: r.id })),
          alreadyCollected: found.filter((r) => r.collected).map((r) => r.journalNo),
          notFound,
          ...(principal.kind === 'key' ? { apiKeyId: principal.keyId } : {}),
          ...(principal.kind === 'token' ? { grantId: principal.grantId, clientId: principal.clientId } : {}),
        },
      });
    }
    return { exported, notFound };
  });
  const partial = result.exported.length > 0 && result.notFound.length > 0;
  return { status: partial ? 207 : 200, body: result };
}
