import { addDecimal, compareDecimal, type Decimal, formatDecimal, ZERO } from '../../money/decimal.ts';
import { newTransaction } from '../new-transaction.ts';
import type { Direction, IntegrityWarning, ReferredDocument, StatementTransaction } from '../types.ts';
import type { Tree } from '../xml/tree.ts';
import {
  addressOf,
  bicOf,
  type CamtAmount,
  CamtDataError,
  codeOrProprietary,
  isTrue,
  partyOf,
  readAmount,
  readAmountLike,
  readDate,
  readDirection,
  readStatus,
} from './camt-values.ts';
import { N } from './names.ts';

/**
 * One camt `Ntry` to statement transactions: one per `TxDtls`, each with its own amount, so a
 * batch-booked entry (NtryDtls/Btch + n TxDtls) becomes n transactions whose amounts add up to the
 * entry, never n copies of the entry total. An entry without TxDtls becomes one transaction.
 * The entry is read from the tokenizer's flat tree (`t`, node indexes) while it is still current.
 */
export type MappedEntry = {
  amount: CamtAmount;
  direction: Direction;
  status: string;
  transactions: StatementTransaction[];
  warnings: IntegrityWarning[];
};

type Charges = { amount: string; currency: string } | null;

/**
 * The entry's AddtlNtryInf and the detail's AddtlTxInf are two texts (camt.053 Ntry/AddtlNtryInf,
 * Ntry/NtryDtls/TxDtls/AddtlTxInf: the bank writes the booking text on one, the payment's on the other):
 * both are kept, the entry's first, once when they are the same.
 */
function bothInfos(entry: string | null, detail: string | null): string | null {
  if (entry === null || entry === detail) return detail ?? entry;
  return detail === null ? entry : `${entry}; ${detail}`;
}

/** v02: a list of `Chrgs/Amt`; v04+: `Chrgs/TtlChrgsAndTaxAmt` or `Chrgs/Rcrd/Amt`. */
function readCharges(t: Tree, holder: number, fallbackCurrency: string | null): Charges {
  let total: Decimal = ZERO;
  let currency: string | null = null;
  let found = false;
  for (let ch = t.first[holder] as number; ch >= 0; ch = t.next[ch] as number) {
    if (t.id[ch] !== N.Chrgs) continue;
    const ttl = readAmount(t, t.child(ch, N.TtlChrgsAndTaxAmt), 'Chrgs/TtlChrgsAndTaxAmt', fallbackCurrency);
    if (ttl) {
      total = addDecimal(total, ttl);
      currency = ttl.currency;
      found = true;
      continue;
    }
    const direct = readAmount(t, t.child(ch, N.Amt), 'Chrgs/Amt', fallbackCurrency);
    if (direct) {
      total = addDecimal(total, direct);
      currency = direct.currency;
      found = true;
    }
    for (let rec = t.first[ch] as number; rec >= 0; rec = t.next[rec] as number) {
      if (t.id[rec] !== N.Rcrd) continue;
      const a = readAmount(t, t.child(rec, N.Amt), 'Chrgs/Rcrd/Amt', fallbackCurrency);
      if (a) {
        total = addDecimal(total, a);
        currency = a.currency;
        found = true;
      }
    }
  }
  return found && currency ? { amount: formatDecimal(total, currency), currency } : null;
}

