/**
 * Reconciliation inputs: outbound payment lines and statement entries, reduced to what matching
 * reads. Amounts are exact minor units.
 */
export type ReconLine = {
  endToEndId: string | null;
  instructionId: string | null;
  messageId: string | null;
  paymentInfoId: string | null;
  amountMinor: bigint;
  currency: string;
  creditorIban: string | null;
  /** YYYY-MM-DD: the requested execution date. */
  executionDate: string | null;
  /** Already cleared by earlier evidence: no booking may take it again, a reversal still may. */
  settled?: boolean;
};

export type ReconEntry = {
  endToEndId: string | null;
  instructionId: string | null;
  messageId: string | null;
  paymentInfoId: string | null;
  amountMinor: bigint;
  currency: string;
  direction: 'debit' | 'credit';
  counterpartyIban: string | null;
  /** YYYY-MM-DD */
  bookingDate: string | null;
  /** A reversal or return of an earlier booking (RvslInd, RRTN/RPCR, a return reason). */
  reversal: boolean;
  /** Entry-level batch booking without transaction details: the total of a payment-information block. */
  batchWithoutDetails: boolean;
};

export type MatchRule =
  | 'end-to-end-id'
  | 'instruction-id'
  | 'message-id-amount'
  | 'amount-counterparty'
  | 'batch-total'
  | 'reversal';

/** Indexes into the input arrays. A batch-total match names several lines for one entry. */
export type ReconMatch = { line: number; entry: number; rule: MatchRule };
export type Ambiguity = { line: number; entry: number; reason: string };

export type ReconResult = {
  matches: ReconMatch[];
  /** Lines left pending because more than one candidate fitted; never matched silently. */
  ambiguous: Ambiguity[];
  unmatchedEntries: number[];
};
