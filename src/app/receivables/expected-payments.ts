import { randomInt } from 'node:crypto';
import type { CompanyScope } from '../../db/executor.ts';
import {
  type ExpectedRow,
  findExpected,
  findIncoming,
  type IncomingRow,
  insertExpected,
  listExpected,
  listIncoming,
  liveMatches,
  type MatchRow,
  putSettings,
  updateExpected,
} from '../../db/repositories/receivables.ts';
import {
  EXPECTED_PAYMENT_STATUSES,
  type ExpectedPaymentStatus,
  expectedPaymentTransition,
  INCOMING_PAYMENT_STATUSES,
  type IncomingPaymentStatus,
  mustMove,
} from '../../domain/lifecycle/index.ts';
import { parsePlainDecimal } from '../../domain/money/decimal.ts';
import { amountText, checkExpected, type ExpectedInput, type Issue } from '../../domain/receivables/expected.ts';
import {
  generateReference,
  type ReferenceType,
  validateReference,
} from '../../domain/references/creditor-reference.ts';
import type { AppContext } from '../context.ts';
import { AppError, notFound } from '../errors.ts';
import { emitEvents } from '../events/outbox.ts';
import { requireCompanyMember } from '../identity/access.ts';
import { companyScope } from '../identity/company-scope.ts';
import type { Principal } from '../identity/principal.ts';
import { decodeCursor, page } from '../pagination.ts';
import { settingsOf } from './match.ts';
import { matchNewExpected } from './match-expected.ts';
import { moveOverdue, overdueEvent, todayOf } from './overdue.ts';

const invalid = (issues: Issue[]) =>
  new AppError('validation_failed', issues.map((i) => `${i.path}: ${i.message}`).join('; '), { issues });

/** A member of the company (session), its platform's key, or a token of a user who administers it. */
export async function receivablesScope(
  ctx: AppContext,
  principal: Principal,
  companyId: string,
): Promise<CompanyScope> {
  const scope = await companyScope(ctx, principal, companyId);
  if (principal.kind === 'session') requireCompanyMember(principal, scope.platformId, companyId);
  return scope;
}

/** A base for a reference the customer has none for: 10 random digits, no leading zero. */
const drawBase = () => `${randomInt(1, 10)}${String(randomInt(0, 1_000_000_000)).padStart(9, '0')}`;

/** POST /references: a reference with valid check digits, on the customer's base or a drawn one. */
export async function issueReference(
  ctx: AppContext,
  principal: Principal,
  body: {
    companyId: string;
    type: ReferenceType;
    base?: string | undefined;
    ocrLengthDigit?: boolean | undefined;
    kidAlgorithm?: 'MOD10' | 'MOD11' | undefined;
  },
) {
  await receivablesScope(ctx, principal, body.companyId);
  const options = {
    ...(body.ocrLengthDigit ? { ocrLengthDigit: true } : {}),
    ...(body.kidAlgorithm ? { kidAlgorithm: body.kidAlgorithm } : {}),
  };
  const g = generateReference(body.type, body.base ?? drawBase(), options);
  if (!g.ok) throw invalid([{ path: 'base', message: g.reason }]);
  return { type: body.type, value: g.value, printed: g.printed };
}

/** GET /references/validate: whether a reference's check digits hold, its normalised form, and why not. */
export function checkReference(query: {
  type: ReferenceType;
  value: string;
  ocrLengthDigit?: boolean | undefined;
  kidAlgorithm?: 'MOD10' | 'MOD11' | undefined;
}) {
  return validateReference(query.type, query.value, {
    ...(query.ocrLengthDigit ? { ocrLengthDigit: true } : {}),
    ...(query.kidAlgorithm ? { kidAlgorithm: query.kidAlgorithm } : {}),
  });
}

/** A match as the receivables routes answer it. */
export function matchView(m: MatchRow, currency: string) {
  return {
    id: m.id,
    rule: m.rule,
    manual: m.manual,
    amount: amountText(m.amountMinor, currency),
    amountDelta: amountText(m.amountDeltaMinor, currency),
    daysDelta: m.daysDelta,
    // The matched side: a credit, or a statement debit for a debit expected payment (docs/adr/0077).
    ...(m.unmatchedEntryId === null
      ? { incomingPaymentId: m.incomingPaymentId! }
      : { entry: { documentId: m.entryDocumentId!, entryIndex: m.entryIndex } }),
    expectedPaymentId: m.expectedPaymentId,
    actorUserId: m.actorUserId,
    reason: m.reason,
    createdAt: m.createdAt.toISOString(),
  };
}

