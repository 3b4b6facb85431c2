import { NOT_PROVIDED } from '../canonical/generated-instruction-id.ts';
import { INVALID_TRANSACTION } from '../canonical/normalise.ts';
import type { CanonicalPayment, Payment, Transaction } from '../canonical/types.ts';
import { CHARGE_BEARERS, PRIORITIES, SCHEMA_VERSIONS } from '../canonical/types.ts';
import { currencyExponent } from '../money/currencies.ts';
import { parseAmount, plainMinor } from '../money/money.ts';
import type { CharsetName } from './charset.ts';
import { MAX_ID, MAX_UNSTRUCTURED } from './field-rules.ts';
import { isExternalCode, isIsoDate, isIsoDateTime } from './formats.ts';
import type { GenericCtx } from './generic-context.ts';
import { checkCountry, checkIdentifierLike, checkParty } from './generic-party.ts';
import type { IssueSink } from './issue.ts';
import type { PaymentPlan } from './plan.ts';
import { checkIdentifier, checkLength, isBlank, join } from './text-rules.ts';

/**
 * Generic level: what holds for any bank (DESIGN.md): the minimal shape, IBAN, BIC, codes, dates,
 * ISO lengths. Charset transliteration already happened in the normaliser; nothing here modifies the document.
 */
type Ctx = GenericCtx;

const MAX_EXACT = BigInt(Number.MAX_SAFE_INTEGER);

function required(ctx: Ctx, base: string, key: string, what: string): void {
  const path = join(base, key);
  if (ctx.sink.hasErrorAt(path)) return;
  ctx.sink.add('generic', 'required', path, `${what} is required`);
}

function checkTransaction(ctx: Ctx, tx: Transaction, base: string, plan: PaymentPlan, j: number): void {
  const sink = ctx.sink;
  if (isBlank(tx.endToEndId)) required(ctx, base, 'endToEndId', 'endToEndId');
  else {
    const e2e = tx.endToEndId as string;
    checkIdentifier(sink, e2e, base, 'endToEndId');
    // NOTPROVIDED is the EPC's "no reference of its own" (EPC132-08 AT-41): several may share it, and
    // uniqueness is checked on the ids the client did give.
    if (e2e === NOT_PROVIDED) {
      // nothing to compare
    } else if (ctx.seenEndToEnd.has(e2e)) {
      sink.add(
        'generic',
        'duplicate_end_to_end_id',
        `${base}.endToEndId`,
        `endToEndId ${e2e} is used twice in the message`,
      );
    } else ctx.seenEndToEnd.add(e2e);
  }
  if (tx.instructionId !== undefined) checkIdentifier(sink, tx.instructionId, base, 'instructionId');

  if (isBlank(tx.currency)) required(ctx, base, 'currency', 'currency');
  if (tx.amount === undefined) required(ctx, base, 'amount', 'amount');
  const exponent = tx.currency !== undefined ? currencyExponent(tx.currency) : undefined;
  if (tx.currency !== undefined && exponent === undefined) {
    sink.add('generic', 'invalid_currency', `${base}.currency`, `unknown currency ${JSON.stringify(tx.currency)}`);
  } else if (tx.amount !== undefined && tx.currency !== undefined) {
    // Plain amounts (nearly all) without a bigint or a result object; anything else through parseAmount.
    const plain = plainMinor(tx.amount, exponent as number);
    if (plain > 0) {
      plan.minors[j] = plain;
      plan.exponents[j] = exponent as number;
      checkTransactionRest(ctx, tx, base);
      return;
    }
    const r = parseAmount(tx.amount, tx.currency);
    if (r.ok) {
      if (r.minor <= MAX_EXACT) plan.minors[j] = Number(r.minor);
      else {
        plan.bigMinors ??= new Map();
        plan.bigMinors.set(j, r.minor);
      }
      plan.exponents[j] = r.exponent;
    } else sink.add('generic', r.error.code, `${base}.amount`, r.error.message);
  }
  checkTransactionRest(ctx, tx, base);
}

