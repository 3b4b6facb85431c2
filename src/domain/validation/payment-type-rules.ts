import { isValidIBAN } from 'ibantools';
import type { PaymentTypeEntry } from '../banks/types.ts';
import { INVALID_TRANSACTION } from '../canonical/normalise.ts';
import type { Transaction } from '../canonical/types.ts';
import { checkFikPaymentId, isValidFikCreditor } from '../references/danish.ts';
import { isValidFinnishReference } from '../references/finnish-reference.ts';
import { isValidKid, isValidNorwegianAccount } from '../references/norwegian.ts';
import { isValidNip, isValidNrb, nrbFromAccount } from '../references/polish.ts';
import { checkSplitPaymentText, checkTaxPaymentText } from '../references/polish-remittance.ts';
import { isValidRfReference } from '../references/rf-reference.ts';
import { isValidBankgiro, isValidOcr, isValidPlusgiro } from '../references/swedish.ts';
import type { IssueSink } from './issue.ts';
import type { PaymentPlan } from './plan.ts';
import { minorAt } from './plan.ts';
import { isBlank } from './text-rules.ts';

/** Built only when an issue is raised: the clean path allocates no path strings. */
function txPath(base: string, j: number): string {
  return `${base}.transactions[${j}]`;
}

/** Payment-type level: the type's `requires`, currencies, charge bearer and check digits (DESIGN.md). */

export type Getter = (root: unknown) => unknown;

function step(cur: unknown, key: string): unknown {
  return typeof cur === 'object' && cur !== null ? (cur as Record<string, unknown>)[key] : undefined;
}

/** Getters are built once per requirement string: the per-transaction loop then walks no strings. */
const GETTERS = new Map<string, Getter>();
function getter(path: string): Getter {
  let g = GETTERS.get(path);
  if (!g) {
    const keys = path.split('.');
    g = (root) => {
      let cur = root;
      for (const k of keys) cur = step(cur, k);
      return cur;
    };
    GETTERS.set(path, g);
  }
  return g;
}

function present(v: unknown): boolean {
  if (typeof v === 'string') return v.length > 0 && v.trim() !== '';
  return v !== undefined && v !== null;
}

const TX_PREFIX = 'transactions[].';

/**
 * Requirements the generic level already enforces as `required` at the same path; checking them again
 * per transaction would only repeat an issue that one-issue-per-path suppresses anyway.
 */
const GENERIC_GUARANTEES = new Set([
  'transactions[].creditor.name',
  'transactions[].amount',
  'transactions[].creditor.account.iban|transactions[].creditor.account.other.id',
]);

/**
 * The per-transaction requirements of a type that the generic level does not already guarantee, each as
 * its alternatives' getters: the fused converter tests them on every transaction it reads.
 */
export function transactionRequirements(type: PaymentTypeEntry, guaranteed: ReadonlySet<string>): Getter[][] {
  const out: Getter[][] = [];
  for (const req of type.requires) {
    if (GENERIC_GUARANTEES.has(req) || !req.startsWith(TX_PREFIX)) continue;
    const options = req.split('|').map((o) => o.slice(TX_PREFIX.length));
    // A field the caller's reader has already found present satisfies the whole requirement.
    if (options.some((o) => guaranteed.has(o))) continue;
    out.push(options.map(getter));
  }
  return out;
}

export function meetsRequirements(tx: Transaction, requirements: Getter[][]): boolean {
  for (const options of requirements) {
    let ok = false;
    for (const g of options) {
      if (present(g(tx))) {
        ok = true;
        break;
      }
    }
    if (!ok) return false;
  }
  return true;
}

/**
 * The EPC SEPA rulebooks' limits, for every type of the SEPA scheme (channel SEPA): party names of at most
 * 70 characters (ISO allows 140) and amounts up to 999,999,999.99 EUR. A bank refuses the file otherwise.
 */
export const SEPA_NAME_MAX = 70;
const SEPA_AMOUNT_MAX_MINOR = 99_999_999_999n;
const SEPA_AMOUNT_MAX_TEXT = '999,999,999.99';

export function isSepaScheme(type: PaymentTypeEntry): boolean {
  return type.channel === 'SEPA';
}

