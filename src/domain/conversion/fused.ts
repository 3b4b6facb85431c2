import type { AutoSelection } from '../banks/select-type.ts';
import type { BankProfile, PainVersion } from '../banks/types.ts';
import { normaliseShell } from '../canonical/normalise.ts';
import type { CanonicalPayment, Transaction } from '../canonical/types.ts';
import { formatMinor } from '../money/money.ts';
import type { Templates } from '../pain001/fast-transaction-xml.ts';
import { transactionTemplates, writeTransaction } from '../pain001/fast-transaction-xml.ts';
import type { VersionTags } from '../pain001/parts.ts';
import { DOCUMENT_END, documentHead, PMTINF_END, pmtInfHeader, versionTags } from '../pain001/write-pain001.ts';
import type { StaticBytes } from '../pain001/xml-bytes.ts';
import { XmlBytes } from '../pain001/xml-bytes.ts';
import { checkBankDocument, checkBankPayment } from '../validation/bank-rules.ts';
import type { TxFields, TxRun } from '../validation/fast-transaction.ts';
import {
  emptyFields,
  READER_GUARANTEES,
  readTransaction,
  transactionRun,
  transliterationWarnings,
} from '../validation/fast-transaction.ts';
import { checkGenericHeaders } from '../validation/generic.ts';
import type { ValidationIssue } from '../validation/issue.ts';
import { IssueSink } from '../validation/issue.ts';
import { checkPaymentTypeHeader, transactionRequirements } from '../validation/payment-type-rules.ts';
import type { DocumentPlan, PaymentPlan } from '../validation/plan.ts';
import type { CompanySettings } from '../validation/prepare.ts';
import { preparePayments } from '../validation/prepare.ts';
import { UniqueIds } from '../validation/unique-ids.ts';

/**
 * The fused converter: validate and write in one pass over the transactions. The document and its
 * payments go through the same normaliser, preparation and rules as the full path (they are few); each
 * transaction is then read once from the caller's object (validation/fast-transaction.ts), checked on all
 * three levels and written straight into the UTF-8 output, with no normalised copy of the batch and no
 * second pass. NbOfTxs and CtrlSum precede the transactions they count, so headers are written last into
 * room kept for them (pain001/xml-bytes.ts); sums are exact integers of minor units.
 *
 * Undefined means "not this way": an error anywhere, or a shape the fast reader does not take. The caller
 * then runs the full path, which reports every issue in the contract's order; so issues, including the
 * warnings this path raises, never differ between the two.
 */

export type FusedSuccess = {
  /** The file (a rope of chunks: see XmlBytes). */
  xml: string;
  doc: CanonicalPayment;
  issues: ValidationIssue[];
  unknownFieldsDropped: string[];
  autoSelected: AutoSelection[];
  autoFilled: string[];
  transactionCount: number;
  totals: Array<{ currency: string; amount: string }>;
};

/** Generic Max140Text limit of names (as runValidation passes it). */
const NAME_MAX = 140;
const MAX_EXACT = Number.MAX_SAFE_INTEGER;

/**
 * Sums of amounts in minor units are kept at the largest exponent among them (ISO currencies have 0 to
 * 4): `minor` at exponent `e` as a term of a sum kept at `exp` (never smaller), and a sum moved up `by`
 * places. Doubles are exact while the sum stays below 2^53 (MAX_EXACT); the converter declines beyond.
 */
function scaled(minor: number, e: number, exp: number): number {
  return e === exp ? minor : minor * 10 ** (exp - e);
}
function rescaled(sum: number, by: number): number {
  return sum * 10 ** by;
}

type Total = { currency: string; sum: number; exp: number };

/**
 * The entry of `currency` in `totals`, added when new. A function of its own, not a find() callback in
 * the loop: a closure there captures the loop's `currency`, and V8 then allocates that block scope afresh
 * for every transaction (about 40 bytes each, measured with the sampling heap profiler).
 */
function totalOf(totals: Total[], currency: string, exp: number): Total {
  for (const t of totals) if (t.currency === currency) return t;
  const total = { currency, sum: 0, exp };
  totals.push(total);
  return total;
}