/** Everything after the amount: the creditor, other parties, remittance, codes, reporting, split payment. */
function checkTransactionRest(ctx: Ctx, tx: Transaction, base: string): void {
  const sink = ctx.sink;
  const creditor = tx.creditor;
  if (!creditor) required(ctx, base, 'creditor', 'creditor');
  else {
    checkParty(ctx, creditor, base, 'creditor.', true);
    const acct = creditor.account;
    if (isBlank(acct?.iban) && isBlank(acct?.other?.id))
      required(ctx, base, 'creditor.account.iban', 'creditor account (iban or other.id)');
  }
  if (tx.ultimateDebtor) checkParty(ctx, tx.ultimateDebtor, base, 'ultimateDebtor.', false);
  if (tx.ultimateCreditor) checkParty(ctx, tx.ultimateCreditor, base, 'ultimateCreditor.', false);
  if (tx.instructionForDebtorAgent !== undefined) {
    checkLength(sink, tx.instructionForDebtorAgent, MAX_UNSTRUCTURED, base, 'instructionForDebtorAgent');
  }
  if (tx.remittance) checkRemittance(ctx, tx, tx.remittance, base);
  if (tx.purposeCode !== undefined && !isExternalCode(tx.purposeCode)) {
    sink.add(
      'generic',
      'invalid_code',
      `${base}.purposeCode`,
      'purpose codes are ISO external codes of 1 to 4 characters',
    );
  }
  if (tx.regulatoryReporting) checkRegulatoryReporting(ctx, tx, tx.regulatoryReporting, base);
  if (tx.splitPayment) checkSplitPayment(ctx, tx.splitPayment, base);
}

type Remittance = NonNullable<Transaction['remittance']>;

/** The remittance's texts, creditor reference and referred documents. */
function checkRemittance(ctx: Ctx, tx: Transaction, rem: Remittance, base: string): void {
  const sink = ctx.sink;
  if (rem.unstructured !== undefined)
    checkLength(sink, rem.unstructured, MAX_UNSTRUCTURED, base, 'remittance.unstructured');
  if (rem.creditorReference !== undefined) {
    checkIdentifierLike(ctx, rem.creditorReference, MAX_ID, base, 'remittance.creditorReference');
  }
  if (rem.creditorReferenceType !== undefined) {
    checkLength(sink, rem.creditorReferenceType, MAX_ID, base, 'remittance.creditorReferenceType');
  }
  const docs = rem.referredDocuments;
  if (!docs) return;
  const rb = `${base}.remittance`;
  for (let k = 0; k < docs.length; k++) {
    const d = docs[k];
    if (!d) continue;
    const db = `${rb}.referredDocuments[${k}]`;
    if (d.number !== undefined) checkIdentifierLike(ctx, d.number, MAX_ID, db, 'number');
    if (d.type !== undefined && !isExternalCode(d.type)) {
      sink.add('generic', 'invalid_code', `${db}.type`, 'document type is an ISO code such as CINV or CREN');
    }
    if (d.relatedDate !== undefined && !isIsoDate(d.relatedDate)) {
      sink.add('generic', 'invalid_date', `${db}.relatedDate`, 'expected a date YYYY-MM-DD');
    }
    if (d.amount !== undefined && tx.currency !== undefined) {
      const r = parseAmount(d.amount, tx.currency);
      if (!r.ok && r.error.code !== 'invalid_currency')
        sink.add('generic', r.error.code, `${db}.amount`, r.error.message);
    }
  }
}