export function expectedView(e: ExpectedRow, matches: MatchRow[]) {
  const exact = e.amountMinMinor === e.amountMaxMinor;
  const open = e.settled || e.matchedMinor >= e.amountMinMinor ? 0n : e.amountMinMinor - e.matchedMinor;
  return {
    id: e.id,
    companyId: e.companyId,
    direction: e.direction,
    amount: exact ? amountText(e.amountMinMinor, e.currency) : null,
    amountMin: amountText(e.amountMinMinor, e.currency),
    amountMax: amountText(e.amountMaxMinor, e.currency),
    currency: e.currency,
    dateFrom: e.dateFrom,
    dateTo: e.dateTo,
    counterparty: { name: e.counterpartyName, iban: e.counterpartyIban, accountOther: e.counterpartyOther },
    reference: e.referenceType === null ? null : { type: e.referenceType, value: e.referenceValue },
    remittanceContains: e.remittanceContains,
    metadata: e.metadata,
    status: e.status,
    matchedAmount: amountText(e.matchedMinor, e.currency),
    openAmount: amountText(open, e.currency),
    matches: matches.map((m) => matchView(m, e.currency)),
    createdAt: e.createdAt.toISOString(),
    updatedAt: e.updatedAt.toISOString(),
  };
}

/** POST /expected-payments. */
export async function createExpected(
  ctx: AppContext,
  principal: Principal,
  body: ExpectedInput & { companyId: string },
) {
  const scope = await receivablesScope(ctx, principal, body.companyId);
  const checked = checkExpected(body);
  if (!checked.ok) throw invalid(checked.issues);
  const f = checked.fields;
  let referenceValue = f.referenceValue;
  if (f.generate !== null) {
    const g = generateReference(f.generate, drawBase());
    if (!g.ok) throw new Error(g.reason);
    referenceValue = g.value;
  }
  const now = ctx.clock.now();
  const today = todayOf(ctx);
  const row = await ctx.db.transaction(async (tx) => {
    const inserted = await insertExpected(tx, {
      id: ctx.ids.next('exp'),
      ...scope,
      direction: f.direction,
      amountMinMinor: f.amountMinMinor,
      amountMaxMinor: f.amountMaxMinor,
      currency: f.currency,
      dateFrom: f.dateFrom,
      dateTo: f.dateTo,
      counterpartyName: f.counterpartyName,
      counterpartyIban: f.counterpartyIban,
      counterpartyOther: f.counterpartyOther,
      referenceType: f.referenceType,
      referenceValue,
      remittanceContains: f.remittanceContains,
      metadata: f.metadata,
      status: today > f.dateTo ? 'overdue' : 'unreconciled',
      createdAt: now,
      updatedAt: now,
    });
    // Created with its window passed: overdue from the start, and told so like any other.
    if (inserted.status === 'overdue') await emitEvents(ctx, tx, [overdueEvent(scope, inserted, 'unreconciled')]);
    // Its credit may have arrived already: matched now, as a statement's credits are.
    const outcome = await matchNewExpected(ctx, tx, scope, inserted);
    return outcome.matched > 0 ? ((await findExpected(tx, scope, inserted.id)) ?? inserted) : inserted;
  });
  return expectedView(row, await liveMatches(ctx.db, scope, { expectedIds: [row.id] }));
}

export async function getExpected(ctx: AppContext, principal: Principal, id: string, companyId: string) {
  const scope = await receivablesScope(ctx, principal, companyId);
  await ctx.db.transaction((tx) => moveOverdue(ctx, tx, scope));
  const row = await findExpected(ctx.db, scope, id);
  if (!row) throw notFound('expected payment');
  return expectedView(row, await liveMatches(ctx.db, scope, { expectedIds: [row.id] }));
}

