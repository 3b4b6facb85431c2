import type { Buffer } from 'node:buffer';
import type { AutoSelection } from '../banks/select-type.ts';
import type { BankProfile, PainVersion } from '../banks/types.ts';
import { normaliseShell } from '../canonical/normalise.ts';
import type { CanonicalPayment } from '../canonical/types.ts';
import { formatMinor } from '../money/money.ts';
import { transactionTemplates, writeTransaction } from '../pain001/fast-transaction-xml.ts';
import { DOCUMENT_END, documentHead, PMTINF_END, pmtInfHeader, versionTags } from '../pain001/write-pain001.ts';
import { XmlBytes } from '../pain001/xml-bytes.ts';
import { checkBankDocument, checkBankPayment } from '../validation/bank-rules.ts';
import type { TxRun } from '../validation/fast-transaction.ts';
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
import type { DocumentPlan } from '../validation/plan.ts';
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
  bytes: Buffer;
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

/** `sum` at exponent `exp` plus `minor` at exponent `e`, rescaled to the larger; NaN once beyond exact doubles. */
function addScaled(acc: { sum: number; exp: number }, minor: number, e: number): boolean {
  if (e > acc.exp) {
    acc.sum *= 10 ** (e - acc.exp);
    acc.exp = e;
  }
  acc.sum += e === acc.exp ? minor : minor * 10 ** (acc.exp - e);
  return acc.sum <= MAX_EXACT;
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
  const t = versionTags(painVersion);
  const templates = transactionTemplates(t);
  let expected = 0;
  for (const plan of plans) expected += plan.payment.transactions.length;
  const out = new XmlBytes(expected);
  const fields = emptyFields();
  // Transaction warnings go to their own sink and are put back after their payment's own issues.
  const txSink = new IssueSink(profile.key);
  const runs: TxRun[] = [];
  const seen = new UniqueIds(expected);
  const docSum = { sum: 0, exp: 0 };
  const totals: Total[] = [];
  let total: Total | undefined;
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
    );
    runs.push(run);
    const txs = plan.payment.transactions;
    const n = txs.length;
    const id = plan.payment.paymentId ?? '';
    // One PmtInf per transaction where the flavour says so; per currency only while there is one currency.
    const perTransaction = flavour.grouping === 'per-transaction' && n > 1;
    const perCurrency = flavour.grouping === 'per-currency';
    const header = perTransaction ? undefined : out.mark();
    const group = { sum: 0, exp: 0 };
    for (let j = 0; j < n; j++) {
      if (!readTransaction(txs[j] as Record<string, unknown>, j, run, fields)) return undefined;
      const minor = fields.minor;
      const e = fields.exponent;
      const currency = fields.currency;
      if (perCurrency && j > 0 && currency !== total?.currency) return undefined;
      if (total?.currency !== currency) {
        total = totalOf(totals, currency, e);
      }
      total.sum += minor;
      if (total.sum > MAX_EXACT || !addScaled(docSum, minor, e)) return undefined;
      if (perTransaction) {
        const head = { plan, pmtInfId: `${id}-${j + 1}`, count: 1, ctrlSum: formatMinor(BigInt(minor), e) };
        out.write(pmtInfHeader(docPlan, head, t));
        if (!writeTransaction(out, fields, run, templates, j, type.code)) return undefined;
        out.write(PMTINF_END);
      } else {
        if (!addScaled(group, minor, e)) return undefined;
        if (!writeTransaction(out, fields, run, templates, j, type.code)) return undefined;
      }
      out.written++;
    }
    if (header) {
      const ctrlSum = formatMinor(BigInt(group.sum), group.exp);
      header.text = pmtInfHeader(docPlan, { plan, pmtInfId: id, count: n, ctrlSum }, t);
      out.write(PMTINF_END);
    }
  }
  out.write(DOCUMENT_END);
  const txIssueStarts: number[] = [];
  for (const run of runs) {
    txIssueStarts.push(txSink.issues.length);
    transliterationWarnings(run, txSink);
  }
  out.prepend(documentHead(docPlan, expected, formatMinor(BigInt(docSum.sum), docSum.exp)));

  return {
    bytes: out.bytes(),
    doc,
    issues: inOrder(sink.issues, shell.ends, txSink.issues, txIssueStarts),
    unknownFieldsDropped: shell.unknownFieldsDropped,
    autoSelected,
    autoFilled,
    transactionCount: expected,
    totals: totals.map((x) => ({ currency: x.currency, amount: formatMinor(BigInt(x.sum), x.exp) })),
  };
}

/** The normaliser's order: the document's and each payment's own issues, then that payment's transactions'. */
function inOrder(
  shell: ValidationIssue[],
  ends: number[],
  txs: ValidationIssue[],
  starts: number[],
): ValidationIssue[] {
  if (txs.length === 0) return shell;
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
