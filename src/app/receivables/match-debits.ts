import type { CompanyScope, Tx } from '../../db/executor.ts';
import { applyEntrySums, openDebitsByIds, openDebitsOf, setEntryNotes } from '../../db/repositories/debit-entries.ts';
import type { EntryRow } from '../../db/repositories/line-matches.ts';
import { applyExpectedSums, hasOpenExpected, insertMatches, openExpected } from '../../db/repositories/receivables.ts';
import type { IncomingCredit } from '../../domain/receivables/matcher.ts';
import { matchReceivables } from '../../domain/receivables/matcher.ts';
import type { AuditEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import {
  candidateOf,
  type ExpectedSum,
  expectedWrite,
  type MatchCounts,
  type MatchRun,
  matchInChunks,
  matchRows,
} from './match.ts';

/**
 * A statement debit as the matcher's matched side (docs/adr/0077): the matcher compares amounts,
 * dates, identifiers, accounts and text and never asks a side's direction, so the debit goes through
 * the very rules, order and ambiguity test a credit does. Its structured reference is the entry's
 * creditor reference (a supplier's direct debit, a tax), its counterparty the account debiting us.
 */
export const debitOf = (d: EntryRow): IncomingCredit => ({
  id: String(d.id),
  currency: d.currency,
  amountMinor: d.amountMinor,
  matchedMinor: d.matchedMinor,
  bookingDate: d.bookingDate,
  endToEndId: d.endToEndId,
  reference: d.creditorReference,
  counterpartyIban: d.counterpartyIban,
  remittance: d.remittance,
});

/** The entry as a match row names it. */
export const entrySide = (d: EntryRow) => ({
  unmatchedEntryId: d.id,
  entryDocumentId: d.documentId,
  entryIndex: d.entryIndex,
});

/** The statement consumer: this statement's debits no outbound line took, against the debit expected payments. */
export async function matchStatementDebits(
  ctx: AppContext,
  tx: Tx,
  scope: CompanyScope,
  documentId: string,
  audit: AuditEvent[],
): Promise<MatchCounts> {
  // A statement of a company that expects no debit costs one indexed lookup.
  if (!(await hasOpenExpected(tx, scope, 'debit'))) return { matched: 0, ambiguous: 0 };
  return matchDebits(ctx, tx, scope, await openDebitsOf(tx, scope, documentId), audit);
}

/**
 * Matches these statement debits (unmatched entries) against the company's open **debit** expected
 * payments with matchReceivables, in its documented order, and persists the answer in the caller's
 * transaction as matchIncoming does for credits: the match rows (naming the entry), the expected
 * payments' sums and statuses through their transition function (with `expected_payment.reconciled`
 * and `expected_payment.overdue`), the entries' matched sums (one matched in full leaves the unmatched
 * list), one audit event. Ambiguous debits keep a note naming the candidates.
 */
export async function matchDebits(
  ctx: AppContext,
  tx: Tx,
  scope: CompanyScope,
  ids: number[],
  audit: AuditEvent[],
): Promise<MatchCounts> {
  if (ids.length === 0) return { matched: 0, ambiguous: 0 };
  return matchInChunks(ctx, tx, scope, ids, matchDebitChunk, audit, ({ matched, ambiguous }) => ({
    message: `${matched} debit expected payment matches, ${ambiguous} ambiguous statement debits left for review`,
    metadata: { direction: 'debit', statementDebits: ids.length, matched, ambiguous },
  }));
}

async function matchDebitChunk(run: MatchRun, ids: number[]): Promise<MatchCounts> {
  const { tx, scope } = run;
  const debits = await openDebitsByIds(tx, scope, ids);
  const expected = await openExpected(tx, scope, [...new Set(debits.map((d) => d.currency))], 'debit');
  if (expected.length === 0) return { matched: 0, ambiguous: 0 };
  const outcome = matchReceivables(debits.map(debitOf), expected.map(candidateOf), run.settings);
  await setEntryNotes(
    tx,
    scope,
    outcome.ambiguous.map((a) => ({
      id: debits[a.incoming]!.id,
      note: `ambiguous (${a.rule}): ${a.candidates.map((j) => expected[j]!.id).join(', ')}`,
    })),
  );
  const ambiguous = outcome.ambiguous.length;
  if (outcome.matches.length === 0) return { matched: 0, ambiguous };
  const expectedSums = new Map<number, ExpectedSum>();
  const entrySums = new Map<number, bigint>();
  const rows = matchRows(run, { outcome, expected, expectedSums }, debits, entrySums, entrySide);
  await insertMatches(tx, rows);
  const expectedWrites = [...expectedSums].map(([j, sum]) => expectedWrite(run, expected[j]!, sum));
  await applyExpectedSums(tx, scope, expectedWrites, run.now);
  const entryWrites = [...entrySums].map(([i, matchedMinor]) => ({
    id: debits[i]!.id,
    matchedMinor,
    expectedIds: rows.filter((r) => r.unmatchedEntryId === debits[i]!.id).map((r) => r.expectedPaymentId),
  }));
  await applyEntrySums(tx, scope, entryWrites, run.now);
  return { matched: outcome.matches.length, ambiguous };
}