function readRemittance(t: Tree, tx: number, out: StatementTransaction): void {
  const rmt = t.child(tx, N.RmtInf);
  if (rmt < 0) return;
  let text: string | null = null;
  let ustrdCount = 0;
  let ustrd: string[] | null = null; // only built for a second Ustrd
  let docs: ReferredDocument[] | null = null;
  let extra: string[] | null = null;
  for (let part = t.first[rmt] as number; part >= 0; part = t.next[part] as number) {
    const id = t.id[part];
    if (id === N.Ustrd) {
      const s = t.trimmed(part);
      if (!s) continue;
      if (ustrdCount === 0) text = s;
      else {
        ustrd ??= [text as string];
        ustrd.push(s);
      }
      ustrdCount++;
    } else if (id === N.Strd) {
      const cri = t.child(part, N.CdtrRefInf);
      if (cri >= 0 && out.creditorReference === null) {
        out.creditorReference = t.textAt(cri, N.Ref);
        const tp = t.child(cri, N.Tp);
        out.creditorReferenceType = codeOrProprietary(t, t.child(tp, N.CdOrPrtry)) ?? t.textAt(tp, N.Issr);
      }
      for (let doc = t.first[part] as number; doc >= 0; doc = t.next[doc] as number) {
        if (t.id[doc] !== N.RfrdDocInf) continue;
        docs ??= [];
        docs.push({
          type: codeOrProprietary(t, t.at(doc, N.Tp, N.CdOrPrtry)),
          number: t.textAt(doc, N.Nb),
          date: t.textAt(doc, N.RltdDt),
        });
      }
      for (let add = t.first[part] as number; add >= 0; add = t.next[add] as number) {
        if (t.id[add] !== N.AddtlRmtInf) continue;
        const s = t.trimmed(add);
        if (!s) continue;
        extra ??= [];
        extra.push(s);
      }
    }
  }
  out.remittance = ustrd ? ustrd.join(' ') : ustrdCount ? text : extra ? extra.join(' ') : null;
  if (docs) out.referredDocuments = docs;
}

/**
 * The counterparty is the debtor of a credit and the creditor of a debit, by the transaction's own
 * direction: a debit inside a credit batch (a return, a sweep) pays its creditor, not its debtor.
 */
function readCounterparty(t: Tree, tx: number, direction: Direction, out: StatementTransaction): void {
  const parties = t.child(tx, N.RltdPties);
  const agents = t.child(tx, N.RltdAgts);
  const credit = direction === 'credit';
  let party = partyOf(t, t.child(parties, credit ? N.Dbtr : N.Cdtr));
  if (party < 0) party = partyOf(t, t.child(parties, credit ? N.UltmtDbtr : N.UltmtCdtr));
  const account = t.child(parties, credit ? N.DbtrAcct : N.CdtrAcct);
  if (party >= 0) {
    out.counterpartyName = t.textAt(party, N.Nm);
    const adr = addressOf(t, party);
    out.counterpartyCountry = adr.country;
    out.counterpartyAddress = adr.address;
  }
  if (account >= 0) {
    out.counterpartyIban = t.textAt(account, N.Id, N.IBAN);
    out.counterpartyAccount = out.counterpartyIban ?? t.textAt(account, N.Id, N.Othr, N.Id);
  }
  out.counterpartyBic = bicOf(t, t.child(agents, credit ? N.DbtrAgt : N.CdtrAgt));
}

function readTxAmount(t: Tree, tx: number, entry: CamtAmount, single: boolean): CamtAmount | null {
  const own =
    readAmount(t, t.child(tx, N.Amt), 'TxDtls/Amt', entry.currency) ??
    readAmountLike(t, t.at(tx, N.AmtDtls, N.TxAmt, N.Amt), 'TxDtls/AmtDtls/TxAmt', entry.currency, entry);
  if (own) return own;
  if (single) return entry;
  const instd = readAmount(t, t.at(tx, N.AmtDtls, N.InstdAmt, N.Amt), 'TxDtls/AmtDtls/InstdAmt', entry.currency);
  return instd && instd.currency === entry.currency ? instd : null;
}

/** Bank transaction code of an entry, read once and shared by its transactions. */
type BankCode = { domain: string | null; family: string | null; subFamily: string | null; proprietary: string | null };

const NO_CODE: BankCode = { domain: null, family: null, subFamily: null, proprietary: null };

// Codes repeat from entry to entry: the last one read is reused when the texts are the same.
let lastCode: BankCode = NO_CODE;

/** Drops the remembered bank code: its strings may be slices of the input, which they would keep alive. */
export function forgetBankCode(): void {
  lastCode = NO_CODE;
}

function sameOrNull(t: Tree, i: number, last: string | null): string | null {
  if (last !== null && t.textIs(i, last)) return last;
  return t.value(i);
}

