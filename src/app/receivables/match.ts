import type { CompanyScope, Tx } from '../../db/executor.ts';
import {
  applyExpectedSums,
  applyIncomingSums,
  type ExpectedRow,
  findSettings,
  hasOpenExpected,
  type IncomingRow,
  incomingByIds,
  insertMatches,
  openExpected,
  setReviewNotes,
  statementBanks,
} from '../../db/repositories/receivables.ts';
import {
  type ExpectedPaymentStatus,
  expectedPaymentTransition,
  expectedStatusOf,
  type IncomingPaymentStatus,
  incomingPaymentTransition,
  incomingStatusOf,
  mustMove,
} from '../../domain/lifecycle/index.ts';
import { amountText } from '../../domain/receivables/expected.ts';
import {
  DEFAULT_SETTINGS,
  type ExpectedCandidate,
  type IncomingCredit,
  type MatchSettings,
  matchReceivables,
} from '../../domain/receivables/matcher.ts';
import type { AuditEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import { emitEvents, type OutboxEvent } from '../events/outbox.ts';
import { overdueEvent, todayOf } from './overdue.ts';

/** Incoming payments matched at a time (each chunk sees the sums the previous one left). */
const CHUNK = 2000;

export const candidateOf = (e: ExpectedRow): ExpectedCandidate => ({
  id: e.id,
  currency: e.currency,
  amountMinMinor: e.amountMinMinor,
  amountMaxMinor: e.amountMaxMinor,
  matchedMinor: e.settled ? e.amountMaxMinor : e.matchedMinor,
  dateFrom: e.dateFrom,
  dateTo: e.dateTo,
  counterpartyIban: e.counterpartyIban,
  counterpartyOther: e.counterpartyOther,
  referenceValue: e.referenceValue,
  remittanceContains: e.remittanceContains,
});

export const creditOf = (p: IncomingRow): IncomingCredit => ({
  id: p.id,
  currency: p.currency,
  amountMinor: p.amountMinor,
  matchedMinor: p.matchedMinor,
  bookingDate: p.bookingDate ?? p.valueDate,
  endToEndId: p.endToEndId,
  reference: p.reference,
  counterpartyIban: p.counterpartyIban,
  remittance: p.remittance,
});

export async function settingsOf(tx: Tx, scope: CompanyScope): Promise<MatchSettings> {
  return (await findSettings(tx, scope)) ?? DEFAULT_SETTINGS;
}

export { todayOf };

/**
 * Matches these incoming payments against the company's open expected payments (matcher.ts, in its
 * documented order) and persists the answer in the caller's transaction: the match rows, both sides'
 * sums and statuses (each move asked of its transition function, the conditional update on the status
 * read), `incoming_payment.matched` and `expected_payment.reconciled` events, one audit event.
 * Ambiguous and unmatched credits stay `unmatched`: the exceptions queue shows them.
 */
export async function matchIncoming(
  ctx: AppContext,
  tx: Tx,
  scope: CompanyScope,
  ids: string[],
  audit: AuditEvent[],
): Promise<MatchCounts> {
  // A statement of a company that expects nothing costs one indexed lookup.
  if (!(await hasOpenExpected(tx, scope))) return { matched: 0, ambiguous: 0 };
  return matchInChunks(ctx, tx, scope, ids, matchChunk, audit, ({ matched, ambiguous }) => ({
    message: `${matched} receivable matches, ${ambiguous} ambiguous credits left for review`,
    metadata: { incomingPayments: ids.length, matched, ambiguous },
  }));
}

export type MatchCounts = { matched: number; ambiguous: number };

/**
 * One matching run, credits or statement debits alike: the ids in chunks (each sees the sums the
 * previous one left), the outbox events of all of them emitted once, and one audit event, described
 * by the caller, when anything matched or was left ambiguous.
 */
export async function matchInChunks<Id>(
  ctx: AppContext,
  tx: Tx,
  scope: CompanyScope,
  ids: Id[],
  matchChunk: (run: MatchRun, ids: Id[]) => Promise<MatchCounts>,
  audit: AuditEvent[],
  describe: (counts: MatchCounts) => Pick<AuditEvent, 'message' | 'metadata'>,
): Promise<MatchCounts> {
  const settings = await settingsOf(tx, scope);
  const run: MatchRun = { ctx, tx, scope, settings, now: ctx.clock.now(), today: todayOf(ctx), events: [] };
  const counts: MatchCounts = { matched: 0, ambiguous: 0 };
  for (let at = 0; at < ids.length; at += CHUNK) {
    const chunk = await matchChunk(run, ids.slice(at, at + CHUNK));
    counts.matched += chunk.matched;
    counts.ambiguous += chunk.ambiguous;
  }
  await emitEvents(ctx, tx, run.events);
  if (counts.matched > 0 || counts.ambiguous > 0) {
    audit.push({
      platformId: scope.platformId,
      companyId: scope.companyId,
      type: 'reconciliation.matched',
      ...describe(counts),
    });
  }
  return counts;
}

/** What every chunk of one matching run shares; `events` collects the outbox events of all of them. */
export type MatchRun = {
  ctx: AppContext;
  tx: Tx;
  scope: CompanyScope;
  settings: MatchSettings;
  now: Date;
  today: string;
  events: OutboxEvent[];
};

type MatchOutcome = ReturnType<typeof matchReceivables>;
type MatchInsert = Parameters<typeof insertMatches>[1][number];
export type ExpectedSum = { matched: bigint; settled: boolean };
/** What a match row names as its matched side: an incoming payment, or a statement debit (docs/adr/0077). */
export type MatchSide = Pick<MatchInsert, 'incomingPaymentId' | 'unmatchedEntryId' | 'entryDocumentId' | 'entryIndex'>;

/** One chunk of incoming payments: matched against the open expected payments it has currencies for. */
async function matchChunk(run: MatchRun, ids: string[]): Promise<MatchCounts> {
  const { tx, scope } = run;
  const incoming = await incomingByIds(tx, scope, ids);
  const currencies = [...new Set(incoming.map((p) => p.currency))];
  const expected = await openExpected(tx, scope, currencies);
  if (expected.length === 0) return { matched: 0, ambiguous: 0 };
  const outcome = matchReceivables(incoming.map(creditOf), expected.map(candidateOf), run.settings);
  await setReviewNotes(
    tx,
    scope,
    outcome.ambiguous.map((a) => ({
      id: incoming[a.incoming]!.id,
      note: `ambiguous (${a.rule}): ${a.candidates.map((j) => expected[j]!.id).join(', ')}`,
    })),
  );
  const ambiguous = outcome.ambiguous.length;
  if (outcome.matches.length === 0) return { matched: 0, ambiguous };
  const expectedSums = new Map<number, ExpectedSum>();
  const incomingSums = new Map<number, bigint>();
  const rows = matchRows(run, { outcome, expected, expectedSums }, incoming, incomingSums, (p) => ({
    incomingPaymentId: p.id,
  }));
  await insertMatches(tx, rows);
  const expectedWrites = [...expectedSums].map(([j, sum]) => expectedWrite(run, expected[j]!, sum));
  // The statement's bank on each credit's event, as on incoming_payment.received (the bankKey filter).
  const banks = await statementBanks(tx, scope, [
    ...new Set([...incomingSums.keys()].map((i) => incoming[i]!.documentId)),
  ]);
  const incomingWrites = [...incomingSums].map(([i, sum]) =>
    incomingWrite(run, incoming[i]!, sum, rows, banks.get(incoming[i]!.documentId)),
  );
  await applyExpectedSums(tx, scope, expectedWrites, run.now);
  await applyIncomingSums(tx, scope, incomingWrites);
  return { matched: outcome.matches.length, ambiguous };
}

/** The match rows, adding each match to both sides' running sums (the matched side a credit or a debit entry). */
export function matchRows<S extends { matchedMinor: bigint }>(
  run: MatchRun,
  matched: { outcome: MatchOutcome; expected: ExpectedRow[]; expectedSums: Map<number, ExpectedSum> },
  sides: S[],
  sideSums: Map<number, bigint>,
  sideOf: (side: S) => MatchSide,
): MatchInsert[] {
  const { ctx, scope, now } = run;
  const { outcome, expected, expectedSums } = matched;
  return outcome.matches.map((m) => {
    const e = expected[m.expected]!;
    const p = sides[m.incoming]!;
    const sum = expectedSums.get(m.expected) ?? { matched: e.matchedMinor, settled: e.settled };
    expectedSums.set(m.expected, { matched: sum.matched + m.amountMinor, settled: sum.settled || m.settles });
    sideSums.set(m.incoming, (sideSums.get(m.incoming) ?? p.matchedMinor) + m.amountMinor);
    return {
      id: ctx.ids.next('mat'),
      platformId: scope.platformId,
      companyId: scope.companyId,
      ...sideOf(p),
      expectedPaymentId: e.id,
      rule: m.rule,
      manual: false,
      settles: m.settles,
      amountMinor: m.amountMinor,
      amountDeltaMinor: m.amountDeltaMinor,
      daysDelta: m.daysDelta,
      actorUserId: null,
      reason: null,
      createdAt: now,
    };
  });
}

/** An expected payment's new sum and status (through its transition), with its event when it became reconciled. */
export function expectedWrite(run: MatchRun, e: ExpectedRow, sum: ExpectedSum) {
  const from = e.status as ExpectedPaymentStatus;
  const to = mustMove(
    expectedPaymentTransition,
    from,
    expectedStatusOf({ ...e, matchedMinor: sum.matched, settled: sum.settled }, run.today),
  );
  if (to === 'reconciled' && from !== 'reconciled')
    run.events.push(expectedEvent('expected_payment.reconciled', run.scope, e, sum.matched));
  // A partial payment booked after the window: overdue now, told once (docs/adr/0075).
  if (to === 'overdue' && from !== 'overdue')
    run.events.push(overdueEvent(run.scope, { ...e, matchedMinor: sum.matched, settled: sum.settled }, from));
  return { id: e.id, from, status: to, matchedMinor: sum.matched, settled: sum.settled };
}

/** An incoming payment's new sum and status (through its transition), and its `incoming_payment.matched` event. */
function incomingWrite(
  run: MatchRun,
  p: IncomingRow,
  sum: bigint,
  rows: MatchInsert[],
  bank: { bankKey: string | null; environment: string | null } | undefined,
) {
  const from = p.status as IncomingPaymentStatus;
  const to = mustMove(incomingPaymentTransition, from, incomingStatusOf({ ...p, matchedMinor: sum }));
  run.events.push({
    type: 'incoming_payment.matched',
    platformId: run.scope.platformId,
    companyId: run.scope.companyId,
    data: {
      incomingPaymentId: p.id,
      amount: p.amount,
      currency: p.currency,
      status: to,
      bankKey: bank?.bankKey ?? null,
      environment: bank?.environment ?? null,
      matches: rows
        .filter((r) => r.incomingPaymentId === p.id)
        .map((r) => ({
          id: r.id,
          expectedPaymentId: r.expectedPaymentId,
          rule: r.rule,
          amount: amountText(r.amountMinor, p.currency),
        })),
    },
  });
  return { id: p.id, from, status: to, matchedMinor: sum };
}

function expectedEvent(type: string, scope: CompanyScope, e: ExpectedRow, matchedMinor: bigint): OutboxEvent {
  return {
    type,
    platformId: scope.platformId,
    companyId: scope.companyId,
    data: {
      expectedPaymentId: e.id,
      direction: e.direction,
      amount: amountText(e.amountMinMinor, e.currency),
      matchedAmount: amountText(matchedMinor, e.currency),
      currency: e.currency,
      reference: e.referenceValue,
    },
  };
}
