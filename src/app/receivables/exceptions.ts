import type { CompanyScope, Tx } from '../../db/executor.ts';
import {
  applyExpectedSums,
  applyIncomingSums,
  type ExpectedRow,
  expectedByIds,
  findMatch,
  type IncomingRow,
  incomingByIds,
  insertMatches,
  type MatchRow,
  markOverdue,
  markUnmatched,
  nearestExpected,
  nearestIncoming,
  openIncoming,
  overdueExpected,
} from '../../db/repositories/receivables.ts';
import {
  type ExpectedPaymentStatus,
  expectedPaymentTransition,
  expectedStatusOf,
  type IncomingPaymentStatus,
  incomingPaymentTransition,
  incomingStatusOf,
} from '../../domain/lifecycle/index.ts';
import { amountText } from '../../domain/receivables/expected.ts';
import { explainPair, nearest } from '../../domain/receivables/explain.ts';
import type { MatchSettings } from '../../domain/receivables/matcher.ts';
import { recordEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import { AppError, forbidden, notFound } from '../errors.ts';
import { emitEvents } from '../events/outbox.ts';
import { assertPlatform } from '../identity/access.ts';
import { companyScope } from '../identity/company-scope.ts';
import type { Principal } from '../identity/principal.ts';
import { decodeCursor, encodeCursor } from '../pagination.ts';
import { receivablesScope } from './expected-payments.ts';
import { candidateOf, creditOf, settingsOf, todayOf } from './match.ts';

const KINDS = ['unmatched-incoming', 'ambiguous', 'overdue-expected'] as const;
type Kind = (typeof KINDS)[number];
const CANDIDATES = 5;
/** Open rows read per subject to pick the nearest candidates from. */
const CANDIDATE_POOL = 25;

/** Who acts: a session of an admin or approver of the company, or an API key of its platform. */
async function actorScope(ctx: AppContext, principal: Principal, companyId: string) {
  const scope = await companyScope(ctx, principal, companyId);
  if (principal.kind === 'key') return { scope, actorUserId: null, actor: `key ${principal.keyId}` };
  if (principal.kind !== 'session') throw forbidden('a session or an API key');
  assertPlatform(principal, scope.platformId);
  const u = principal.user;
  const member = u.workspaceAdmin || u.companyId === companyId;
  if (!member || !(u.workspaceAdmin || u.roles.includes('admin') || u.roles.includes('approver')))
    throw forbidden('an admin or approver of the company');
  return { scope, actorUserId: u.id, actor: `user ${u.id}` };
}

const invalid = (path: string, message: string) =>
  new AppError('validation_failed', `${path}: ${message}`, { issues: [{ path, message }] });

function candidateView(ref: string, currency: string, x: ReturnType<typeof explainPair>) {
  return {
    ref,
    amountDelta: amountText(x.amountDeltaMinor, currency),
    daysDelta: x.daysDelta,
    referenceMatch: x.referenceMatch,
    why: x.why.join('; '),
  };
}

type ExceptionItem = {
  kind: Kind;
  subject: Record<string, unknown>;
  candidates: ReturnType<typeof candidateView>[];
  since: string;
  id: string;
};
type ItemPage = { after: string | undefined; limit: number };

/** Overdue expected payments, each with the nearest incoming payments and why they did not match. */
async function overdueItems(
  ctx: AppContext,
  scope: CompanyScope,
  settings: MatchSettings,
  page: ItemPage,
  items: ExceptionItem[],
): Promise<void> {
  for (const e of await overdueExpected(ctx.db, scope, page)) {
    const need = e.amountMinMinor - e.matchedMinor;
    const pool = await nearestIncoming(ctx.db, scope, {
      currency: e.currency,
      amountMinor: need,
      limit: CANDIDATE_POOL,
    });
    const explained = pool.map((p) => ({ p, explained: explainPair(creditOf(p), candidateOf(e), settings) }));
    items.push({
      kind: 'overdue-expected',
      id: e.id,
      subject: {
        expectedPaymentId: e.id,
        amount: amountText(e.amountMinMinor, e.currency),
        openAmount: amountText(need, e.currency),
        currency: e.currency,
        dateTo: e.dateTo,
        reference: e.referenceValue,
      },
      candidates: nearest(explained, CANDIDATES).map((c) => candidateView(c.p.id, e.currency, c.explained)),
      since: e.dateTo,
    });
  }
}

/** Unmatched or ambiguous credits, each with the nearest expected payments and why they did not match. */
async function incomingItems(
  ctx: AppContext,
  scope: CompanyScope,
  settings: MatchSettings,
  kind: Kind,
  page: ItemPage,
  items: ExceptionItem[],
): Promise<void> {
  const rows = await openIncoming(ctx.db, scope, { ambiguous: kind === 'ambiguous', ...page });
  for (const p of rows) {
    const open = p.amountMinor - p.matchedMinor;
    const pool = await nearestExpected(ctx.db, scope, {
      currency: p.currency,
      amountMinor: open,
      reference: p.reference,
      limit: CANDIDATE_POOL,
    });
    const explained = pool.map((e) => ({ e, explained: explainPair(creditOf(p), candidateOf(e), settings) }));
    items.push({
      kind,
      id: p.id,
      subject: {
        incomingPaymentId: p.id,
        amount: p.amount,
        openAmount: amountText(open, p.currency),
        currency: p.currency,
        bookingDate: p.bookingDate,
        counterparty: { name: p.counterpartyName, iban: p.counterpartyIban },
        reference: p.reference,
        remittance: p.remittance,
        note: p.reviewNote,
        entry: { documentId: p.documentId, entryIndex: p.entryIndex },
      },
      candidates: nearest(explained, CANDIDATES).map((c) => candidateView(c.e.id, p.currency, c.explained)),
      since: p.createdAt.toISOString(),
    });
  }
}

/**
 * GET /reconciliation/exceptions: what needs a person, each with its nearest candidates and why each
 * did not match. Kinds in this order: credits nothing matched, credits with an ambiguous candidate set,
 * overdue expected payments; keyset on (kind, id).
 */
export async function listExceptions(
  ctx: AppContext,
  principal: Principal,
  query: { companyId: string; kind?: string | undefined; cursor?: string | undefined; limit?: number | undefined },
) {
  const scope = await receivablesScope(ctx, principal, query.companyId);
  if (query.kind !== undefined && !(KINDS as readonly string[]).includes(query.kind))
    throw invalid('kind', KINDS.join(', '));
  const limit = query.limit ?? 50;
  const cursor = decodeCursor(query.cursor);
  const [fromKind, afterId] = cursor ? (cursor.split('|') as [Kind, string]) : [undefined, undefined];
  await markOverdue(ctx.db, scope, todayOf(ctx), ctx.clock.now());
  const settings = await ctx.db.transaction((tx) => settingsOf(tx, scope));
  const items: ExceptionItem[] = [];
  const kinds = (query.kind ? [query.kind as Kind] : [...KINDS]).filter(
    (k) => fromKind === undefined || KINDS.indexOf(k) >= KINDS.indexOf(fromKind),
  );
  for (const kind of kinds) {
    if (items.length > limit) break;
    const page = { after: kind === fromKind ? afterId : undefined, limit: limit + 1 - items.length };
    if (kind === 'overdue-expected') await overdueItems(ctx, scope, settings, page, items);
    else await incomingItems(ctx, scope, settings, kind, page, items);
  }
  const page = items.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map(({ id: _id, ...item }) => item),
    nextCursor: items.length > limit && last ? encodeCursor(`${last.kind}|${last.id}`) : null,
  };
}

