import { isSEPACountry } from 'ibantools';
import type { BankProfile, PainVersion } from '../banks/types.ts';
import { INVALID_TRANSACTION } from '../canonical/normalise.ts';
import type { Party, Transaction } from '../canonical/types.ts';
import { MAX_ID, MAX_NAME } from './field-rules.ts';
import type { IssueSink } from './issue.ts';
import type { PaymentPlan } from './plan.ts';
import { minorAt } from './plan.ts';
import { isBlank } from './text-rules.ts';

/** Built only when an issue is raised: the clean path allocates no path strings. */
function txPath(base: string, j: number): string {
  return `${base}.transactions[${j}]`;
}

/** Bank level: what this bank's profile demands beyond ISO (domain.md §2, §2.1). */

/** Max140Text: beyond it the generic `too_long` already speaks; the bank limit adds nothing. */
const ISO_TEXT = MAX_NAME;

function checkAddress(
  sink: IssueSink,
  profile: BankProfile,
  party: Party | undefined,
  base: string,
  type?: string,
): void {
  const a = party?.postalAddress;
  if (!party || !a) return;
  const mode = profile.flavour.addressMode;
  if (mode === 'any') return;
  const lines = a.addressLines?.length ?? 0;
  const path = `${base}.postalAddress`;
  if (mode === 'structured' && lines > 0) {
    sink.add(
      'bank',
      'address_not_structured',
      `${path}.addressLines`,
      `${profile.bankName} accepts structured addresses only`,
      type,
    );
  }
  if (mode === 'hybrid' && lines > 2) {
    sink.add(
      'bank',
      'address_not_structured',
      `${path}.addressLines`,
      'a hybrid address has at most 2 address lines',
      type,
    );
  }
  if (isBlank(a.townName)) {
    sink.add(
      'bank',
      'address_not_structured',
      `${path}.townName`,
      'town name is required in every address from 15 November 2026',
      type,
    );
  }
  if (isBlank(party.country)) {
    sink.add(
      'bank',
      'address_not_structured',
      `${base}.country`,
      'country is required in every address from 15 November 2026',
      type,
    );
  }
}

/**
 * Balance-of-payments reporting (domain.md §2.1): Norway from NOK 100,000 and Sweden from SEK 150,000 per
 * cross-border payment need `RgltryRptg/Dtls/Cd`. Amounts in other currencies are not converted here
 * (no rates in the domain); only payments in the threshold currency are checked.
 */
const REPORTING_THRESHOLD: Record<string, { currency: string; minor: bigint; label: string }> = {
  NO: { currency: 'NOK', minor: 10_000_000n, label: 'NOK 100,000' },
  SE: { currency: 'SEK', minor: 15_000_000n, label: 'SEK 150,000' },
};

export function needsRegulatoryReport(profile: BankProfile, plan: PaymentPlan, j: number): boolean {
  const rule = REPORTING_THRESHOLD[profile.countryCode];
  const tx = plan.payment.transactions[j];
  if (!rule || !tx || tx.currency !== rule.currency) return false;
  return minorAt(plan, j) >= rule.minor;
}

function creditorCountry(tx: Transaction): string | undefined {
  const iban = tx.creditor?.account?.iban;
  if (iban && iban.length >= 2) return iban.slice(0, 2);
  return tx.creditor?.country;
}

/** `bic_required` for a creditor whose agent gives no BIC: by the flavour, the clearing id and the creditor's country. */
export function creditorNeedsBic(profile: BankProfile, tx: Transaction): boolean {
  const f = profile.flavour;
  if (f.creditorBicRequired === 'never') return false;
  const hasClearing = !isBlank(tx.creditor?.agent?.clearing?.memberId);
  const country = creditorCountry(tx);
  return (
    f.creditorBicRequired === 'always' ||
    (!hasClearing && country !== undefined && country !== profile.countryCode && !isSEPACountry(country))
  );
}

export function checkBank(sink: IssueSink, profile: BankProfile, painVersion: PainVersion, plans: PaymentPlan[]): void {
  checkBankDocument(sink, profile, painVersion);
  for (const plan of plans) {
    const addressRule = checkBankPayment(sink, profile, plan);
    checkBankTransactions(sink, profile, plan, addressRule);
  }
}

/** Bank level, whole document: profile support and pain version. */
export function checkBankDocument(sink: IssueSink, profile: BankProfile, painVersion: PainVersion): void {
  if (profile.unsupported) {
    sink.add('bank', 'bank_unsupported', '', `${profile.bankName}: ${profile.unsupported.reason}`);
  }
  if (!profile.painVersions.includes(painVersion)) {
    sink.add(
      'bank',
      'pain_version_unsupported',
      '',
      `${profile.bankName} accepts ${profile.painVersions.join(', ')}, not ${painVersion}`,
    );
  }
}

/**
 * Bank level, one payment without its transactions. Returns whether the November 2026 address rule
 * applies to it (the transactions' addresses are checked then too).
 */
