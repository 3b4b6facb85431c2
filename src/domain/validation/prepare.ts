import { findPaymentType } from '../banks/payment-types.ts';
import type { AutoSelection } from '../banks/select-type.ts';
import { selectPaymentType } from '../banks/select-type.ts';
import type { BankProfile, CodeOrProprietary } from '../banks/types.ts';
import { generatedInstructionId, NOT_PROVIDED } from '../canonical/generated-instruction-id.ts';
import type { CanonicalPayment, ChargeBearer, Payment, Transaction } from '../canonical/types.ts';
import type { PaymentPlan, ResolvedEncoding } from './plan.ts';

/**
 * Per-company defaults a journal route passes (the stateless /convert does not): the charge bearer to
 * use where a payment names none, and the execution date as an offset in days from the clock.
 */
export type CompanySettings = { chargeBearer?: ChargeBearer; executionDateOffsetDays?: number };

export type Preparation = { plans: PaymentPlan[]; autoSelected: AutoSelection[]; autoFilled: string[] };

/** ISO external local instrument codes; anything else a payment names is written as proprietary. */
const LOCAL_INSTRUMENT_CODES = new Set(['INST', 'SDCL', 'ONCL', 'CORE', 'B2B', 'CCI', 'DDMC', 'DDFA']);

function localInstrument(value: string): CodeOrProprietary {
  return LOCAL_INSTRUMENT_CODES.has(value) ? { cd: value } : { prtry: value };
}

/** Whether a transaction has the EPC's NOTPROVIDED end-to-end id (its InstrId may need generating). */
function anyNotProvided(txs: readonly Transaction[]): boolean {
  for (let j = 0; j < txs.length; j++) if (txs[j]?.endToEndId === NOT_PROVIDED) return true;
  return false;
}

function addDays(date: Date, days: number): string {
  const d = new Date(date.getTime() + days * 86_400_000);
  return d.toISOString().slice(0, 10);
}

function resolveEncoding(
  payment: Payment,
  profile: BankProfile,
  company: CompanySettings | undefined,
  filled: string[],
  base: string,
): ResolvedEncoding {
  const type = payment.paymentType !== undefined ? findPaymentType(payment.paymentType) : undefined;
  const enc: ResolvedEncoding = {};
  const iso = type?.isoEncoding;
  const over = type ? profile.encodingOverrides?.[type.code] : undefined;
  const serviceLevel = over?.serviceLevel ?? iso?.serviceLevel;
  if (serviceLevel !== undefined) enc.serviceLevel = serviceLevel;
  const lcl =
    payment.localInstrument !== undefined
      ? localInstrument(payment.localInstrument)
      : (over?.localInstrument ?? iso?.localInstrument);
  if (lcl !== undefined) enc.localInstrument = lcl;
  const ctgy = payment.categoryPurpose ?? over?.categoryPurpose ?? iso?.categoryPurpose;
  if (ctgy !== undefined) enc.categoryPurpose = ctgy;
  if (payment.priority !== undefined) enc.priority = payment.priority;
  const f = profile.flavour;
  if (type?.code === 'PL_SPLIT' && f.splitPaymentLocalInstrument) enc.localInstrument = f.splitPaymentLocalInstrument;
  if (f.omitLocalInstrument) delete enc.localInstrument;
  // A bank that honours BtchBookg writes the payment's choice, else its own default; one that ignores it
  // gets none (checkBankPayment warns when the payment asked).
  if (f.batchBooking !== 'omit')
    enc.batchBooking = payment.batchBooking === undefined ? f.batchBooking : payment.batchBooking ? 'true' : 'false';
  if (f.omitCategoryPurpose) delete enc.categoryPurpose;

  if (payment.chargeBearer !== undefined) enc.chargeBearer = payment.chargeBearer;
  else {
    const allowed = f.chargeBearers as string[];
    const typeDefault = type?.chargeBearer?.default;
    const bearer =
      type?.chargeBearer?.fixed ??
      company?.chargeBearer ??
      (typeDefault !== undefined && allowed.includes(typeDefault) ? typeDefault : undefined) ??
      (allowed.includes('SHAR') ? 'SHAR' : f.chargeBearers[0]);
    if (bearer !== undefined) {
      enc.chargeBearer = bearer;
      payment.chargeBearer = bearer;
      filled.push(`${base}.chargeBearer`);
    }
  }
  return enc;
}

/**
 * Chooses payment types where none was given, fills defaults (recorded in `autoFilled` by dotted path) and
 * resolves each payment's ISO encoding. Runs on the normalised copy, never on the caller's object.
 */