export function convertFused(
  raw: unknown,
  profile: BankProfile,
  painVersion: PainVersion,
  now: Date | undefined,
  company: CompanySettings | undefined,
  creationDateTime: (doc: CanonicalPayment) => string,
): FusedSuccess | undefined {
  if (profile.unsupported || !profile.painVersions.includes(painVersion)) return undefined;
  const flavour = profile.flavour;
  const sink = new IssueSink(profile.key);
  const shell = normaliseShell(raw, sink, flavour.charset);
  if (!shell.plain || sink.errorCount > 0) return undefined;
  const doc = shell.payment;
  const { plans, autoSelected, autoFilled } = preparePayments(doc, profile, now, company);
  checkGenericHeaders(doc, plans, sink, flavour.charset, NAME_MAX);
  checkBankDocument(sink, profile, painVersion);
  const addressRules = plans.map((plan) => checkBankPayment(sink, profile, plan));
  for (const plan of plans) {
    checkPaymentTypeHeader(sink, plan);
    const rule = plan.type?.referenceRule;
    // Polish split and tax payments read transliterated free text in their rules: full path.
    if (!plan.type || rule === 'pl-split' || rule === 'pl-tax') return undefined;
  }
  if (sink.errorCount > 0) return undefined;

  const docPlan: DocumentPlan = {
    doc,
    profile,
    painVersion,
    payments: plans,
    creationDateTime: creationDateTime(doc),
  };
  const out = new XmlBytes();
  try {
    return writeDocument(out, { shell, sink, addressRules, docPlan, autoSelected, autoFilled });
  } finally {
    out.release();
  }
}

/** What the document and payment levels prepared for the pass over the transactions. */
type Prepared = {
  shell: ReturnType<typeof normaliseShell>;
  /** Document and payment issues so far (warnings only: the pass starts without errors). */
  sink: IssueSink;
  /** Per payment: the bank's November 2026 address rule applies (checkBankPayment). */
  addressRules: boolean[];
  docPlan: DocumentPlan;
  autoSelected: AutoSelection[];
  autoFilled: string[];
};

/** The pass over every payment's transactions, then the document head: the success, or undefined to decline. */
function writeDocument(out: XmlBytes, prepared: Prepared): FusedSuccess | undefined {
  const { shell, sink, addressRules, docPlan, autoSelected, autoFilled } = prepared;
  const { doc, profile, payments: plans } = docPlan;
  const t = versionTags(docPlan.painVersion);
  const flavour = profile.flavour;
  let expected = 0;
  for (const plan of plans) expected += plan.payment.transactions.length;
  const pass: Pass = {
    out,
    fields: emptyFields(),
    templates: transactionTemplates(t),
    docPlan,
    tags: t,
    perTransaction: flavour.grouping === 'per-transaction',
    perCurrency: flavour.grouping === 'per-currency',
    totals: [],
  };
  // Transaction warnings go to their own sink and are put back after their payment's own issues.
  const txSink = new IssueSink(profile.key);
  const runs: TxRun[] = [];
  const seen = new UniqueIds(expected);
  let docSum = 0;
  let docExp = 0;
  for (let i = 0; i < plans.length; i++) {
    const plan = plans[i] as (typeof plans)[number];
    const type = plan.type as NonNullable<typeof plan.type>;
    const run = transactionRun(
      txSink,
      profile,
      plan,
      type,
      transactionRequirements(type, READER_GUARANTEES),
      addressRules[i] as boolean,
      NAME_MAX,
      seen,
      !autoFilled.includes(`payments[${plan.index}].paymentType`),
    );
    runs.push(run);
    const payment = plan.payment;
    const sum = writePayment(pass, plan, run, payment.transactions, payment.paymentId ?? '');
    if (!sum) return undefined;
    if (sum.exp > docExp) {
      docSum = rescaled(docSum, sum.exp - docExp);
      docExp = sum.exp;
    }
    docSum += scaled(sum.sum, sum.exp, docExp);
    if (docSum > MAX_EXACT) return undefined;
  }
  out.write(DOCUMENT_END);
  const txIssueStarts: number[] = [];
  for (const run of runs) {
    txIssueStarts.push(txSink.issues.length);
    transliterationWarnings(run, txSink);
  }
  out.prepend(documentHead(docPlan, expected, formatMinor(BigInt(docSum), docExp)));

  return {
    xml: out.xml(),
    doc,
    issues: inOrder(sink.issues, shell.ends, txSink.issues, txIssueStarts),
    unknownFieldsDropped: shell.unknownFieldsDropped,
    autoSelected,
    autoFilled,
    transactionCount: expected,
    totals: pass.totals.map((x) => ({ currency: x.currency, amount: formatMinor(BigInt(x.sum), x.exp) })),
  };
}