/** The regulatory report's code, information, authority country and amount. */
function checkRegulatoryReporting(
  ctx: Ctx,
  tx: Transaction,
  reg: NonNullable<Transaction['regulatoryReporting']>,
  base: string,
): void {
  const sink = ctx.sink;
  const gb = `${base}.regulatoryReporting`;
  if (reg.code !== undefined) checkLength(sink, reg.code, 10, gb, 'code');
  if (reg.information !== undefined) checkLength(sink, reg.information, MAX_ID, gb, 'information');
  checkCountry(ctx, reg.authorityCountry, gb, 'authorityCountry');
  if (reg.amount !== undefined) {
    const ccy = reg.currency ?? tx.currency ?? '';
    const r = parseAmount(reg.amount, ccy);
    if (!r.ok)
      sink.add(
        'generic',
        r.error.code,
        `${gb}.${r.error.code === 'invalid_currency' ? 'currency' : 'amount'}`,
        r.error.message,
      );
  } else if (reg.currency !== undefined && currencyExponent(reg.currency) === undefined) {
    sink.add('generic', 'invalid_currency', `${gb}.currency`, `unknown currency ${reg.currency}`);
  }
}

/** Polish split payment (MPP): VAT amount, invoice number, tax id, text. */
function checkSplitPayment(ctx: Ctx, split: NonNullable<Transaction['splitPayment']>, base: string): void {
  const sink = ctx.sink;
  const sb = `${base}.splitPayment`;
  if (split.vatAmount !== undefined) {
    const r = parseAmount(split.vatAmount, 'PLN');
    if (!r.ok) sink.add('generic', r.error.code, `${sb}.vatAmount`, r.error.message);
    else if (split.vatAmount.replace('.', '').replace(/^0+/, '').length > 12) {
      sink.add('generic', 'too_long', `${sb}.vatAmount`, 'VAT amount has at most 10 integer digits');
    }
  }
  if (split.invoiceNumber !== undefined) checkIdentifierLike(ctx, split.invoiceNumber, MAX_ID, sb, 'invoiceNumber');
  if (split.taxId !== undefined) checkIdentifierLike(ctx, split.taxId, 14, sb, 'taxId');
  if (split.text !== undefined) checkLength(sink, split.text, 33, sb, 'text');
}

/** A payment's own fields and its debtor: everything of checkPayment before the transactions. */
function checkPaymentFields(ctx: Ctx, payment: Payment, base: string): void {
  const sink = ctx.sink;
  if (isBlank(payment.paymentId)) required(ctx, base, 'paymentId', 'paymentId');
  else checkIdentifier(sink, payment.paymentId as string, base, 'paymentId');
  if (payment.priority !== undefined && !PRIORITIES.includes(payment.priority)) {
    sink.add('generic', 'invalid_code', `${base}.priority`, `priority is one of ${PRIORITIES.join(', ')}`);
  }
  if (payment.chargeBearer !== undefined && !CHARGE_BEARERS.includes(payment.chargeBearer)) {
    sink.add('generic', 'invalid_code', `${base}.chargeBearer`, `chargeBearer is one of ${CHARGE_BEARERS.join(', ')}`);
  }
  if (payment.localInstrument !== undefined)
    checkIdentifierLike(ctx, payment.localInstrument, MAX_ID, base, 'localInstrument');
  if (payment.categoryPurpose !== undefined && !isExternalCode(payment.categoryPurpose)) {
    sink.add(
      'generic',
      'invalid_code',
      `${base}.categoryPurpose`,
      'category purposes are ISO codes of 1 to 4 characters',
    );
  }
  if (isBlank(payment.executionDate)) required(ctx, base, 'executionDate', 'executionDate');
  else if (!isIsoDate(payment.executionDate as string)) {
    sink.add('generic', 'invalid_date', `${base}.executionDate`, 'expected a calendar date YYYY-MM-DD');
  }
  const debtor = payment.debtor;
  if (!debtor) required(ctx, base, 'debtor', 'debtor');
  else {
    const db = `${base}.debtor`;
    if (isBlank(debtor.name)) required(ctx, db, 'name', 'debtor name');
    checkParty(ctx, debtor, db, '', true);
    if (isBlank(debtor.account?.iban) && isBlank(debtor.account?.other?.id)) {
      required(ctx, db, 'account.iban', 'debtor account IBAN');
    }
  }
  if (payment.ultimateDebtor) checkParty(ctx, payment.ultimateDebtor, base, 'ultimateDebtor.', false);
  if (payment.transactions.length === 0) required(ctx, base, 'transactions', 'at least one transaction');
}