type Sides = { expected: ExpectedRow[]; incoming: IncomingRow };

/** Both sides' new sums and statuses through their transition functions; refuses what they refuse. */
async function applySums(
  ctx: AppContext,
  tx: Tx,
  scope: CompanyScope,
  sides: Sides,
  change: { expected: Map<string, { delta: bigint; settled: boolean | null }>; incomingDelta: bigint },
) {
  const today = todayOf(ctx);
  const writes = sides.expected.map((e) => {
    const c = change.expected.get(e.id)!;
    const matchedMinor = e.matchedMinor + c.delta;
    const settled = c.settled ?? e.settled;
    const from = e.status as ExpectedPaymentStatus;
    const to = expectedStatusOf({ ...e, matchedMinor, settled }, today);
    const t = expectedPaymentTransition(from, to);
    if (!t.ok) throw new AppError('conflict', t.reason);
    return { id: e.id, from, status: t.to, matchedMinor, settled };
  });
  const p = sides.incoming;
  const matchedMinor = p.matchedMinor + change.incomingDelta;
  const from = p.status as IncomingPaymentStatus;
  const t = incomingPaymentTransition(from, incomingStatusOf({ ...p, matchedMinor }));
  if (!t.ok) throw new AppError('conflict', t.reason);
  await applyExpectedSums(tx, scope, writes, ctx.clock.now());
  await applyIncomingSums(tx, scope, [{ id: p.id, from, status: t.to, matchedMinor }]);
  return { expected: writes, incoming: t.to };
}

