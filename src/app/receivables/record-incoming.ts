import type { CompanyScope, Tx } from '../../db/executor.ts';
import { insertIncomingPage } from '../../db/repositories/incoming-pages.ts';
import { hasOpenExpected } from '../../db/repositories/receivables.ts';
import type { AuditEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import { EVENT_API_VERSION } from '../events/outbox.ts';
import { matchIncoming } from './match.ts';

/** A statement's credits as incoming payments' records, a page at a time, from the file worker. */
export type IncomingSource = {
  incoming(page: number): Promise<{ json: string; count: number; next: number | null }>;
};

/**
 * Records every credit of a journaled statement as an incoming payment (docs/adr/0069), in the ingest
 * transaction: one INSERT per page of records from the file worker (never one per entry), a credit an
 * earlier statement already brought skipped by its payment key, each new one with its
 * `incoming_payment.received` event written by the same statement (docs/adr/0075); then matches the
 * new ones against the company's open expected payments. A statement that names no account records
 * nothing. One audit event names how many credits the statement brought that were new.
 */
export async function recordIncomingPayments(
  ctx: AppContext,
  tx: Tx,
  scope: CompanyScope,
  input: {
    documentId: string;
    accountKey: string | null;
    entries: IncomingSource;
    bankKey: string | null;
    environment: string;
  },
  audit: AuditEvent[],
): Promise<{ received: number; matched: number; ambiguous: number }> {
  if (input.accountKey === null) return { received: 0, matched: 0, ambiguous: 0 };
  const now = ctx.clock.now();
  // The new ids are wanted only when something may match them: a company that expects nothing (a
  // collection account's 50 MB statement) gets no row back per credit.
  const matching = await hasOpenExpected(tx, scope);
  const ids: string[] = [];
  let received = 0;
  for (let page: number | null = 0; page !== null; ) {
    const p = await input.entries.incoming(page);
    if (p.count > 0) {
      const statement = { documentId: input.documentId, accountKey: input.accountKey, idBase: ctx.ids.next('inc') };
      const events = {
        idBase: ctx.ids.next('evt'),
        apiVersion: EVENT_API_VERSION,
        createdAt: now,
        bankKey: input.bankKey,
        environment: input.environment,
      };
      const inserted = await insertIncomingPage(tx, scope, statement, p.json, now, matching, events);
      received += inserted.count;
      if (matching) ids.push(...inserted.ids);
    }
    page = p.next;
  }
  if (received > 0)
    audit.push({
      platformId: scope.platformId,
      companyId: scope.companyId,
      type: 'incoming_payment.received',
      message: `${received} incoming payments received`,
      metadata: { documentId: input.documentId, received },
      bankKey: input.bankKey,
      environment: input.environment,
    });
  if (ids.length === 0) return { received, matched: 0, ambiguous: 0 };
  const outcome = await matchIncoming(ctx, tx, scope, ids, audit);
  return { received, ...outcome };
}