/** A name over the SEPA limit that the generic and bank levels (140, the bank's own) left unreported. */
function sepaName(sink: IssueSink, type: PaymentTypeEntry, name: string | undefined, path: string): void {
  if (name === undefined || name.length <= SEPA_NAME_MAX || sink.hasErrorAt(path)) return;
  sink.add(
    'payment-type',
    'too_long',
    path,
    `${type.code} (SEPA) names have at most ${SEPA_NAME_MAX} characters, got ${name.length}`,
    type.code,
  );
}

function sepaPaymentLimits(sink: IssueSink, type: PaymentTypeEntry, plan: PaymentPlan, base: string): void {
  if (!isSepaScheme(type)) return;
  sepaName(sink, type, plan.payment.debtor?.name, `${base}.debtor.name`);
  sepaName(sink, type, plan.payment.ultimateDebtor?.name, `${base}.ultimateDebtor.name`);
}

function sepaTransactionLimits(
  sink: IssueSink,
  type: PaymentTypeEntry,
  plan: PaymentPlan,
  j: number,
  tb: string,
): void {
  const tx = plan.payment.transactions[j] as Transaction;
  sepaName(sink, type, tx.creditor?.name, `${tb}.creditor.name`);
  sepaName(sink, type, tx.ultimateCreditor?.name, `${tb}.ultimateCreditor.name`);
  sepaName(sink, type, tx.ultimateDebtor?.name, `${tb}.ultimateDebtor.name`);
  if (tx.currency === 'EUR' && !sink.hasErrorAt(`${tb}.amount`) && minorAt(plan, j) > SEPA_AMOUNT_MAX_MINOR) {
    sink.add(
      'payment-type',
      'invalid_amount',
      `${tb}.amount`,
      `${type.code} (SEPA) amounts are at most ${SEPA_AMOUNT_MAX_TEXT} EUR`,
      type.code,
    );
  }
}

/** isSepaScheme's amount limit for the fused converter, in minor units of EUR. */
export function overSepaAmount(minor: number, exponent: number): boolean {
  return exponent === 2 && minor > Number(SEPA_AMOUNT_MAX_MINOR);
}

/** Payment-type level without the per-transaction checks: type known, payment-level requires, charge bearer. */
export function checkPaymentTypeHeader(sink: IssueSink, plan: PaymentPlan): void {
  const base = `payments[${plan.index}]`;
  const p = plan.payment;
  const type = plan.type;
  if (!type) {
    if (p.paymentType !== undefined) unknownType(sink, base, p.paymentType);
    return;
  }
  for (const req of type.requires) {
    if (GENERIC_GUARANTEES.has(req) || req.startsWith(TX_PREFIX)) continue;
    requirePaymentField(sink, type, plan, base, req.split('|'));
  }
  fixedChargeBearer(sink, type, plan, base);
  sepaPaymentLimits(sink, type, plan, base);
}

function unknownType(sink: IssueSink, base: string, code: string): void {
  sink.add(
    'payment-type',
    'unknown_payment_type',
    `${base}.paymentType`,
    `no payment type ${JSON.stringify(code)} in the catalog`,
    code,
  );
}

function requirePaymentField(
  sink: IssueSink,
  type: PaymentTypeEntry,
  plan: PaymentPlan,
  base: string,
  options: string[],
): void {
  if (options.some((o) => present(getter(o)(plan.payment)))) return;
  sink.add(
    'payment-type',
    'payment_type_requires',
    `${base}.${options[0]}`,
    `${type.code} requires ${options.join(' or ')}`,
    type.code,
  );
}

function fixedChargeBearer(sink: IssueSink, type: PaymentTypeEntry, plan: PaymentPlan, base: string): void {
  const p = plan.payment;
  if (type.chargeBearer?.fixed && p.chargeBearer !== undefined && p.chargeBearer !== type.chargeBearer.fixed) {
    sink.add(
      'payment-type',
      'payment_type_charge_bearer',
      `${base}.chargeBearer`,
      `${type.code} uses charge bearer ${type.chargeBearer.fixed}`,
      type.code,
    );
  }
}

