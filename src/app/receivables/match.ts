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
): Promise<{ matched: number; ambiguous: number }> {
  // A statement of a company that expects nothing costs one indexed lookup.
  if (!(await hasOpenExpected(tx, scope))) return { matched: 0, ambiguous: 0 };
  const settings = await settingsOf(tx, scope);
  const now = ctx.clock.now();
  const today = todayOf(ctx);
  let matched = 0;
  let ambiguous = 0;
  const events: OutboxEvent[] = [];
  for (let at = 0; at < ids.length; at += CHUNK) {
    const incoming = await incomingByIds(tx, scope, ids.slice(at, at + CHUNK));
    const currencies = [...new Set(incoming.map((p) => p.currency))];
    const expected = await openExpected(tx, scope, currencies);
    if (expected.length === 0) continue;
    const outcome = matchReceivables(incoming.map(creditOf), expected.map(candidateOf), settings);
    ambiguous += outcome.ambiguous.length;
    await setReviewNotes(
      tx,
      scope,
      outcome.ambiguous.map((a) => ({
        id: incoming[a.incoming]!.id,
        note: `ambiguous (${a.rule}): ${a.candidates.map((j) => expected[j]!.id).join(', ')}`,
      })),
    );
    if (outcome.matches.length === 0) continue;
    matched += outcome.matches.length;
    const expectedSums = new Map<number, { matched: bigint; settled: boolean }>();
    const incomingSums = new Map<number, bigint>();
    const rows = outcome.matches.map((m) => {
      const e = expected[m.expected]!;
      const p = incoming[m.incoming]!;
      const sum = expectedSums.get(m.expected) ?? { matched: e.matchedMinor, settled: e.settled };
      expectedSums.set(m.expected, { matched: sum.matched + m.amountMinor, settled: sum.settled || m.settles });
      incomingSums.set(m.incoming, (incomingSums.get(m.incoming) ?? p.matchedMinor) + m.amountMinor);
      return {
        id: ctx.ids.next('mat'),
        platformId: scope.platformId,
        companyId: scope.companyId,
        incomingPaymentId: p.id,
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
    await insertMatches(tx, rows);
    const expectedWrites = [...expectedSums].map(([j, sum]) => {
      const e = expected[j]!;
      const from = e.status as ExpectedPaymentStatus;
      const to = mustMove(
        expectedPaymentTransition,
        from,
        expectedStatusOf({ ...e, matchedMinor: sum.matched, settled: sum.settled }, today),
      );
      if (to === 'reconciled' && from !== 'reconciled')
        events.push(expectedEvent('expected_payment.reconciled', scope, e, sum.matched));
      // A partial payment booked after the window: overdue now, told once (docs/adr/0075).
      if (to === 'overdue' && from !== 'overdue')
        events.push(overdueEvent(scope, { ...e, matchedMinor: sum.matched, settled: sum.settled }, from));
      return { id: e.id, from, status: to, matchedMinor: sum.matched, settled: sum.settled };
    });
    // The statement's bank on each credit's event, as on incoming_payment.received (the bankKey filter).
    const banks = await statementBanks(tx, scope, [
      ...new Set([...incomingSums.keys()].map((i) => incoming[i]!.documentId)),
    ]);
    const incomingWrites = [...incomingSums].map(([i, sum]) => {
      const p = incoming[i]!;
      const from = p.status as IncomingPaymentStatus;
      const to = mustMove(incomingPaymentTransition, from, incomingStatusOf({ ...p, matchedMinor: sum }));
      events.push({
        type: 'incoming_payment.matched',
        platformId: scope.platformId,
        companyId: scope.companyId,
        data: {
          incomingPaymentId: p.id,
          amount: p.amount,
          currency: p.currency,
          status: to,
          bankKey: banks.get(p.documentId)?.bankKey ?? null,
          environment: banks.get(p.documentId)?.environment ?? null,
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
    });
    await applyExpectedSums(tx, scope, expectedWrites, now);
    await applyIncomingSums(tx, scope, incomingWrites);
  }
  await emitEvents(ctx, tx, events);
  if (matched > 0 || ambiguous > 0) {
    audit.push({
      platformId: scope.platformId,
      companyId: scope.companyId,
      type: 'reconciliation.matched',
      message: `${matched} receivable matches, ${ambiguous} ambiguous credits left for review`,
      metadata: { incomingPayments: ids.length, matched, ambiguous },
    });
  }
  return { matched, ambiguous };
}

function expectedEvent(type: string, scope: CompanyScope, e: ExpectedRow, matchedMinor: bigint): OutboxEvent {
  return {
    type,
    platformId: scope.platformId,
    companyId: scope.companyId,
    data: {
      expectedPaymentId: e.id,
      amount: amountText(e.amountMinMinor, e.currency),
      matchedAmount: amountText(matchedMinor, e.currency),
      currency: e.currency,
      reference: e.referenceValue,
    },
  };
}
