/**
 * Gaps between consecutive statements of one account (GET /accounts/statements), oldest first:
 * - balance: a statement's opening balance differs (amount, direction or currency, compared exactly
 *   in minor units) from the previous statement's closing balance;
 * - sequence: the statement number skips. Sequence numbers are read as `<statement>[/<page>]`
 *   (MT940 :28C:, camt ElctrncSeqNb): the next statement is either the same statement's next page or
 *   a later statement; a statement number more than one ahead, or a page more than one ahead within
 *   the same statement, is a skip. Numbers that go back (a new year, banks that always send 0) or
 *   repeat are not skips; a missing or non-numeric number is not compared.
 */
import { currencyExponent } from '../money/currencies.ts';
import { decimalToMinor } from '../money/decimal.ts';
import { signedBalance } from '../money/signed-balance.ts';

export type GapBalance = { amount: string; currency: string; direction: string; date: string | null };

export type GapStatement = {
  documentId: string;
  sequenceNumber: string | null;
  opening: GapBalance | null;
  closing: GapBalance | null;
};

export type StatementGap = {
  kind: 'balance' | 'sequence';
  reason: string;
  afterDocumentId: string;
  beforeDocumentId: string;
};

function signedMinor(b: GapBalance): bigint | undefined {
  const exponent = currencyExponent(b.currency) ?? 2;
  const minor = decimalToMinor(b.amount, Math.max(exponent, 5));
  if (minor === undefined) return undefined;
  return b.direction === 'debit' ? -minor : minor;
}

function sameBalance(a: GapBalance, b: GapBalance): boolean {
  if (a.currency !== b.currency) return false;
  const x = signedMinor(a);
  const y = signedMinor(b);
  return x !== undefined && y !== undefined ? x === y : a.amount === b.amount && a.direction === b.direction;
}

function sequenceOf(text: string | null): { statement: number; page: number | null } | undefined {
  if (text === null) return undefined;
  const m = /^\s*(\d{1,12})(?:\/(\d{1,9}))?\s*$/.exec(text);
  if (!m) return undefined;
  return { statement: Number(m[1]), page: m[2] === undefined ? null : Number(m[2]) };
}

const show = (b: GapBalance) => `${signedBalance(b)} ${b.currency}`;

export function findStatementGaps(statements: GapStatement[]): StatementGap[] {
  const gaps: StatementGap[] = [];
  for (let i = 1; i < statements.length; i++) {
    const prev = statements[i - 1]!;
    const cur = statements[i]!;
    const ids = { afterDocumentId: prev.documentId, beforeDocumentId: cur.documentId };
    if (prev.closing && cur.opening && !sameBalance(prev.closing, cur.opening)) {
      gaps.push({
        kind: 'balance',
        reason: `opening balance ${show(cur.opening)} differs from the previous closing balance ${show(prev.closing)}`,
        ...ids,
      });
    }
    const a = sequenceOf(prev.sequenceNumber);
    const b = sequenceOf(cur.sequenceNumber);
    if (!a || !b) continue;
    const statementSkip = b.statement > a.statement + 1;
    const pageSkip = b.statement === a.statement && a.page !== null && b.page !== null && b.page > a.page + 1;
    if (statementSkip || pageSkip) {
      gaps.push({
        kind: 'sequence',
        reason: `sequence number ${cur.sequenceNumber} follows ${prev.sequenceNumber}`,
        ...ids,
      });
    }
  }
  return gaps;
}