export async function listExpectedPayments(
  ctx: AppContext,
  principal: Principal,
  query: { companyId: string; status?: string | undefined; cursor?: string | undefined; limit?: number | undefined },
) {
  const scope = await receivablesScope(ctx, principal, query.companyId);
  if (query.status !== undefined && !(EXPECTED_PAYMENT_STATUSES as readonly string[]).includes(query.status))
    throw invalid([{ path: 'status', message: EXPECTED_PAYMENT_STATUSES.join(', ') }]);
  await ctx.db.transaction((tx) => moveOverdue(ctx, tx, scope));
  const limit = query.limit ?? 100;
  const rows = await listExpected(ctx.db, scope, {
    status: query.status as ExpectedPaymentStatus | undefined,
    after: decodeCursor(query.cursor),
    limit: limit + 1,
  });
  const result = page(rows, limit);
  const matches = await liveMatches(ctx.db, scope, { expectedIds: result.items.map((r) => r.id) });
  return {
    items: result.items.map((r) =>
      expectedView(
        r,
        matches.filter((m) => m.expectedPaymentId === r.id),
      ),
    ),
    nextCursor: result.nextCursor,
  };
}

/** PATCH /expected-payments/{id}: amounts, window and metadata, while nothing matched it. */
export async function patchExpected(
  ctx: AppContext,
  principal: Principal,
  id: string,
  body: ExpectedInput & { companyId: string },
) {
  const scope = await receivablesScope(ctx, principal, body.companyId);
  const row = await findExpected(ctx.db, scope, id);
  if (!row) throw notFound('expected payment');
  if ((row.status !== 'unreconciled' && row.status !== 'overdue') || row.matchedMinor > 0n)
    throw new AppError('conflict', `an expected payment that is ${row.status} or has matches cannot be changed`);
  const merged: ExpectedInput = {
    direction: row.direction,
    currency: row.currency,
    ...(body.amount === undefined && body.amountMin === undefined
      ? row.amountMinMinor === row.amountMaxMinor
        ? { amount: amountText(row.amountMinMinor, row.currency) }
        : {
            amountMin: amountText(row.amountMinMinor, row.currency),
            amountMax: amountText(row.amountMaxMinor, row.currency),
          }
      : { amount: body.amount, amountMin: body.amountMin, amountMax: body.amountMax }),
    dateFrom: body.dateFrom ?? row.dateFrom,
    dateTo: body.dateTo ?? row.dateTo,
    metadata: body.metadata ?? row.metadata,
  };
  const checked = checkExpected(merged);
  if (!checked.ok) throw invalid(checked.issues);
  const f = checked.fields;
  const today = todayOf(ctx);
  const from = row.status as ExpectedPaymentStatus;
  const to = mustMove(expectedPaymentTransition, from, today > f.dateTo ? 'overdue' : 'unreconciled');
  const updated = await ctx.db.transaction(async (tx) => {
    const row = await updateExpected(tx, scope, id, from, {
      amountMinMinor: f.amountMinMinor,
      amountMaxMinor: f.amountMaxMinor,
      dateFrom: f.dateFrom,
      dateTo: f.dateTo,
      metadata: f.metadata,
      status: to,
      updatedAt: ctx.clock.now(),
    });
    if (!row) throw new AppError('conflict', 'the expected payment changed meanwhile; read it again');
    // A window moved into the past: overdue now, told once (docs/adr/0075).
    if (to === 'overdue' && from !== 'overdue') await emitEvents(ctx, tx, [overdueEvent(scope, row, from)]);
    // A new amount or window may fit a credit that arrived already.
    const outcome = await matchNewExpected(ctx, tx, scope, row);
    return outcome.matched > 0 ? ((await findExpected(tx, scope, row.id)) ?? row) : row;
  });
  return expectedView(updated, await liveMatches(ctx.db, scope, { expectedIds: [id] }));
}

