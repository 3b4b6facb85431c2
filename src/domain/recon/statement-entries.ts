import type { StatementTransaction } from '../inbound/types.ts';
import { currencyExponent } from '../money/currencies.ts';
import { decimalToMinor } from '../money/decimal.ts';
import type { ReconEntry, ReturnMatchedBy } from './types.ts';

/** Bank transaction sub-families of a reversal (domain.md 5.1): due to a return, due to a cancellation. */
const RETURN_SUB_FAMILIES = new Set(['RRTN', 'RPCR']);
/**
 * German GVC (the DK :86: of an MT940) of a returned SEPA credit transfer. domain.md names the GVC
 * without listing its codes; this one comes from the issue's brief (docs/adr/0070).
 */
const GERMAN_RETURN_GVC = '159';

/**
 * Whether the transaction is a return or reversal of an earlier booking, by any of the marks banks use:
 * the reversal indicator (camt RvslInd, MT940 RC/RD), return information, a return sub-family, the
 * German return GVC. Only one that credits the account returns a payment of ours (isReturn); a debit
 * with return information (a direct debit we collected, come back unpaid) is no booking of one either.
 */
export function isReturnOrReversal(tx: StatementTransaction): boolean {
  if (tx.reversal || tx.returnReason !== null) return true;
  if (tx.txCodeSubFamily !== null && RETURN_SUB_FAMILIES.has(tx.txCodeSubFamily)) return true;
  return tx.direction === 'credit' && tx.txCodeProprietary === GERMAN_RETURN_GVC && tx.detailsDialect === 'german';
}

/**
 * One transaction as a matcher entry, or undefined: pending and information-only entries prove nothing
 * and are left out; so is a transaction whose amount cannot be read exactly.
 */
export function entryOf(tx: StatementTransaction): ReconEntry | undefined {
  if (tx.status !== 'booked') return undefined;
  const currency = tx.amount !== null ? tx.currency : tx.entryCurrency;
  const exponent = currencyExponent(currency);
  const text = tx.amount ?? tx.entryAmount;
  const minor = exponent === undefined ? undefined : decimalToMinor(text, exponent);
  if (minor === undefined) return undefined;
  const batchWithoutDetails =
    tx.batch !== null &&
    tx.endToEndId === null &&
    tx.instructionId === null &&
    (tx.amount === null || tx.amount === tx.entryAmount);
  return {
    endToEndId: tx.endToEndId,
    instructionId: tx.instructionId,
    messageId: tx.batch?.messageId ?? null,
    paymentInfoId: tx.paymentInfoId ?? tx.batch?.paymentInfoId ?? null,
    amountMinor: minor < 0n ? -minor : minor,
    currency,
    direction: tx.direction,
    counterpartyIban: tx.counterpartyIban,
    bookingDate: tx.bookingDate ?? tx.valueDate,
    // A return of our payment comes back as a reversal, or as a credit with a return reason, a return
    // sub-family or the German return GVC.
    reversal: isReturnOrReversal(tx),
    originalAmountMinor: originalMinor(tx, currency),
    bankRef: tx.acctSvcrRef ?? tx.bankRef,
    batchWithoutDetails,
  };
}

/** The instructed amount in the booked currency, when the bank gives one (a return may be booked net of charges). */
function originalMinor(tx: StatementTransaction, currency: string): bigint | null {
  if (tx.originalAmount === null || tx.originalCurrency !== currency) return null;
  const exponent = currencyExponent(currency);
  const minor = exponent === undefined ? undefined : decimalToMinor(tx.originalAmount, exponent);
  return minor === undefined ? null : minor < 0n ? -minor : minor;
}

/** The fields of a transaction its booking evidence quotes (bookingEvidence): all a matched entry needs kept. */
export type EvidenceSource = Pick<
  StatementTransaction,
  'amount' | 'entryAmount' | 'acctSvcrRef' | 'bankRef' | 'returnReason' | 'additionalInfo'
>;

export const evidenceSourceOf = (tx: StatementTransaction): EvidenceSource => ({
  amount: tx.amount,
  entryAmount: tx.entryAmount,
  acctSvcrRef: tx.acctSvcrRef,
  bankRef: tx.bankRef,
  returnReason: tx.returnReason,
  additionalInfo: tx.additionalInfo,
});

export type BookingEvidence = {
  source: string;
  summary: string;
  date: string | null;
  amount: string;
  currency: string;
  reason: string | null;
  addtlInf: string | null;
  documentId: string;
  bankRef: string | null;
  rule: string;
  /** A return's: what it was matched by (docs/adr/0070). */
  matchedBy?: ReturnMatchedBy;
};

/** The evidence a matched statement transaction gives its line: which document and entry proved it. */
export function bookingEvidence(
  tx: EvidenceSource,
  entry: ReconEntry,
  context: { source: string; documentId: string; rule: string; matchedBy?: ReturnMatchedBy },
): BookingEvidence {
  const amount = tx.amount ?? tx.entryAmount;
  const ref = tx.acctSvcrRef ?? tx.bankRef;
  const verb = entry.reversal ? 'returned' : 'booked';
  return {
    source: context.source,
    summary:
      `${verb} ${entry.bookingDate ?? ''} ${amount} ${entry.currency}${ref ? ` ref ${ref}` : ''} (matched by ${context.matchedBy ?? context.rule})`
        .replace(/\s+/g, ' ')
        .trim(),
    date: entry.bookingDate,
    amount,
    currency: entry.currency,
    reason: entry.reversal ? (tx.returnReason ?? 'reversal') : null,
    addtlInf: tx.additionalInfo,
    documentId: context.documentId,
    bankRef: ref,
    rule: context.rule,
    ...(context.matchedBy ? { matchedBy: context.matchedBy } : {}),
  };
}
