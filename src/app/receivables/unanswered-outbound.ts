import type { CompanyScope } from '../../db/executor.ts';
import { nearestDebits, unansweredLines } from '../../db/repositories/unanswered-lines.ts';
import { amountText } from '../../domain/receivables/expected.ts';
import { nearest } from '../../domain/receivables/explain.ts';
import { explainLine } from '../../domain/recon/explain-line.ts';
import { BOOKING_WINDOW } from '../../domain/recon/match-entries.ts';
import type { AppContext } from '../context.ts';

/** Unmatched debits read per line to pick the nearest candidates from. */
const POOL = 25;

/** A line's key in the queue's keyset: `<documentId>.<lineIndex>`. */
export const lineKey = (documentId: string, lineIndex: number) => `${documentId}.${lineIndex}`;
function parseLineKey(key: string | undefined) {
  if (key === undefined) return undefined;
  const dot = key.lastIndexOf('.');
  const lineIndex = Number(key.slice(dot + 1));
  return dot > 0 && Number.isSafeInteger(lineIndex) ? { documentId: key.slice(0, dot), lineIndex } : undefined;
}

/**
 * The queue's `unanswered-outbound` items (docs/adr/0075): outbound lines whose answer window closed
 * with no pain.002 and no statement evidence, each with the nearest unmatched statement debits (the
 * entries no line took, docs/adr/0047) and why each did not prove it. A candidate's `ref` is
 * `unmatched-entry:<id>`, the entry's id on the reconciliation page.
 */
export async function unansweredItems(
  ctx: AppContext,
  scope: CompanyScope,
  page: { after: string | undefined; limit: number },
) {
  const lines = await unansweredLines(ctx.db, scope, {
    now: ctx.clock.now(),
    after: parseLineKey(page.after),
    limit: page.limit,
  });
  const items = [];
  for (const l of lines) {
    const pool = await nearestDebits(ctx.db, scope, {
      currency: l.currency,
      amountMinor: l.amountMinor,
      endToEndId: l.endToEndId,
      limit: POOL,
    });
    const explained = pool.map((d) => ({ d, explained: explainLine(l, d, BOOKING_WINDOW) }));
    items.push({
      kind: 'unanswered-outbound' as const,
      id: lineKey(l.documentId, l.lineIndex),
      subject: {
        outboundLine: { documentId: l.documentId, index: l.lineIndex },
        journalNo: l.journalNo,
        environment: l.environment,
        endToEndId: l.endToEndId,
        amount: l.amount,
        currency: l.currency,
        payee: { name: l.payeeName, iban: l.payeeIban },
        executionDate: l.executionDate,
        answerWindowClosed: l.openUntil.toISOString(),
      },
      candidates: nearest(explained, 5).map((c) => ({
        ref: `unmatched-entry:${c.d.id}`,
        amountDelta: amountText(c.explained.amountDeltaMinor, l.currency),
        daysDelta: c.explained.daysDelta,
        referenceMatch: c.explained.referenceMatch,
        why: c.explained.why.join('; '),
        // The `entry` of a manual match (POST /reconciliation/matches); none for entries recorded before 0038.
        ...(c.d.entryIndex === null ? {} : { entry: { documentId: c.d.documentId, entryIndex: c.d.entryIndex } }),
      })),
      since: l.openUntil.toISOString(),
    });
  }
  return items;
}