/** POST /expected-payments/{id}/archive: final; a payment still open is archived with its matches kept. */
export async function archiveExpected(ctx: AppContext, principal: Principal, id: string, companyId: string) {
  const scope = await receivablesScope(ctx, principal, companyId);
  const row = await findExpected(ctx.db, scope, id);
  if (!row) throw notFound('expected payment');
  const from = row.status as ExpectedPaymentStatus;
  const t = expectedPaymentTransition(from, 'archived');
  if (!t.ok) throw new AppError('conflict', t.reason);
  const updated = await updateExpected(ctx.db, scope, id, from, { status: 'archived', updatedAt: ctx.clock.now() });
  if (!updated) throw new AppError('conflict', 'the expected payment changed meanwhile; read it again');
  return expectedView(updated, await liveMatches(ctx.db, scope, { expectedIds: [id] }));
}

export function incomingView(p: IncomingRow, matches: MatchRow[]) {
  return {
    id: p.id,
    companyId: p.companyId,
    status: p.status,
    amount: p.amount,
    currency: p.currency,
    matchedAmount: amountText(p.matchedMinor, p.currency),
    openAmount: amountText(p.amountMinor - p.matchedMinor, p.currency),
    bookingDate: p.bookingDate,
    valueDate: p.valueDate,
    counterparty: { name: p.counterpartyName, iban: p.counterpartyIban },
    reference: p.reference,
    endToEndId: p.endToEndId,
    remittance: p.remittance,
    entry: { documentId: p.documentId, entryIndex: p.entryIndex, bankRef: p.bankRef },
    matches: matches.map((m) => matchView(m, p.currency)),
    // What reversed it (docs/adr/0076): the statement entry, the reason, the matches it released.
    returned: p.returnEvidence ?? null,
    createdAt: p.createdAt.toISOString(),
  };
}

export async function listIncomingPayments(
  ctx: AppContext,
  principal: Principal,
  query: { companyId: string; status?: string | undefined; cursor?: string | undefined; limit?: number | undefined },
) {
  const scope = await receivablesScope(ctx, principal, query.companyId);
  if (query.status !== undefined && !(INCOMING_PAYMENT_STATUSES as readonly string[]).includes(query.status))
    throw invalid([{ path: 'status', message: INCOMING_PAYMENT_STATUSES.join(', ') }]);
  const limit = query.limit ?? 100;
  const rows = await listIncoming(ctx.db, scope, {
    status: query.status as IncomingPaymentStatus | undefined,
    after: decodeCursor(query.cursor),
    limit: limit + 1,
  });
  const result = page(rows, limit);
  const matches = await liveMatches(ctx.db, scope, { incomingIds: result.items.map((r) => r.id) });
  return {
    items: result.items.map((r) =>
      incomingView(
        r,
        matches.filter((m) => m.incomingPaymentId === r.id),
      ),
    ),
    nextCursor: result.nextCursor,
  };
}

export async function getIncoming(ctx: AppContext, principal: Principal, id: string, companyId: string) {
  const scope = await receivablesScope(ctx, principal, companyId);
  const row = await findIncoming(ctx.db, scope, id);
  if (!row) throw notFound('incoming payment');
  return incomingView(row, await liveMatches(ctx.db, scope, { incomingIds: [row.id] }));
}

/** PUT /reconciliation/settings: tolerance (absolute and percent, decimal strings) and window days. */
export async function putReconciliationSettings(
  ctx: AppContext,
  principal: Principal,
  body: { companyId: string; toleranceAmount: string; tolerancePercent: string; windowDays: number },
) {
  const scope = await receivablesScope(ctx, principal, body.companyId);
  const issues: Issue[] = [];
  const amount = parsePlainDecimal(body.toleranceAmount);
  if (!amount || amount.units < 0n) issues.push({ path: 'toleranceAmount', message: 'a decimal string, 0 or more' });
  const percent = parsePlainDecimal(body.tolerancePercent);
  if (!percent || percent.units < 0n || percent.units > 100n * 10n ** BigInt(percent.scale))
    issues.push({ path: 'tolerancePercent', message: 'a decimal string from 0 to 100' });
  if (issues.length > 0) throw invalid(issues);
  const s = {
    toleranceAmount: body.toleranceAmount,
    tolerancePercent: body.tolerancePercent,
    windowDays: body.windowDays,
  };
  await putSettings(ctx.db, scope, s, ctx.clock.now());
  return { companyId: body.companyId, ...(await ctx.db.transaction((tx) => settingsOf(tx, scope))) };
}
