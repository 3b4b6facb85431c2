import type { BankProfile, CodeOrProprietary, PainVersion, PaymentTypeEntry } from '../banks/types.ts';
import type { CanonicalPayment, Payment } from '../canonical/types.ts';

/** How one payment is encoded: the catalog default, the bank override and the payment's own values merged. */
export type ResolvedEncoding = {
  priority?: string;
  serviceLevel?: string;
  localInstrument?: CodeOrProprietary;
  categoryPurpose?: string;
  chargeBearer?: string;
};

/** What validation learned about one payment that the writer needs, so nothing is parsed twice. */
export type PaymentPlan = {
  index: number;
  payment: Payment;
  type: PaymentTypeEntry | undefined;
  encoding: ResolvedEncoding;
  /** Amount of each transaction in minor units of its currency (0n where the amount was invalid). */
  minors: bigint[];
  exponents: number[];
};

export type DocumentPlan = {
  doc: CanonicalPayment;
  profile: BankProfile;
  painVersion: PainVersion;
  payments: PaymentPlan[];
  /** CreDtTm to write: the payment's own or the clock's. */
  creationDateTime: string;
};