export function preparePayments(
  doc: CanonicalPayment,
  profile: BankProfile,
  now: Date | undefined,
  company: CompanySettings | undefined,
): Preparation {
  const autoSelected: AutoSelection[] = [];
  const autoFilled: string[] = [];
  const plans: PaymentPlan[] = [];
  for (let i = 0; i < doc.payments.length; i++) {
    const payment = doc.payments[i] as Payment;
    const base = `payments[${i}]`;
    fillPaymentDefaults(payment, base, profile, now, company, autoSelected, autoFilled);
    // A string now: fillPaymentDefaults chose one when none was given.
    const type = findPaymentType(payment.paymentType as string);
    const txs = payment.transactions;
    if (
      type?.creditorAccountScheme !== undefined ||
      type?.creditorClearing !== undefined ||
      profile.flavour.instructionIdRequired ||
      anyNotProvided(txs)
    ) {
      for (let j = 0; j < txs.length; j++) fillTransactionDefaults(doc, i, j, txs, type, profile, autoFilled);
    }
    const encoding = resolveEncoding(payment, profile, company, autoFilled, base);
    plans.push({
      index: i,
      payment,
      type,
      encoding,
      minors: new Float64Array(txs.length),
      bigMinors: undefined,
      exponents: new Uint8Array(txs.length).fill(2),
    });
  }
  return { plans, autoSelected, autoFilled };
}

/** The payment's own defaults: its type (chosen when none was given), execution date and debtor agent. */
function fillPaymentDefaults(
  payment: Payment,
  base: string,
  profile: BankProfile,
  now: Date | undefined,
  company: CompanySettings | undefined,
  autoSelected: AutoSelection[],
  autoFilled: string[],
): void {
  if (payment.paymentType === undefined || payment.paymentType.trim() === '') {
    const pick = selectPaymentType(payment, profile);
    payment.paymentType = pick.code;
    autoSelected.push({
      paymentId: payment.paymentId ?? '',
      selected: pick.code,
      confidence: pick.confidence,
      reason: pick.reason,
    });
    autoFilled.push(`${base}.paymentType`);
  }
  if (payment.executionDate === undefined && company?.executionDateOffsetDays !== undefined && now) {
    payment.executionDate = addDays(now, company.executionDateOffsetDays);
    autoFilled.push(`${base}.executionDate`);
  }
  const debtor = payment.debtor;
  if (debtor && debtor.agent?.bic === undefined && debtor.agent?.clearing === undefined) {
    // The file goes to this bank, so the debtor's agent is the bank itself.
    debtor.agent = { ...debtor.agent, bic: profile.bic };
    autoFilled.push(`${base}.debtor.agent.bic`);
  }
}

/** Transaction `j` of payment `i`: the creditor's account scheme and clearing, the instruction id. */
function fillTransactionDefaults(
  doc: CanonicalPayment,
  i: number,
  j: number,
  txs: Transaction[],
  type: ReturnType<typeof findPaymentType>,
  profile: BankProfile,
  autoFilled: string[],
): void {
  const original = txs[j];
  if (!original) return;
  // Transactions may still be the caller's objects (the normaliser shares clean ones): copy before filling.
  let tx = original;
  const own = () => {
    if (tx === original) {
      tx = { ...original };
      if (original.creditor) tx.creditor = { ...original.creditor };
      txs[j] = tx;
    }
    return tx;
  };
  const tb = `payments[${i}].transactions[${j}]`;
  const other = tx.creditor?.account?.other;
  if (type?.creditorAccountScheme !== undefined && other?.id !== undefined && other.scheme === undefined) {
    const c = own().creditor as NonNullable<Transaction['creditor']>;
    c.account = { ...c.account, other: { ...other, scheme: type.creditorAccountScheme } };
    autoFilled.push(`${tb}.creditor.account.other.scheme`);
  }
  const agent = tx.creditor?.agent;
  if (
    type?.creditorClearing !== undefined &&
    other?.id !== undefined &&
    tx.creditor &&
    agent?.clearing === undefined &&
    agent?.bic === undefined
  ) {
    const c = own().creditor as NonNullable<Transaction['creditor']>;
    c.agent = { ...agent, clearing: { ...type.creditorClearing } };
    autoFilled.push(`${tb}.creditor.agent.clearing`);
  }
  if (tx.endToEndId === NOT_PROVIDED && tx.instructionId === undefined && typeof doc.messageId === 'string') {
    own().instructionId = generatedInstructionId(doc.messageId, i, j);
    autoFilled.push(`${tb}.instructionId`);
  }
  if (profile.flavour.instructionIdRequired && tx.instructionId === undefined && tx.endToEndId !== undefined) {
    own().instructionId = tx.endToEndId;
    autoFilled.push(`${tb}.instructionId`);
  }
}
