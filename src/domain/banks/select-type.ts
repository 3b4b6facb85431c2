import { isSEPACountry } from 'ibantools';
import type { Payment } from '../canonical/types.ts';
import { findPaymentType } from './payment-types.ts';
import type { BankProfile } from './types.ts';

/** Which type was chosen for a payment that named none, and why (for preview and convert-async). */
export type AutoSelection = {
  paymentId: string;
  selected: string;
  confidence: 'high' | 'medium' | 'low';
  reason: string;
};

type Candidate = { code: string; confidence: AutoSelection['confidence']; reason: string };

function ibanCountry(iban: string | undefined): string | undefined {
  return iban && iban.length >= 2 ? iban.slice(0, 2).toUpperCase() : undefined;
}

/**
 * Picks the most specific type the payment's data implies, then falls back to the bank's general types.
 * Order matters: a structural marker (split payment, Bankgiro account, KID) beats the currency heuristics.
 */
function candidates(payment: Payment, profile: BankProfile): Candidate[] {
  const txs = payment.transactions;
  const first = txs[0];
  const out: Candidate[] = [];
  if (!first) return out;
  const currencies = new Set(txs.map((t) => t.currency));
  const only = currencies.size === 1 ? first.currency : undefined;
  const scheme = first.creditor?.account?.other?.scheme?.toUpperCase();
  const refType = first.remittance?.creditorReferenceType?.toUpperCase();
  const ref = first.remittance?.creditorReference;
  const unstructured = first.remittance?.unstructured;

  if (txs.every((t) => t.splitPayment !== undefined)) {
    out.push({ code: 'PL_SPLIT', confidence: 'high', reason: 'every transaction carries splitPayment' });
  }
  if (unstructured?.startsWith('/TI/')) {
    out.push({ code: 'PL_TAX_US', confidence: 'high', reason: 'remittance carries a /TI/ tax identification' });
  }
  if (scheme === 'BGNR') out.push({ code: 'SE_BANKGIRO', confidence: 'high', reason: 'creditor account scheme BGNR' });
  if (scheme === 'PGNR') out.push({ code: 'SE_PLUSGIRO', confidence: 'high', reason: 'creditor account scheme PGNR' });
  if (refType === 'KID') out.push({ code: 'NO_KID', confidence: 'high', reason: 'creditor reference type KID' });
  if (refType === 'FIK' || ref?.startsWith('71/') || ref?.startsWith('+71')) {
    out.push({ code: 'DK_FIK71', confidence: 'medium', reason: 'FIK reference with card type 71' });
  }
  if (ref?.startsWith('75/'))
    out.push({ code: 'DK_FIK75', confidence: 'medium', reason: 'FIK reference with card type 75' });

  const creditorCountries = new Set(txs.map((t) => ibanCountry(t.creditor?.account?.iban) ?? t.creditor?.country));
  const allSepa = [...creditorCountries].every((c) => c !== undefined && isSEPACountry(c));
  const domestic = creditorCountries.size === 1 && creditorCountries.has(profile.countryCode);

  if (only === 'EUR' && refType === 'FI' && domestic) {
    out.push({ code: 'FI_REF', confidence: 'high', reason: 'EUR to Finnish accounts with a Finnish reference' });
  }
  if (only === 'EUR' && allSepa) {
    out.push({ code: 'SEPA_CT', confidence: 'high', reason: 'EUR to IBANs in SEPA countries' });
  }
  if (domestic && only === 'PLN')
    out.push({ code: 'PL_ELIXIR', confidence: 'medium', reason: 'PLN to Polish accounts' });
  if (domestic && only === 'SEK')
    out.push({ code: 'SE_ACCOUNT', confidence: 'medium', reason: 'SEK to Swedish accounts' });
  if (domestic && only === 'NOK')
    out.push({ code: 'NO_DOMESTIC', confidence: 'medium', reason: 'NOK to Norwegian accounts' });
  if (domestic && only === 'DKK')
    out.push({ code: 'DK_DOMESTIC', confidence: 'medium', reason: 'DKK to Danish accounts' });
  out.push({ code: 'XB_SWIFT', confidence: 'low', reason: 'no domestic or SEPA type fits; cross-border' });
  return out;
}

export function selectPaymentType(payment: Payment, profile: BankProfile): Candidate {
  const all = candidates(payment, profile);
  const offered = all.find((c) => profile.paymentTypes.includes(c.code));
  return offered ?? all[0] ?? { code: 'XB_SWIFT', confidence: 'low', reason: 'payment has no transactions' };
}

/**
 * The channel of a raw payment's type as preparePayments will settle it: the declared type's, else the
 * one selectPaymentType picks from the raw transactions (what it reads, currencies, IBAN countries,
 * schemes and references, is no text a character set changes, so the pick is the same as after
 * normalisation). Undefined when the type is unknown or the raw data cannot be read that way.
 */
export function rawPaymentChannel(raw: Record<string, unknown>, profile: BankProfile): string | undefined {
  const declared = raw['paymentType'];
  if (typeof declared === 'string' && declared.trim() !== '') return findPaymentType(declared)?.channel;
  if (declared !== undefined) return undefined;
  const txs = raw['transactions'];
  if (!Array.isArray(txs)) return undefined;
  try {
    return findPaymentType(selectPaymentType({ transactions: txs } as Payment, profile).code)?.channel;
  } catch {
    return undefined;
  }
}