export function checkBankPayment(sink: IssueSink, profile: BankProfile, plan: PaymentPlan): boolean {
  const f = profile.flavour;
  const p = plan.payment;
  const base = `payments[${plan.index}]`;
  const type = plan.type?.code;
  if (plan.type && !profile.paymentTypes.includes(plan.type.code)) {
    sink.add(
      'bank',
      'payment_type_not_offered',
      `${base}.paymentType`,
      `${profile.bankName} does not offer ${plan.type.code}`,
      type,
    );
  }
  const bearer = plan.encoding.chargeBearer;
  if (bearer !== undefined && !(f.chargeBearers as string[]).includes(bearer)) {
    sink.add(
      'bank',
      'charge_bearer_not_allowed',
      `${base}.chargeBearer`,
      `${profile.bankName} accepts ${f.chargeBearers.join(', ')}`,
      type,
    );
  }
  // Only a bank whose profile writes BtchBookg lets the payment choose (ADR 0073): elsewhere the bank
  // books as it agreed with the account holder, and a file could not do what the payment asks.
  if (f.batchBooking === 'omit' && p.batchBooking !== undefined) {
    sink.add(
      'bank',
      'batch_booking_not_allowed',
      `${base}.batchBooking`,
      `${profile.bankName} does not take BtchBookg: the bank books as it agreed with the account holder; leave batchBooking out`,
      type,
    );
  }
  // A flavour that splits a payment into several PmtInf suffixes `-<n>` to PmtInfId (Max35Text).
  const parts =
    f.grouping === 'per-transaction'
      ? p.transactions.length
      : f.grouping === 'per-currency'
        ? new Set(p.transactions.map((t) => t.currency)).size
        : 1;
  if (parts > 1 && p.paymentId !== undefined && p.paymentId.length + 1 + String(parts).length > MAX_ID) {
    sink.add(
      'bank',
      'bank_too_long',
      `${base}.paymentId`,
      `${profile.bankName} splits this payment into ${parts} blocks: paymentId must leave room for the -${parts} suffix`,
      type,
    );
  }
  // The November 2026 address rule follows the execution date (the inter-PSP settlement date).
  const addressRule = (p.executionDate ?? '') >= f.structuredAddressFrom;
  if (addressRule) {
    checkAddress(sink, profile, p.debtor, `${base}.debtor`, type);
    checkAddress(sink, profile, p.ultimateDebtor, `${base}.ultimateDebtor`, type);
  }
  if (p.debtor?.name && p.debtor.name.length > f.nameMaxLength && p.debtor.name.length <= ISO_TEXT) {
    sink.add(
      'bank',
      'bank_too_long',
      `${base}.debtor.name`,
      `${profile.bankName} takes names of at most ${f.nameMaxLength} characters`,
      type,
    );
  }
  return addressRule;
}

function checkBankTransactions(sink: IssueSink, profile: BankProfile, plan: PaymentPlan, addressRule: boolean): void {
  const f = profile.flavour;
  const base = `payments[${plan.index}]`;
  const type = plan.type?.code;
  const txs = plan.payment.transactions;
  for (let j = 0; j < txs.length; j++) {
    const tx = txs[j] as Transaction;
    if (tx === INVALID_TRANSACTION) continue;
    if (f.currencies.length > 0 && tx.currency !== undefined && !f.currencies.includes(tx.currency)) {
      sink.add(
        'bank',
        'currency_not_supported',
        `${txPath(base, j)}.currency`,
        `${profile.bankName} accepts ${f.currencies.join(', ')}`,
        type,
      );
    }
    const c = tx.creditor;
    if (c) {
      if (c.name && c.name.length > f.nameMaxLength && c.name.length <= ISO_TEXT) {
        sink.add(
          'bank',
          'bank_too_long',
          `${txPath(base, j)}.creditor.name`,
          `${profile.bankName} takes names of at most ${f.nameMaxLength} characters`,
          type,
        );
      }
      // Only a creditor without a BIC can miss one: the country lookup is skipped on the common path.
      if (isBlank(c.agent?.bic) && f.creditorBicRequired !== 'never') {
        if (creditorNeedsBic(profile, tx)) {
          sink.add(
            'bank',
            'bic_required',
            `${txPath(base, j)}.creditor.agent.bic`,
            `${profile.bankName} needs the creditor agent BIC here`,
            type,
          );
        }
      }
      if (addressRule) checkAddress(sink, profile, c, `${txPath(base, j)}.creditor`, type);
    }
    if (addressRule) {
      checkAddress(sink, profile, tx.ultimateCreditor, `${txPath(base, j)}.ultimateCreditor`, type);
      checkAddress(sink, profile, tx.ultimateDebtor, `${txPath(base, j)}.ultimateDebtor`, type);
    }
    if (type === 'XB_SWIFT' && tx.regulatoryReporting?.code === undefined && needsRegulatoryReport(profile, plan, j)) {
      sink.add(
        'bank',
        'regulatory_reporting_required',
        `${txPath(base, j)}.regulatoryReporting.code`,
        `${profile.countryCode} central bank reporting: cross-border payments from ${REPORTING_THRESHOLD[profile.countryCode]?.label} need a reporting code`,
        type,
      );
    }
    const rem = tx.remittance;
    if (rem?.unstructured !== undefined) {
      if (rem.unstructured.length > f.unstructuredMaxLength && rem.unstructured.length <= ISO_TEXT) {
        sink.add(
          'bank',
          'bank_too_long',
          `${txPath(base, j)}.remittance.unstructured`,
          `${profile.bankName} takes at most ${f.unstructuredMaxLength} characters of free text`,
          type,
        );
      }
      if (f.noUnstructuredWithReference && !isBlank(rem.creditorReference)) {
        sink.add(
          'bank',
          'remittance_not_allowed',
          `${txPath(base, j)}.remittance.unstructured`,
          `${profile.bankName} refuses free text next to a structured reference`,
          type,
        );
      }
    }
  }
}