function checkRequires(sink: IssueSink, type: PaymentTypeEntry, plan: PaymentPlan, base: string): void {
  for (const req of type.requires) {
    if (GENERIC_GUARANTEES.has(req)) continue;
    const options = req.split('|');
    if (options[0]?.startsWith(TX_PREFIX)) {
      const rel = options.map((o) => o.slice(TX_PREFIX.length));
      const getters = rel.map(getter);
      const txs = plan.payment.transactions;
      for (let j = 0; j < txs.length; j++) {
        const tx = txs[j];
        if (tx === INVALID_TRANSACTION) continue;
        let ok = false;
        for (const g of getters) {
          if (present(g(tx))) {
            ok = true;
            break;
          }
        }
        if (!ok && !sink.hasErrorAt(`${base}.transactions[${j}].${rel[0]}`)) {
          sink.add(
            'payment-type',
            'payment_type_requires',
            `${base}.transactions[${j}].${rel[0]}`,
            `${type.code} requires ${rel.join(' or ')}`,
            type.code,
          );
        }
      }
    } else requirePaymentField(sink, type, plan, base, options);
  }
}

function referenceOf(tx: Transaction): string | undefined {
  const r = tx.remittance?.creditorReference;
  return isBlank(r) ? undefined : (r as string);
}

export function checkReference(sink: IssueSink, type: PaymentTypeEntry, tx: Transaction, tb: string): void {
  const ref = referenceOf(tx);
  const path = `${tb}.remittance.creditorReference`;
  const fail = (why: string) => sink.add('payment-type', 'invalid_reference', path, why, type.code);
  const refType = tx.remittance?.creditorReferenceType?.toUpperCase();
  const looksRf = ref !== undefined && /^RF/i.test(ref);
  switch (type.referenceRule) {
    case 'finnish-or-rf':
      if (ref !== undefined && !(looksRf ? isValidRfReference(ref) : isValidFinnishReference(ref))) {
        fail('not a valid Finnish reference (7-3-1 check digit) or RF creditor reference');
      }
      return;
    case 'kid':
      if (ref !== undefined && !isValidKid(ref)) fail('KID fails both the MOD10 and the MOD11 check digit');
      return;
    case 'ocr-optional':
      if (ref !== undefined && !(looksRf ? isValidRfReference(ref) : isValidOcr(ref))) {
        fail('OCR reference needs 2 to 25 digits with a Luhn check digit');
      }
      return;
    case 'fik71':
    case 'fik75':
    case 'gik04':
    case 'gik15': {
      if (ref === undefined) return;
      const card = type.referenceRule.slice(3);
      const r = checkFikPaymentId(card, ref);
      if (!r.ok) fail(r.reason);
      return;
    }
    case 'no-payment-id':
      if (ref !== undefined) fail(`${type.code} carries no payment id`);
      return;
    case 'pl-split':
      checkPolishSplit(sink, type, tx, tb);
      return;
    case 'pl-tax': {
      const u = tx.remittance?.unstructured;
      if (u !== undefined) {
        const r = checkTaxPaymentText(u);
        if (!r.ok) sink.add('payment-type', 'invalid_reference', `${tb}.remittance.unstructured`, r.reason, type.code);
      }
      return;
    }
    case undefined:
      // Any type: an RF reference (declared SCOR or looking like one) must pass ISO 11649.
      if (ref !== undefined && (refType === 'SCOR' || looksRf) && !isValidRfReference(ref)) {
        fail('RF creditor reference fails its ISO 11649 check digits');
      }
      return;
  }
}

/** Polish split payment (MPP): the /VAT/ text when not given as fields, the NIP's check digit, VAT within the gross. */
function checkPolishSplit(sink: IssueSink, type: PaymentTypeEntry, tx: Transaction, tb: string): void {
  const u = tx.remittance?.unstructured;
  if (tx.splitPayment === undefined && u !== undefined) {
    const r = checkSplitPaymentText(u);
    if (!r.ok) sink.add('payment-type', 'invalid_reference', `${tb}.remittance.unstructured`, r.reason, type.code);
  }
  const taxId = tx.splitPayment?.taxId;
  if (taxId !== undefined && /^\d{10}$/.test(taxId) && !isValidNip(taxId)) {
    sink.add('payment-type', 'invalid_reference', `${tb}.splitPayment.taxId`, 'NIP fails its check digit', type.code);
  }
  const vat = tx.splitPayment?.vatAmount;
  if (
    vat !== undefined &&
    tx.amount !== undefined &&
    /^\d+(\.\d{1,2})?$/.test(vat) &&
    /^\d+(\.\d{1,2})?$/.test(tx.amount) &&
    Number(vat) > Number(tx.amount)
  ) {
    sink.add(
      'payment-type',
      'invalid_amount',
      `${tb}.splitPayment.vatAmount`,
      'VAT amount exceeds the gross amount',
      type.code,
    );
  }
}

