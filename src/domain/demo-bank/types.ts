/** What the demo bank needs to know about a delivered pain.001 to answer it. */
export type DeliveredTransaction = {
  endToEndId: string;
  instructionId: string | null;
  amount: string; // decimal string, exact
  currency: string;
  creditorName: string;
  creditorIban: string | null;
  remittance: string | null;
};

export type DeliveredPayment = { paymentInfoId: string; transactions: DeliveredTransaction[] };

export type DeliveredFile = {
  messageId: string;
  painVersion: string;
  debtorIban: string;
  debtorName: string;
  executionDate: string; // YYYY-MM-DD
  payments: DeliveredPayment[];
};

/** A reason code the payment asked to be rejected with (`REJECT:<code>` in its remittance). */
export type Verdict = { accepted: true } | { accepted: false; code: string };
