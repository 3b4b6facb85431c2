import type { CompanyScope, Tx } from '../../db/executor.ts';
import {
  creditsReversedBy,
  type DebitReversal,
  debitReversalsOf,
  markReturned,
  resolveReversal,
} from '../../db/repositories/incoming-reversals.ts';
import {
  applyExpectedSums,
  expectedByIds,
  type IncomingRow,
  liveMatches,
  markUnmatched,
} from '../../db/repositories/receivables.ts';
import type { ReturnEvidence } from '../../db/schema/index.ts';
import {
  type ExpectedPaymentStatus,
  expectedPaymentTransition,
  expectedStatusOf,
  type IncomingPaymentStatus,
  incomingPaymentTransition,
  mustMove,
} from '../../domain/lifecycle/index.ts';
import { amountText } from '../../domain/receivables/expected.ts';
import { RETURN_WINDOW_DAYS } from '../../domain/recon/match-entries.ts';
import type { AuditEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import { emitEvents, type OutboxEvent } from '../events/outbox.ts';
import { overdueEvent, todayOf } from './overdue.ts';

/** Who releases a reversed credit's matches, as the match rows name it (`unmatched_by`). */
const RELEASED_BY = 'reversal';

/** An identifier that names a payment: NOTPROVIDED (EPC AT-41) names none. */
const identifier = (value: string | null) => (value === null || value === 'NOTPROVIDED' ? null : value);

type Found = { credit: IncomingRow; matchedBy: ReturnEvidence['matchedBy'] } | { note: string };

/**
 * The credit a debit reversal undoes (docs/adr/0076), in the order of the outbound returns
 * (docs/adr/0070): by end-to-end id when the reversal names one, and then by nothing else (an
 * identifier that is not one of our credits says the reversal is someone else's); failing an
 * identifier, by the original amount and counterparty account within RETURN_WINDOW_DAYS before it.
 * One candidate only: two is ambiguous and left for a person.
 */
async function creditOf(tx: Tx, scope: CompanyScope, r: DebitReversal): Promise<Found> {
  const endToEndId = identifier(r.endToEndId);
  const matchedBy: ReturnEvidence['matchedBy'] = endToEndId ? 'end-to-end-id' : 'amount-counterparty';
  const found = await creditsReversedBy(tx, scope, r, { endToEndId, days: RETURN_WINDOW_DAYS });
  if (found.length === 1) return { credit: found[0]!, matchedBy };
  if (found.length > 1) return { note: `ambiguous reversal (${matchedBy}): ${found.map((p) => p.id).join(', ')}` };
  return { note: '' };
}

/**
 * Reversed incoming payments (issue 39, "the same for an incoming payment that was reversed"): each of
 * this statement's debit reversals that points back to an incoming payment moves it to `returned`
 * through its transition function, releases what it had matched (each expected payment's sum back
 * down exactly, its status through its own transitions), keeps the entry as evidence, and emits
 * `incoming_payment.returned`; one audit event per statement. Runs after the credits are recorded, so
 * a statement that brings a credit and its reversal returns it. Once per reversal: a later statement's
 * copy is not recorded again (unmatched_entries), and a returned credit is final.
 */
export async function returnReversedCredits(
  ctx: AppContext,
  tx: Tx,
  scope: CompanyScope,
  input: { documentId: string; accountKey: string | null; bankKey: string | null; environment: string },
  audit: AuditEvent[],
): Promise<{ returned: number }> {
  if (input.accountKey === null) return { returned: 0 };
  const reversals = await debitReversalsOf(tx, scope, input.documentId);
  const now = ctx.clock.now();
  const today = todayOf(ctx);
  const events: OutboxEvent[] = [];
  const returned: { incomingPaymentId: string; entryId: number; matchedBy: string; reason: string }[] = [];
  for (const r of reversals) {
    const found = await creditOf(tx, scope, r);
    if (!('credit' in found)) {
      if (found.note) await resolveReversal(tx, scope, r.id, { note: found.note, documentId: null, at: now });
      continue;
    }
    const p = found.credit;
    const reason = r.returnReason ?? 'reversal';
    const { writes, released, kept } = await releaseMatches(tx, scope, p, { today, events });
    for (const m of released)
      await markUnmatched(tx, scope, m.id, { actor: RELEASED_BY, reason: `returned: ${reason}`, at: now });
    await applyExpectedSums(tx, scope, writes, now);
    const from = p.status as IncomingPaymentStatus;
    mustMove(incomingPaymentTransition, from, 'returned');
    const entry = { documentId: r.documentId, entryIndex: r.entryIndex, bankRef: r.bankRef };
    const evidence: ReturnEvidence = {
      rule: 'return',
      matchedBy: found.matchedBy,
      reason,
      amount: r.amount,
      bookingDate: r.bookingDate,
      entry,
      previousStatus: from,
      released: released.map((m) => ({
        matchId: m.id,
        expectedPaymentId: m.expectedPaymentId,
        amount: amountText(m.amountMinor, p.currency),
      })),
      returnedAt: now.toISOString(),
    };
    if (!(await markReturned(tx, scope, p.id, from, evidence, kept))) continue;
    await resolveReversal(tx, scope, r.id, {
      note: `reverses ${p.id} (${found.matchedBy})`,
      documentId: p.documentId,
      at: now,
    });
    returned.push({ incomingPaymentId: p.id, entryId: r.id, matchedBy: found.matchedBy, reason });
    events.push(returnedEvent(scope, { p, from, reason, matchedBy: found.matchedBy, entry, evidence, writes }, input));
  }
  await emitEvents(ctx, tx, events);
  if (returned.length > 0)
    audit.push({
      platformId: scope.platformId,
      companyId: scope.companyId,
      type: 'incoming_payment.returned',
      message: `${returned.length} incoming payments returned by the bank`,
      metadata: { documentId: input.documentId, returned },
      bankKey: input.bankKey,
      environment: input.environment,
    });
  return { returned: returned.length };
}

type ExpectedWrite = {
  id: string;
  from: ExpectedPaymentStatus;
  status: ExpectedPaymentStatus;
  matchedMinor: bigint;
  settled: boolean;
};

/**
 * What a returned credit gives back: each live match to a non-archived expected payment is released
 * (the expected payment's sum back down exactly, its status through its transition; overdue told once).
 * An archived expected payment is final: its match stays, and so does that part of the credit's sum.
 */
async function releaseMatches(
  tx: Tx,
  scope: CompanyScope,
  p: { id: string },
  run: { today: string; events: OutboxEvent[] },
) {
  const matches = await liveMatches(tx, scope, { incomingIds: [p.id] });
  const expected = await expectedByIds(tx, scope, [...new Set(matches.map((m) => m.expectedPaymentId))]);
  const archived = new Set(expected.filter((e) => e.status === 'archived').map((e) => e.id));
  const released = matches.filter((m) => !archived.has(m.expectedPaymentId));
  const kept = matches.filter((m) => archived.has(m.expectedPaymentId)).reduce((s, m) => s + m.amountMinor, 0n);
  const writes: ExpectedWrite[] = expected
    .filter((e) => !archived.has(e.id))
    .map((e) => {
      const mine = released.filter((m) => m.expectedPaymentId === e.id);
      const matchedMinor = e.matchedMinor - mine.reduce((s, m) => s + m.amountMinor, 0n);
      const settled = mine.some((m) => m.settles) ? false : e.settled;
      const from = e.status as ExpectedPaymentStatus;
      const to = mustMove(
        expectedPaymentTransition,
        from,
        expectedStatusOf({ ...e, matchedMinor, settled }, run.today),
      );
      if (to === 'overdue' && from !== 'overdue')
        run.events.push(overdueEvent(scope, { ...e, matchedMinor, settled }, from));
      return { id: e.id, from, status: to, matchedMinor, settled };
    });
  return { writes, released, kept };
}

/** The `incoming_payment.returned` event: the credit, the entry that reversed it, what was released. */
function returnedEvent(
  scope: CompanyScope,
  r: {
    p: { id: string; amount: string; currency: string; endToEndId: string | null };
    from: IncomingPaymentStatus;
    reason: string;
    matchedBy: string;
    entry: ReturnEvidence['entry'];
    evidence: ReturnEvidence;
    writes: ExpectedWrite[];
  },
  input: { bankKey: string | null; environment: string },
): OutboxEvent {
  return {
    type: 'incoming_payment.returned',
    platformId: scope.platformId,
    companyId: scope.companyId,
    data: {
      incomingPaymentId: r.p.id,
      status: 'returned',
      previousStatus: r.from,
      amount: r.p.amount,
      currency: r.p.currency,
      endToEndId: r.p.endToEndId,
      reason: r.reason,
      matchedBy: r.matchedBy,
      entry: r.entry,
      released: r.evidence.released.map((x) => ({
        ...x,
        status: r.writes.find((w) => w.id === x.expectedPaymentId)?.status ?? null,
      })),
      bankKey: input.bankKey,
      environment: input.environment,
    },
  };
}
