import { nearestOpenDebits } from '../../db/repositories/debit-entries.ts';
import {
  type ExpectedRow,
  nearestExpected,
  nearestIncoming,
  openIncoming,
  overdueExpected,
} from '../../db/repositories/receivables.ts';
import { amountText } from '../../domain/receivables/expected.ts';
import { explainPair, nearest } from '../../domain/receivables/explain.ts';
import type { MatchSettings } from '../../domain/receivables/matcher.ts';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import type { Principal } from '../identity/principal.ts';
import { decodeCursor, encodeCursor } from '../pagination.ts';
import { receivablesScope } from './expected-payments.ts';
import { candidateOf, creditOf, settingsOf } from './match.ts';
import { debitOf } from './match-debits.ts';
import { moveOverdue } from './overdue.ts';
import { unansweredItems } from './unanswered-outbound.ts';

const KINDS = ['unmatched-incoming', 'unanswered-outbound', 'ambiguous', 'overdue-expected'] as const;
type Kind = (typeof KINDS)[number];
const CANDIDATES = 5;
/** Open rows read per subject to pick the nearest candidates from. */
const CANDIDATE_POOL = 25;

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

type Item = {
  kind: Kind;
  subject: Record<string, unknown>;
  // An unanswered line's candidate debits name their entry: what a manual match takes (docs/adr/0076).
  candidates: (ReturnType<typeof candidateView> & { entry?: { documentId: string; entryIndex: number } })[];
  since: string;
  id: string;
};

/** What every kind's reader of one page shares. */
type PageRead = { ctx: AppContext; scope: ExceptionScope; settings: MatchSettings };
type ExceptionScope = Awaited<ReturnType<typeof receivablesScope>>;
type After = { after: string | undefined; limit: number };

/**
 * GET /reconciliation/exceptions: what needs a person, each with its nearest candidates and why each
 * did not match. Kinds in this order: credits nothing matched, outbound lines unanswered past their
 * answer window, credits with an ambiguous candidate set, overdue expected payments; keyset on (kind, id).
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
  const settings = await ctx.db.transaction(async (tx) => {
    await moveOverdue(ctx, tx, scope);
    return settingsOf(tx, scope);
  });
  const read: PageRead = { ctx, scope, settings };
  const items: Item[] = [];
  const kinds = (query.kind ? [query.kind as Kind] : [...KINDS]).filter(
    (k) => fromKind === undefined || KINDS.indexOf(k) >= KINDS.indexOf(fromKind),
  );
  for (const kind of kinds) {
    if (items.length > limit) break;
    const page: After = { after: kind === fromKind ? afterId : undefined, limit: limit + 1 - items.length };
    items.push(...(await itemsOfKind(read, kind, page)));
  }
  const page = items.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map(({ id: _id, ...item }) => item),
    nextCursor: items.length > limit && last ? encodeCursor(`${last.kind}|${last.id}`) : null,
  };
}

function itemsOfKind(read: PageRead, kind: Kind, page: After): Promise<Item[]> {
  if (kind === 'unanswered-outbound') return unansweredItems(read.ctx, read.scope, page);
  if (kind === 'overdue-expected') return overdueItems(read, page);
  return incomingItems(read, kind, page);
}

/**
 * Overdue expected payments, each with its nearest candidates: open credits for a credit one, open
 * statement debits (no outbound line took them, docs/adr/0077) for a debit one, named by their entry.
 */
async function overdueItems(read: PageRead, page: After): Promise<Item[]> {
  const { ctx, scope } = read;
  const items: Item[] = [];
  for (const e of await overdueExpected(ctx.db, scope, page)) {
    const need = e.amountMinMinor - e.matchedMinor;
    items.push({
      kind: 'overdue-expected',
      id: e.id,
      subject: {
        expectedPaymentId: e.id,
        direction: e.direction,
        amount: amountText(e.amountMinMinor, e.currency),
        openAmount: amountText(need, e.currency),
        currency: e.currency,
        dateTo: e.dateTo,
        reference: e.referenceValue,
      },
      candidates:
        e.direction === 'debit' ? await debitCandidates(read, e, need) : await creditCandidates(read, e, need),
      since: e.dateTo,
    });
  }
  return items;
}

async function creditCandidates({ ctx, scope, settings }: PageRead, e: ExpectedRow, need: bigint) {
  const pool = await nearestIncoming(ctx.db, scope, { currency: e.currency, amountMinor: need, limit: CANDIDATE_POOL });
  const explained = pool.map((p) => ({ p, explained: explainPair(creditOf(p), candidateOf(e), settings) }));
  return nearest(explained, CANDIDATES).map((c) => candidateView(c.p.id, e.currency, c.explained));
}

/** A debit's `ref` is `unmatched-entry:<id>` (the reconciliation page's), its `entry` what a manual match takes. */
async function debitCandidates({ ctx, scope, settings }: PageRead, e: ExpectedRow, need: bigint) {
  const pool = await nearestOpenDebits(ctx.db, scope, {
    currency: e.currency,
    amountMinor: need,
    reference: e.referenceValue,
    limit: CANDIDATE_POOL,
  });
  const explained = pool.map((d) => ({ d, explained: explainPair(debitOf(d), candidateOf(e), settings, 'debit') }));
  return nearest(explained, CANDIDATES).map((c) => ({
    ...candidateView(`unmatched-entry:${c.d.id}`, e.currency, c.explained),
    ...(c.d.entryIndex === null ? {} : { entry: { documentId: c.d.documentId, entryIndex: c.d.entryIndex } }),
  }));
}

/** Credits nothing matched (or whose candidates were ambiguous), each with the nearest expected payments. */
async function incomingItems({ ctx, scope, settings }: PageRead, kind: Kind, page: After): Promise<Item[]> {
  const items: Item[] = [];
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
  return items;
}