function readBankCode(t: Tree, holder: number): BankCode | null {
  const bk = t.child(holder, N.BkTxCd);
  if (bk < 0) return null;
  const domn = t.child(bk, N.Domn);
  const fmly = t.child(domn, N.Fmly);
  const prtryNode = t.at(bk, N.Prtry, N.Cd);
  const last = lastCode;
  const domain = domn < 0 ? null : sameOrNull(t, t.child(domn, N.Cd), last.domain);
  const family = domn < 0 ? null : sameOrNull(t, t.child(fmly, N.Cd), last.family);
  const subFamily = domn < 0 ? null : sameOrNull(t, t.child(fmly, N.SubFmlyCd), last.subFamily);
  const proprietary = sameOrNull(t, prtryNode, last.proprietary);
  if (
    domain === last.domain &&
    family === last.family &&
    subFamily === last.subFamily &&
    proprietary === last.proprietary
  )
    return last;
  lastCode = { domain, family, subFamily, proprietary };
  return lastCode;
}

/** Fills the code fields as the XNode mapper did: a Domn sets all three, a Prtry/Cd only when present. */
function fillBankCode(code: BankCode | null, hasDomain: boolean, out: StatementTransaction): void {
  if (!code) return;
  if (hasDomain) {
    out.txCodeDomain = code.domain;
    out.txCodeFamily = code.family;
    out.txCodeSubFamily = code.subFamily;
  }
  if (code.proprietary) out.txCodeProprietary = code.proprietary;
}

function hasDomain(t: Tree, holder: number): boolean {
  return t.at(holder, N.BkTxCd, N.Domn) >= 0;
}

// Shared while an entry has no warnings (most): read-only, never pushed to.
const NO_WARNINGS = Object.freeze([]) as unknown as IntegrityWarning[];

// The TxDtls of the entry being mapped (mapEntry does not nest).
let details = new Int32Array(64);

/** Largest |sum| of plain units the batch check adds as a number (exact below 2^53). */
const PLAIN_SUM_LIMIT = 2 ** 52;

/**
 * What the entry level says, which each of its transactions repeats, and the running sum of a batch's
 * transactions. One class with every field set in the constructor: one shape for every entry.
 */
class EntryHead {
  readonly entryIndex: number;
  readonly amount: CamtAmount;
  readonly direction: Direction;
  warnings: IntegrityWarning[] = NO_WARNINGS;
  status = '';
  bookingDate: string | null = null;
  valueDate: string | null = null;
  bankRef: string | null = null;
  entryRef: string | null = null;
  reversal = false;
  charges: Charges = null;
  additional: string | null = null;
  code: BankCode | null = null;
  codeHasDomain = false;
  batch: StatementTransaction['batch'] = null;
  // The transactions' sum for a batch: plain amounts as a number of units at scale 2 while that is exact
  // (plainSum), the rest as a Decimal (sum); together the exact sum at the largest scale added.
  sum: Decimal = ZERO;
  plainSum = 0;
  plainAdded = false;
  summable = true;

  constructor(entryIndex: number, amount: CamtAmount, direction: Direction) {
    this.entryIndex = entryIndex;
    this.amount = amount;
    this.direction = direction;
  }

  warn(warning: IntegrityWarning): void {
    if (this.warnings === NO_WARNINGS) this.warnings = [];
    this.warnings.push(warning);
  }
}

function readHead(t: Tree, ntry: number, entryIndex: number, accountCurrency: string | null): EntryHead {
  const amount = readAmount(t, t.child(ntry, N.Amt), 'Ntry/Amt', accountCurrency);
  if (!amount) throw new CamtDataError(`entry ${entryIndex + 1}: no amount`);
  const direction = readDirection(t, t.child(ntry, N.CdtDbtInd));
  if (!direction) throw new CamtDataError(`entry ${entryIndex + 1}: CdtDbtInd must be CRDT or DBIT`);
  const head = new EntryHead(entryIndex, amount, direction);
  if (amount.excessPrecision) {
    head.warn({
      code: 'amount_precision',
      message: `entry ${entryIndex + 1}: ${amount.text} ${amount.currency} has more decimals than the currency`,
    });
  }
  head.status = readStatus(t, t.child(ntry, N.Sts));
  head.bookingDate = readDate(t, t.child(ntry, N.BookgDt));
  head.valueDate = readDate(t, t.child(ntry, N.ValDt));
  head.bankRef = t.textAt(ntry, N.AcctSvcrRef);
  head.entryRef = t.textAt(ntry, N.NtryRef);
  head.reversal = isTrue(t, t.child(ntry, N.RvslInd));
  head.charges = readCharges(t, ntry, amount.currency);
  head.additional = t.textAt(ntry, N.AddtlNtryInf);
  head.code = readBankCode(t, ntry);
  head.codeHasDomain = head.code !== null && hasDomain(t, ntry);
  return head;
}

