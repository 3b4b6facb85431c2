import { type AutoSelection, rawPaymentChannel } from '../banks/select-type.ts';
import type { BankProfile, PainVersion } from '../banks/types.ts';
import { normaliseCanonical } from '../canonical/normalise.ts';
import type { CanonicalPayment } from '../canonical/types.ts';
import { checkBank } from './bank-rules.ts';
import { checkGeneric } from './generic.ts';
import type { ValidationIssue } from './issue.ts';
import { IssueSink } from './issue.ts';
import { checkPaymentTypes } from './payment-type-rules.ts';
import type { PaymentPlan } from './plan.ts';
import type { CompanySettings } from './prepare.ts';
import { preparePayments } from './prepare.ts';

export type ValidationRun = {
  doc: CanonicalPayment;
  plans: PaymentPlan[];
  issues: ValidationIssue[];
  errorCount: number;
  unknownFieldsDropped: string[];
  autoSelected: AutoSelection[];
  autoFilled: string[];
};

/**
 * The three levels in the contract's order, every issue at once: generic, then bank, then payment type.
 * Normalisation problems (wrong JSON types) are generic issues and come first.
 */
export function runValidation(
  raw: unknown,
  profile: BankProfile,
  painVersion: PainVersion,
  now: Date | undefined,
  company: CompanySettings | undefined,
): ValidationRun {
  const sink = new IssueSink(profile.key);
  const { payment: doc, unknownFieldsDropped } = normaliseCanonical(raw, sink, profile.flavour.charset, {
    bankCountry: profile.countryCode,
    channelOf: (payment) => rawPaymentChannel(payment, profile),
  });
  const { plans, autoSelected, autoFilled } = preparePayments(doc, profile, now, company);
  checkGeneric(doc, plans, sink, profile.flavour.charset, 140);
  checkBank(sink, profile, painVersion, plans);
  checkPaymentTypes(sink, plans);
  return {
    doc,
    plans,
    issues: sink.issues,
    errorCount: sink.errorCount,
    unknownFieldsDropped,
    autoSelected,
    autoFilled,
  };
}