function checkPayment(ctx: Ctx, payment: Payment, base: string, plan: PaymentPlan): void {
  checkPaymentFields(ctx, payment, base);
  const txs = payment.transactions;
  for (let j = 0; j < txs.length; j++) {
    const tx = txs[j] as Transaction;
    if (tx === INVALID_TRANSACTION) continue;
    const tb = `${base}.transactions[${j}]`;
    checkTransaction(ctx, tx, tb, plan, j);
    if (tx.creditor && isBlank(tx.creditor.name)) required(ctx, `${tb}.creditor`, 'name', 'creditor name');
  }
}

export function checkGeneric(
  doc: CanonicalPayment,
  plans: PaymentPlan[],
  sink: IssueSink,
  charset: CharsetName,
  nameMax: number,
): void {
  const ctx: Ctx = { sink, charset, nameMax, seenEndToEnd: new Set() };
  checkDocumentFields(ctx, doc);
  for (let i = 0; i < doc.payments.length; i++) {
    const plan = plans[i];
    if (plan) checkPayment(ctx, plan.payment, `payments[${i}]`, plan);
  }
}

/**
 * The generic level without the transactions, for the fused converter, which checks each transaction
 * as it writes it (validation/fast-transaction.ts). Issues come in the same order as checkGeneric's.
 */
export function checkGenericHeaders(
  doc: CanonicalPayment,
  plans: PaymentPlan[],
  sink: IssueSink,
  charset: CharsetName,
  nameMax: number,
): void {
  const ctx: Ctx = { sink, charset, nameMax, seenEndToEnd: new Set() };
  checkDocumentFields(ctx, doc);
  for (let i = 0; i < doc.payments.length; i++) {
    const plan = plans[i];
    if (plan) checkPaymentFields(ctx, plan.payment, `payments[${i}]`);
  }
}

function checkDocumentFields(ctx: Ctx, doc: CanonicalPayment): void {
  const sink = ctx.sink;
  if (!SCHEMA_VERSIONS.includes(doc.schemaVersion)) {
    sink.add('generic', 'unsupported_schema_version', 'schemaVersion', `supported: ${SCHEMA_VERSIONS.join(', ')}`);
  }
  if (isBlank(doc.messageId)) required(ctx, '', 'messageId', 'messageId');
  else checkIdentifier(sink, doc.messageId as string, '', 'messageId');
  if (doc.creationDateTime !== undefined && !isIsoDateTime(doc.creationDateTime)) {
    sink.add('generic', 'invalid_date', 'creationDateTime', 'expected an ISO 8601 date-time');
  }
  const ip = doc.initiatingParty;
  if (!ip) required(ctx, '', 'initiatingParty', 'initiatingParty');
  else {
    if (isBlank(ip.name)) required(ctx, 'initiatingParty', 'name', 'initiating party name');
    else checkLength(sink, ip.name as string, ctx.nameMax, 'initiatingParty', 'name');
    const org = ip.organisationId;
    if (org) {
      if (org.id !== undefined) checkIdentifierLike(ctx, org.id, MAX_ID, 'initiatingParty.organisationId', 'id');
      if (org.scheme !== undefined) checkLength(sink, org.scheme, MAX_ID, 'initiatingParty.organisationId', 'scheme');
      if (org.issuer !== undefined)
        checkIdentifierLike(ctx, org.issuer, MAX_ID, 'initiatingParty.organisationId', 'issuer');
    }
  }
  if (doc.payments.length === 0) required(ctx, '', 'payments', 'at least one payment');
}