function matchView(m: MatchRow, currency: string) {
  return {
    id: m.id,
    rule: m.rule,
    manual: m.manual,
    amount: amountText(m.amountMinor, currency),
    amountDelta: amountText(m.amountDeltaMinor, currency),
    daysDelta: m.daysDelta,
    incomingPaymentId: m.incomingPaymentId,
    expectedPaymentId: m.expectedPaymentId,
    actorUserId: m.actorUserId,
    reason: m.reason,
    createdAt: m.createdAt.toISOString(),
    unmatchedAt: m.unmatchedAt?.toISOString() ?? null,
    unmatchReason: m.unmatchReason,
  };
}

/**
 * The credit's open amount to the expected payments in the order given, each up to what it still takes;
 * returns the match rows, each side's change and what is left of the credit.
 */
async function manualRows(
  ctx: AppContext,
  tx: Tx,
  scope: CompanyScope,
  p: IncomingRow,
  expected: ExpectedRow[],
  reason: string,
  actorUserId: string | null,
) {
  let open = p.amountMinor - p.matchedMinor;
  const now = ctx.clock.now();
  const rows = [];
  const change = new Map<string, { delta: bigint; settled: boolean | null }>();
  for (const e of expected) {
    if (e.currency !== p.currency)
      throw new AppError('conflict', `${e.id} is in ${e.currency}, the credit in ${p.currency}`);
    const room = e.settled || e.status === 'archived' ? 0n : e.amountMaxMinor - e.matchedMinor;
    if (room <= 0n) throw new AppError('conflict', `${e.id} takes no more`);
    if (open <= 0n) throw new AppError('conflict', `the credit is used up before ${e.id}`);
    const amount = open < room ? open : room;
    const c = candidateOf(e);
    const explained = explainPair(creditOf(p), c, await settingsOf(tx, scope));
    rows.push({
      id: ctx.ids.next('mat'),
      ...scope,
      incomingPaymentId: p.id,
      expectedPaymentId: e.id,
      rule: 'manual',
      manual: true,
      settles: false,
      amountMinor: amount,
      amountDeltaMinor: explained.amountDeltaMinor,
      daysDelta: explained.daysDelta,
      actorUserId,
      reason,
      createdAt: now,
    });
    change.set(e.id, { delta: amount, settled: null });
    open -= amount;
  }
  return { rows, change, left: open };
}

/**
 * POST /reconciliation/matches: a person says "this is the one". The credit's open amount goes to the
 * expected payments in the order given, each up to what it still takes (its most); one match each,
 * `manual`, rule `manual`, with the reason and the actor. 409 conflict when a side takes nothing more.
 */
