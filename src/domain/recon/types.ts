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
  /**
   * Already returned (rejected by a return on an earlier statement), with that return's bank reference:
   * a candidate only for the same return entry seen again (docs/adr/0070), so a repeated return is
   * recognised as the one already applied and never taken for another payment of the same amount.
   */
  returned?: { bankRef: string | null };
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
  /** A reversal or return of an earlier booking (RvslInd, RRTN/RPCR, a return reason, MT940 RC/RD). */
  reversal: boolean;
  /** The instructed (original) amount when the bank gives one beside the booked amount (AmtDtls/InstdAmt). */
  originalAmountMinor?: bigint | null;
  /** The bank's reference of the entry (AcctSvcrRef, the :61: bank reference): a repeated return is known by it. */
  bankRef?: string | null;
  /** Entry-level batch booking without transaction details: the total of a payment-information block. */
  batchWithoutDetails: boolean;
};

export type MatchRule =
  | 'end-to-end-id'
  | 'instruction-id'
  | 'message-id-amount'
  | 'amount-counterparty'
  | 'batch-total'
  | 'return';

/** What a return was matched by (docs/adr/0070): an identifier, or failing any, amount and counterparty. */
export type ReturnMatchedBy = 'end-to-end-id' | 'instruction-id' | 'amount-counterparty';

/**
 * Indexes into the input arrays. A batch-total match names several lines for one entry. A return
 * (rule `return`) says what it was matched by.
 */
export type ReconMatch = { line: number; entry: number; rule: MatchRule; by?: ReturnMatchedBy };
export type Ambiguity = { line: number; entry: number; reason: string };

export type ReconResult = {
  matches: ReconMatch[];
  /** Lines left pending because more than one candidate fitted; never matched silently. */
  ambiguous: Ambiguity[];
  unmatchedEntries: number[];
};
