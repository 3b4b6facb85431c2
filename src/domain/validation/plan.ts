import type { BankProfile, CodeOrProprietary, PainVersion, PaymentTypeEntry } from '../banks/types.ts';
import type { CanonicalPayment, Payment } from '../canonical/types.ts';

/** How one payment is encoded: the catalog default, the bank override and the payment's own values merged. */
export type ResolvedEncoding = {
  priority?: string;
  serviceLevel?: string;
  localInstrument?: CodeOrProprietary;
  categoryPurpose?: string;
  chargeBearer?: string;
  /** PmtInf/BtchBookg as written; absent where the bank ignores it. */
  batchBooking?: 'true' | 'false';
};

/** What validation learned about one payment that the writer needs, so nothing is parsed twice. */
export type PaymentPlan = {
  index: number;
  payment: Payment;
  type: PaymentTypeEntry | undefined;
  encoding: ResolvedEncoding;
  /**
   * Amount of each transaction in minor units of its currency (0 where invalid), as doubles: exact up to
   * 2^53, which every amount of at most 15 digits is. Larger ones (18 digits are allowed) sit in `bigMinors`.
   * Typed arrays keep 100,000 amounts out of the garbage-collected heap.
   */
  minors: Float64Array;
  bigMinors: Map<number, bigint> | undefined;
  exponents: Uint8Array;
};

/** Minor units of transaction `j` as an exact bigint. */
export function minorAt(plan: PaymentPlan, j: number): bigint {
  return plan.bigMinors?.get(j) ?? BigInt(plan.minors[j] ?? 0);
}

export type DocumentPlan = {
  doc: CanonicalPayment;
  profile: BankProfile;
  painVersion: PainVersion;
  payments: PaymentPlan[];
  /** CreDtTm to write: the payment's own or the clock's. */
  creationDateTime: string;
};