export async function manualMatch(
  ctx: AppContext,
  principal: Principal,
  body: {
    companyId: string;
    incomingPaymentId?: string | undefined;
    expectedPaymentIds?: string[] | undefined;
    reason: string;
    entry?: unknown;
    outboundLines?: unknown;
  },
) {
  const { scope, actorUserId, actor } = await actorScope(ctx, principal, body.companyId);
  if (body.entry !== undefined || body.outboundLines !== undefined)
    throw invalid('entry', 'outbound lines and statement entries are matched by the returns flow, not here');
  if (!body.incomingPaymentId) throw invalid('incomingPaymentId', 'required');
  const ids = [...new Set(body.expectedPaymentIds ?? [])];
  if (ids.length === 0) throw invalid('expectedPaymentIds', 'at least one');
  const incomingId = body.incomingPaymentId;
  return ctx.db.transaction(async (tx) => {
    const [p] = await incomingByIds(tx, scope, [incomingId]);
    if (!p) throw notFound('incoming payment');
    const found = await expectedByIds(tx, scope, ids);
    if (found.length !== ids.length) throw notFound('expected payment');
    const expected = ids.map((id) => found.find((e) => e.id === id)!);
    if (p.status === 'returned' || p.amountMinor - p.matchedMinor <= 0n)
      throw new AppError('conflict', 'the incoming payment has nothing left to match');
    const { rows, change, left } = await manualRows(ctx, tx, scope, p, expected, body.reason, actorUserId);
    await insertMatches(tx, rows);
    await applySums(
      ctx,
      tx,
      scope,
      { expected, incoming: p },
      { expected: change, incomingDelta: p.amountMinor - p.matchedMinor - left },
    );
    const views = rows.map((r) =>
      matchView({ ...r, unmatchedAt: null, unmatchedBy: null, unmatchReason: null }, p.currency),
    );
    await emitEvents(ctx, tx, [
      {
        type: 'reconciliation.manual_match',
        platformId: scope.platformId,
        companyId: scope.companyId,
        data: { incomingPaymentId: p.id, matches: views, reason: body.reason, actorUserId },
      },
    ]);
    await recordEvent(ctx, tx, {
      ...scope,
      type: 'reconciliation.manual_match',
      actorUserId,
      message: `${actor} matched ${p.id} to ${ids.join(', ')}: ${body.reason}`,
      metadata: {
        incomingPaymentId: p.id,
        expectedPaymentIds: ids,
        matchIds: rows.map((r) => r.id),
        reason: body.reason,
        actor,
      },
    });
    return { matches: views };
  });
}

/** DELETE /reconciliation/matches/{id}: undoes a match (manual or automatic); both sides return to the queue. */
export async function unmatch(
  ctx: AppContext,
  principal: Principal,
  id: string,
  body: { companyId: string; reason: string },
) {
  const { scope, actorUserId, actor } = await actorScope(ctx, principal, body.companyId);
  return ctx.db.transaction(async (tx) => {
    const m = await findMatch(tx, scope, id);
    if (!m) throw notFound('match');
    if (m.unmatchedAt !== null) throw new AppError('conflict', 'the match was already undone');
    const [p] = await incomingByIds(tx, scope, [m.incomingPaymentId]);
    const [e] = await expectedByIds(tx, scope, [m.expectedPaymentId]);
    if (!p || !e) throw notFound('match');
    if (e.status === 'archived') throw new AppError('conflict', 'the expected payment is archived');
    const done = await markUnmatched(tx, scope, id, { actor, reason: body.reason, at: ctx.clock.now() });
    if (!done) throw new AppError('conflict', 'the match was already undone');
    await applySums(
      ctx,
      tx,
      scope,
      { expected: [e], incoming: p },
      {
        expected: new Map([[e.id, { delta: -m.amountMinor, settled: m.settles ? false : null }]]),
        incomingDelta: -m.amountMinor,
      },
    );
    const view = matchView(done, p.currency);
    await emitEvents(ctx, tx, [
      {
        type: 'reconciliation.unmatched',
        platformId: scope.platformId,
        companyId: scope.companyId,
        data: { match: view, reason: body.reason, actorUserId },
      },
    ]);
    await recordEvent(ctx, tx, {
      ...scope,
      type: 'reconciliation.unmatched',
      actorUserId,
      message: `${actor} unmatched ${m.id} (${p.id} from ${e.id}): ${body.reason}`,
      metadata: { matchId: m.id, incomingPaymentId: p.id, expectedPaymentId: e.id, reason: body.reason, actor },
    });
    return view;
  });
}