export function checkAccount(sink: IssueSink, type: PaymentTypeEntry, tx: Transaction, tb: string): void {
  const acct = tx.creditor?.account;
  const other = acct?.other?.id;
  const iban = acct?.iban;
  const fail = (path: string, why: string) =>
    sink.add('payment-type', 'invalid_account', `${tb}.creditor.account.${path}`, why, type.code);
  switch (type.accountRule) {
    case 'bankgiro':
      if (other !== undefined && !isValidBankgiro(other))
        fail('other.id', 'Bankgiro number needs 7 or 8 digits with a Luhn check digit');
      return;
    case 'plusgiro':
      if (other !== undefined && !isValidPlusgiro(other))
        fail('other.id', 'Plusgiro number needs 2 to 8 digits with a Luhn check digit');
      return;
    case 'fik-creditor':
      if (other !== undefined && !isValidFikCreditor(other)) fail('other.id', 'FI creditor number has 8 digits');
      return;
    case 'giro-account':
      if (other !== undefined && !(/^\d{1,8}$/.test(other) && Number(other) <= 69999999)) {
        fail('other.id', 'giro account has at most 8 digits and is at most 69999999');
      }
      return;
    case 'no-account':
      if (other !== undefined && !isValidNorwegianAccount(other))
        fail('other.id', 'Norwegian account needs 11 digits with a MOD11 check digit');
      if (iban !== undefined && !iban.startsWith('NO')) fail('iban', `${type.code} pays Norwegian accounts`);
      return;
    case 'pl-nrb':
    case 'pl-zus': {
      if (other !== undefined && !isValidNrb(other)) fail('other.id', 'NRB needs 26 digits with valid check digits');
      if (iban !== undefined && isValidIBAN(iban) && !iban.startsWith('PL'))
        fail('iban', `${type.code} pays Polish accounts`);
      const nrb = other ?? (iban !== undefined ? nrbFromAccount(iban) : undefined);
      // ZUS individual accounts (NRS) sit at the routing number 60000002.
      if (type.accountRule === 'pl-zus' && nrb !== undefined && nrb.slice(2, 10) !== '60000002') {
        fail(
          other !== undefined ? 'other.id' : 'iban',
          'ZUS contributions go to the individual NRS account (bank 60000002)',
        );
      }
      return;
    }
    case undefined:
      return;
  }
}

export function checkPaymentTypes(sink: IssueSink, plans: PaymentPlan[]): void {
  for (const plan of plans) {
    const base = `payments[${plan.index}]`;
    const p = plan.payment;
    const type = plan.type;
    if (!type) {
      if (p.paymentType !== undefined) unknownType(sink, base, p.paymentType);
      continue;
    }
    checkRequires(sink, type, plan, base);
    fixedChargeBearer(sink, type, plan, base);
    sepaPaymentLimits(sink, type, plan, base);
    const sepa = isSepaScheme(type);
    const txs = p.transactions;
    for (let j = 0; j < txs.length; j++) {
      const tx = txs[j] as Transaction;
      if (tx === INVALID_TRANSACTION) continue;
      if (type.currencies && tx.currency !== undefined && !type.currencies.includes(tx.currency)) {
        sink.add(
          'payment-type',
          'payment_type_currency',
          `${txPath(base, j)}.currency`,
          `${type.code} is paid in ${type.currencies.join(', ')}`,
          type.code,
        );
      }
      if (type.referenceRule !== undefined || tx.remittance?.creditorReference !== undefined)
        checkReference(sink, type, tx, txPath(base, j));
      if (type.accountRule !== undefined) checkAccount(sink, type, tx, txPath(base, j));
      if (sepa) sepaTransactionLimits(sink, type, plan, j, txPath(base, j));
    }
  }
}