/** Gathers the entry's TxDtls into `details` (returns how many) and reads the first NtryDtls/Btch. */
function collectDetails(t: Tree, ntry: number, head: EntryHead): number {
  let count = 0;
  let batchNode = -1;
  for (let d = t.first[ntry] as number; d >= 0; d = t.next[d] as number) {
    if (t.id[d] !== N.NtryDtls) continue;
    if (batchNode < 0) batchNode = t.child(d, N.Btch);
    for (let tx = t.first[d] as number; tx >= 0; tx = t.next[tx] as number) {
      if (t.id[tx] !== N.TxDtls) continue;
      if (count === details.length) {
        const more = new Int32Array(count * 2);
        more.set(details);
        details = more;
      }
      details[count++] = tx;
    }
  }
  if (batchNode >= 0) {
    const nb = t.textAt(batchNode, N.NbOfTxs);
    const total = readAmount(t, t.child(batchNode, N.TtlAmt), 'Btch/TtlAmt', head.amount.currency);
    head.batch = {
      messageId: t.textAt(batchNode, N.MsgId),
      paymentInfoId: t.textAt(batchNode, N.PmtInfId),
      count: nb && /^\d+$/.test(nb) ? Number(nb) : null,
      total: total ? total.text : null,
    };
  }
  return count;
}

/** A transaction with the entry's shared fields, in the one shape of newTransaction. */
function entryTransaction(head: EntryHead): StatementTransaction {
  const tr = newTransaction(head.entryIndex, head.amount.currency, head.direction, head.amount.text);
  tr.bankRef = head.bankRef;
  tr.entryRef = head.entryRef;
  tr.status = head.status;
  tr.bookingDate = head.bookingDate;
  tr.valueDate = head.valueDate;
  tr.reversal = head.reversal;
  tr.batch = head.batch;
  tr.additionalInfo = head.additional;
  fillBankCode(head.code, head.codeHasDomain, tr);
  return tr;
}

export function mapEntry(t: Tree, ntry: number, entryIndex: number, accountCurrency: string | null): MappedEntry {
  const head = readHead(t, ntry, entryIndex, accountCurrency);
  const { amount, direction, status } = head;
  const count = collectDetails(t, ntry, head);
  if (count === 0)
    return { amount, direction, status, transactions: [entryOnly(t, ntry, head)], warnings: head.warnings };
  const single = count === 1;
  const transactions: StatementTransaction[] = [];
  for (let k = 0; k < count; k++) transactions.push(detailTransaction(t, details[k] as number, head, single));
  if (!single) checkBatchSum(head, count);
  return { amount, direction, status, transactions, warnings: head.warnings };
}

/** An entry without TxDtls: one transaction of the entry's amount. */
function entryOnly(t: Tree, ntry: number, head: EntryHead): StatementTransaction {
  const amount = head.amount;
  const tr = entryTransaction(head);
  tr.amount = amount.text;
  if (head.charges) {
    tr.chargeAmount = head.charges.amount;
    tr.chargeCurrency = head.charges.currency;
  }
  if (head.batch) tr.paymentInfoId = head.batch.paymentInfoId;
  const instd = readAmount(t, t.at(ntry, N.AmtDtls, N.InstdAmt, N.Amt), 'Ntry/AmtDtls/InstdAmt', amount.currency);
  if (instd) {
    tr.originalAmount = instd.text;
    tr.originalCurrency = instd.currency;
  }
  return tr;
}

