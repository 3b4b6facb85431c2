import type { CompanyScope, Tx } from '../../db/executor.ts';
import type { NormalisedStatement } from '../../domain/inbound/index.ts';
import { recordStatement } from '../accounts/record-statement.ts';
import type { AuditEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import { matchStatementDebits } from '../receivables/match-debits.ts';
import { type IncomingSource, recordIncomingPayments } from '../receivables/record-incoming.ts';
import { returnReversedCredits } from '../receivables/reversed-incoming.ts';
import { reconcileStatement, type StatementEntries } from '../recon/reconcile-statement.ts';
import { type LeftoverSource, recordUnmatchedEntries } from '../recon/record-unmatched.ts';

/** One statement block just journaled as an inbound document, as its consumers see it. */
export type JournaledStatement = {
  documentId: string;
  /** The block's header and balances (its entries stay in the file worker: `entries`). */
  statement: NormalisedStatement;
  transactionCount: number;
  /** The statement's account key (accountKeyOf), null when it names no account. */
  accountKey: string | null;
  /** The booked entries, matched and listed on request in the file worker (file-worker.ts). */
  entries: StatementEntries & LeftoverSource & IncomingSource;
  /** The statement's format (camt.053, mt940 ...): the source of the evidence it gives. */
  format: string;
  bankKey: string | null;
  environment: string;
};

/**
 * What reads a journaled statement, in the ingest's transaction, in this order: each answers a few
 * facts for the block's `journal.document.ingested` audit event and pushes its own audit events. A
 * new consumer of parsed statements (receivables: incoming payments from credits) is one more entry
 * here; it gets every statement of every source (docs/adr/0054). A consumer that fails fails the
 * file's ingest: nothing of the file is kept.
 */
export type StatementConsumer = (
  ctx: AppContext,
  tx: Tx,
  scope: CompanyScope,
  journaled: JournaledStatement,
  audit: AuditEvent[],
) => Promise<Record<string, unknown>>;

export const statementConsumers: readonly StatementConsumer[] = [
  // The bank account and its balances (created on its first statement).
  async (ctx, tx, scope, s, audit) => {
    const account = await recordStatement(
      ctx,
      tx,
      scope,
      {
        documentId: s.documentId,
        statement: s.statement,
        transactionCount: s.transactionCount,
        bankKey: s.bankKey,
        environment: s.environment,
      },
      audit,
    );
    return { accountId: account?.accountId ?? null };
  },
  // Every booked entry is evidence for an outbound payment line.
  async (ctx, tx, scope, s, audit) => ({
    reconciled: await reconcileStatement(
      ctx,
      tx,
      scope,
      { documentId: s.documentId, entries: s.entries, source: s.format, environment: s.environment },
      audit,
    ),
  }),
  // What matched nothing is listed on the reconciliation page (docs/adr/0047); after reconciling.
  async (ctx, tx, scope, s) => ({
    unmatchedEntries: await recordUnmatchedEntries(ctx, tx, scope, {
      documentId: s.documentId,
      accountKey: s.accountKey,
      entries: s.entries,
    }),
  }),
  // Every credit is an incoming payment, once however many statements repeat it, matched against the
  // company's expected payments (docs/adr/0069).
  async (ctx, tx, scope, s, audit) => ({
    incomingPayments: await recordIncomingPayments(
      ctx,
      tx,
      scope,
      {
        documentId: s.documentId,
        accountKey: s.accountKey,
        entries: s.entries,
        bankKey: s.bankKey,
        environment: s.environment,
      },
      audit,
    ),
  }),
  // A debit that reverses a credit returns its incoming payment (docs/adr/0076): after the credits, so
  // a statement that brings both returns it, and after the unmatched entries, where reversals are kept.
  async (ctx, tx, scope, s, audit) => ({
    incomingReturned: (
      await returnReversedCredits(
        ctx,
        tx,
        scope,
        { documentId: s.documentId, accountKey: s.accountKey, bankKey: s.bankKey, environment: s.environment },
        audit,
      )
    ).returned,
  }),
  // A debit no outbound line took (recorded among the unmatched entries, reversals excepted) against
  // the company's debit expected payments, by the receivables' rules (docs/adr/0077).
  async (ctx, tx, scope, s, audit) => ({
    debitsMatched: (await matchStatementDebits(ctx, tx, scope, s.documentId, audit)).matched,
  }),
];

/** Hands a journaled statement to every consumer in order; their facts, merged. */
export async function consumeStatement(
  ctx: AppContext,
  tx: Tx,
  scope: CompanyScope,
  journaled: JournaledStatement,
  audit: AuditEvent[],
): Promise<Record<string, unknown>> {
  const facts: Record<string, unknown> = {};
  for (const consumer of statementConsumers) Object.assign(facts, await consumer(ctx, tx, scope, journaled, audit));
  return facts;
}