/** What the pass over the transactions shares from payment to payment: output, templates, currency totals. */
type Pass = {
  out: XmlBytes;
  /** The reader's fields, reused for every transaction. */
  fields: TxFields;
  templates: Templates;
  docPlan: DocumentPlan;
  tags: VersionTags;
  /** The flavour's grouping: one PmtInf per transaction, or per currency. */
  perTransaction: boolean;
  perCurrency: boolean;
  /** Exact sums per currency (see scaled). */
  totals: Total[];
};

/**
 * One payment's transactions `txs`, each read, checked and written, then its PmtInf header: the sum of
 * its amounts, or undefined when the full path must take over.
 * The loop has a function of its own, and reads nothing of the payment's objects but `txs`: V8 then
 * optimises it as a whole and keeps that code. Inside the converter it was compiled on stack replacement
 * and thrown away by the code after it; and code that read the plan's payment depended on the payment
 * objects' map, which V8 builds anew after a major GC, so it was thrown away again every few batches.
 * The running sums are locals for the same reason (no object field changing from integer to double).
 */
function writePayment(
  pass: Pass,
  plan: PaymentPlan,
  run: TxRun,
  txs: Transaction[],
  id: string,
): PaymentSum | undefined {
  const { out, fields, templates, docPlan, tags } = pass;
  const n = txs.length;
  const typeCode = run.type.code;
  // One PmtInf per transaction where the flavour says so; per currency only while there is one currency.
  const perTransaction = pass.perTransaction && n > 1;
  const header = perTransaction ? undefined : out.mark();
  let groupSum = 0;
  let groupExp = 0;
  // The current currency's entry in the totals; its running sum is `totalSum` until the currency changes.
  let total: Total | undefined;
  let totalSum = 0;
  // The current currency's `<InstdAmt Ccy="...">` piece (the reader flags a change of currency).
  let amountOpen: StaticBytes | undefined;
  for (let j = 0; j < n; j++) {
    if (!readTransaction(txs[j] as Record<string, unknown>, j, run, fields)) return undefined;
    const minor = fields.minor;
    const e = fields.exponent;
    if (fields.newCurrency) {
      if (pass.perCurrency && j > 0) return undefined;
      if (total) total.sum = totalSum;
      total = totalOf(pass.totals, fields.currency, e);
      totalSum = total.sum;
      amountOpen = templates.amountOpen.get(fields.currency);
    }
    totalSum += minor;
    if (e > groupExp) {
      groupSum = rescaled(groupSum, e - groupExp);
      groupExp = e;
    }
    groupSum += scaled(minor, e, groupExp);
    if (totalSum > MAX_EXACT || groupSum > MAX_EXACT) return undefined;
    if (perTransaction) {
      const head = { plan, pmtInfId: `${id}-${j + 1}`, count: 1, ctrlSum: formatMinor(BigInt(minor), e) };
      out.write(pmtInfHeader(docPlan, head, tags));
      if (!writeTransaction(out, fields, run, templates, amountOpen as StaticBytes, j, typeCode)) return undefined;
      out.write(PMTINF_END);
    } else if (!writeTransaction(out, fields, run, templates, amountOpen as StaticBytes, j, typeCode)) return undefined;
  }
  if (total) total.sum = totalSum;
  if (header) {
    const ctrlSum = formatMinor(BigInt(groupSum), groupExp);
    header.text = pmtInfHeader(docPlan, { plan, pmtInfId: id, count: n, ctrlSum }, tags);
    out.write(PMTINF_END);
  }
  return { sum: groupSum, exp: groupExp };
}

/** The sum of a payment's amounts in minor units, at the largest exponent among them. */
type PaymentSum = { sum: number; exp: number };

/** The normaliser's order: the document's and each payment's own issues, then that payment's transactions'. */
function inOrder(
  shell: ValidationIssue[],
  ends: number[],
  txs: ValidationIssue[],
  starts: number[],
): ValidationIssue[] {
  if (txs.length === 0) return shell;
  // Without document or payment issues the transactions' issues are already in order (the usual batch).
  if (shell.length === 0) return txs;
  const out: ValidationIssue[] = [];
  let k = 0;
  for (let i = 0; i < starts.length; i++) {
    const end = ends[i] ?? shell.length;
    while (k < end) out.push(shell[k++] as ValidationIssue);
    const to = starts[i + 1] ?? txs.length;
    for (let m = starts[i] as number; m < to; m++) out.push(txs[m] as ValidationIssue);
  }
  while (k < shell.length) out.push(shell[k++] as ValidationIssue);
  return out;
}