/** One TxDtls: the entry's shared fields and the detail's own. */
function detailTransaction(t: Tree, tx: number, head: EntryHead, single: boolean): StatementTransaction {
  const tr = entryTransaction(head);
  const txDirection = detailAmount(t, tx, head, single, tr);
  const refs = t.child(tx, N.Refs);
  if (refs >= 0) detailRefs(t, refs, head, tr);
  else if (head.batch) tr.paymentInfoId = head.batch.paymentInfoId;
  const instd = readAmount(t, t.at(tx, N.AmtDtls, N.InstdAmt, N.Amt), 'TxDtls/AmtDtls/InstdAmt', tr.currency);
  if (instd) {
    tr.originalAmount = instd.text;
    tr.originalCurrency = instd.currency;
  }
  tr.exchangeRate =
    t.textAt(tx, N.AmtDtls, N.InstdAmt, N.CcyXchg, N.XchgRate) ??
    t.textAt(tx, N.AmtDtls, N.TxAmt, N.CcyXchg, N.XchgRate);
  if (t.child(tx, N.BkTxCd) >= 0) fillBankCode(readBankCode(t, tx), hasDomain(t, tx), tr);
  const charges = readCharges(t, tx, tr.currency) ?? (single ? head.charges : null);
  if (charges) {
    tr.chargeAmount = charges.amount;
    tr.chargeCurrency = charges.currency;
  }
  readCounterparty(t, tx, txDirection, tr);
  readRemittance(t, tx, tr);
  const rtr = t.child(tx, N.RtrInf);
  if (rtr >= 0) tr.returnReason = codeOrProprietary(t, t.child(rtr, N.Rsn)) ?? t.textAt(rtr, N.AddtlInf);
  tr.additionalInfo = bothInfos(head.additional, t.textAt(tx, N.AddtlTxInf));
  return tr;
}

/** The detail's own amount and direction onto `tr`, added to the batch's sum; returns the direction. */
function detailAmount(t: Tree, tx: number, head: EntryHead, single: boolean, tr: StatementTransaction): Direction {
  const amount = head.amount;
  const own = readTxAmount(t, tx, amount, single);
  const direction = readDirection(t, t.child(tx, N.CdtDbtInd)) ?? head.direction;
  tr.direction = direction;
  if (!own) {
    head.summable = false;
    return direction;
  }
  // The entry's own text when equal (a single transaction repeats the entry amount): one string kept, not two.
  tr.amount = own.text === amount.text ? amount.text : own.text;
  tr.currency = own.currency;
  if (own.currency !== amount.currency) head.summable = false;
  else if (!single) {
    const units = own.plain;
    const same = direction === head.direction;
    if (units >= 0 && head.plainSum < PLAIN_SUM_LIMIT && head.plainSum > -PLAIN_SUM_LIMIT) {
      head.plainSum += same ? units : -units;
      head.plainAdded = true;
    } else head.sum = addDecimal(head.sum, same ? own : { units: -own.units, scale: own.scale });
  }
  return direction;
}

/** TxDtls/Refs onto `tr`. */
function detailRefs(t: Tree, refs: number, head: EntryHead, tr: StatementTransaction): void {
  const bankRef = head.bankRef;
  // The same reference as the entry's (usual) is compared in place and shared, not cut again.
  const ref = t.child(refs, N.AcctSvcrRef);
  tr.acctSvcrRef = bankRef !== null && t.textIs(ref, bankRef) ? bankRef : t.value(ref);
  tr.endToEndId = t.textAt(refs, N.EndToEndId);
  tr.instructionId = t.textAt(refs, N.InstrId);
  tr.transactionId = t.textAt(refs, N.TxId);
  tr.paymentInfoId = t.textAt(refs, N.PmtInfId) ?? head.batch?.paymentInfoId ?? null;
  tr.mandateId = t.textAt(refs, N.MndtId);
}

/** A batch's transactions add up to the entry, or the entry gets a warning. */
function checkBatchSum(head: EntryHead, count: number): void {
  const { amount, entryIndex } = head;
  if (head.plainAdded) head.sum = addDecimal(head.sum, { units: BigInt(head.plainSum), scale: 2 });
  if (!head.summable) {
    head.warn({
      code: 'batch_amount_mismatch',
      message: `entry ${entryIndex + 1}: ${count} transactions without their own amount in ${amount.currency}; the entry total ${amount.text} is not repeated on them`,
    });
  } else if (compareDecimal(head.sum, amount) !== 0) {
    head.warn({
      code: 'batch_amount_mismatch',
      message: `entry ${entryIndex + 1}: transactions add up to ${formatDecimal(head.sum, amount.currency)}, the entry says ${amount.text} ${amount.currency}`,
    });
  }
}
