import { addDecimal, compareDecimal, type Decimal, formatDecimal, ZERO } from '../decimal.ts';
import { newTransaction } from '../new-transaction.ts';
import type { Direction, IntegrityWarning, ReferredDocument, StatementTransaction } from '../types.ts';
import { at, child, textAt, type XNode } from '../xml/node.ts';
import {
  addressOf,
  bicOf,
  type CamtAmount,
  CamtDataError,
  codeOrProprietary,
  isTrue,
  partyOf,
  readAmount,
  readDate,
  readDirection,
  readStatus,
} from './camt-values.ts';

/**
 * One camt `Ntry` to statement transactions: one per `TxDtls`, each with its own amount, so a
 * batch-booked entry (NtryDtls/Btch + n TxDtls) becomes n transactions whose amounts add up to the
 * entry, never n copies of the entry total. An entry without TxDtls becomes one transaction.
 */
export type MappedEntry = {
  amount: CamtAmount;
  direction: Direction;
  status: string;
  transactions: StatementTransaction[];
  warnings: IntegrityWarning[];
};

type Charges = { amount: string; currency: string } | null;

/** v02: a list of `Chrgs/Amt`; v04+: `Chrgs/TtlChrgsAndTaxAmt` or `Chrgs/Rcrd/Amt`. */
function readCharges(holder: XNode, fallbackCurrency: string | null): Charges {
  let total: Decimal = ZERO;
  let currency: string | null = null;
  let found = false;
  for (const ch of holder.children) {
    if (ch.name !== 'Chrgs') continue;
    const ttl = readAmount(child(ch, 'TtlChrgsAndTaxAmt'), 'Chrgs/TtlChrgsAndTaxAmt', fallbackCurrency);
    if (ttl) {
      total = addDecimal(total, ttl);
      currency = ttl.currency;
      found = true;
      continue;
    }
    const direct = readAmount(child(ch, 'Amt'), 'Chrgs/Amt', fallbackCurrency);
    if (direct) {
      total = addDecimal(total, direct);
      currency = direct.currency;
      found = true;
    }
    for (const rec of ch.children) {
      if (rec.name !== 'Rcrd') continue;
      const a = readAmount(child(rec, 'Amt'), 'Chrgs/Rcrd/Amt', fallbackCurrency);
      if (a) {
        total = addDecimal(total, a);
        currency = a.currency;
        found = true;
      }
    }
  }
  return found && currency ? { amount: formatDecimal(total, currency), currency } : null;
}

function readRemittance(tx: XNode, t: StatementTransaction): void {
  const rmt = child(tx, 'RmtInf');
  if (!rmt) return;
  const ustrd: string[] = [];
  const docs: ReferredDocument[] = [];
  const extra: string[] = [];
  for (const part of rmt.children) {
    if (part.name === 'Ustrd') {
      const s = part.text.trim();
      if (s) ustrd.push(s);
    } else if (part.name === 'Strd') {
      const cri = child(part, 'CdtrRefInf');
      if (cri && t.creditorReference === null) {
        t.creditorReference = textAt(cri, 'Ref');
        const tp = child(cri, 'Tp');
        t.creditorReferenceType = codeOrProprietary(child(tp, 'CdOrPrtry')) ?? textAt(tp, 'Issr');
      }
      for (const doc of part.children) {
        if (doc.name !== 'RfrdDocInf') continue;
        docs.push({
          type: codeOrProprietary(at(doc, 'Tp', 'CdOrPrtry')),
          number: textAt(doc, 'Nb'),
          date: textAt(doc, 'RltdDt'),
        });
      }
      for (const add of part.children) if (add.name === 'AddtlRmtInf' && add.text.trim()) extra.push(add.text.trim());
    }
  }
  const text = ustrd.length ? ustrd.join(' ') : extra.length ? extra.join(' ') : null;
  t.remittance = text;
  if (docs.length) t.referredDocuments = docs;
}

/** The counterparty is the debtor of a credit and the creditor of a debit. */
function readCounterparty(tx: XNode, direction: Direction, t: StatementTransaction): void {
  const parties = child(tx, 'RltdPties');
  const agents = child(tx, 'RltdAgts');
  const credit = direction === 'credit';
  // Constant names: a template string here would be built, and compared by content, on every transaction.
  const party =
    partyOf(child(parties, credit ? 'Dbtr' : 'Cdtr')) ?? partyOf(child(parties, credit ? 'UltmtDbtr' : 'UltmtCdtr'));
  const account = child(parties, credit ? 'DbtrAcct' : 'CdtrAcct');
  if (party) {
    t.counterpartyName = textAt(party, 'Nm');
    const adr = addressOf(party);
    t.counterpartyCountry = adr.country;
    t.counterpartyAddress = adr.address;
  }
  if (account) {
    t.counterpartyIban = textAt(account, 'Id', 'IBAN');
    t.counterpartyAccount = t.counterpartyIban ?? textAt(account, 'Id', 'Othr', 'Id');
  }
  t.counterpartyBic = bicOf(child(agents, credit ? 'DbtrAgt' : 'CdtrAgt'));
}

function readTxAmount(tx: XNode, entry: CamtAmount, single: boolean): CamtAmount | null {
  const own =
    readAmount(child(tx, 'Amt'), 'TxDtls/Amt', entry.currency) ??
    readAmount(at(tx, 'AmtDtls', 'TxAmt', 'Amt'), 'TxDtls/AmtDtls/TxAmt', entry.currency);
  if (own) return own;
  if (single) return entry;
  const instd = readAmount(at(tx, 'AmtDtls', 'InstdAmt', 'Amt'), 'TxDtls/AmtDtls/InstdAmt', entry.currency);
  return instd && instd.currency === entry.currency ? instd : null;
}

function fillBankCode(holder: XNode | undefined, t: StatementTransaction): void {
  const bk = child(holder, 'BkTxCd');
  if (!bk) return;
  const domn = child(bk, 'Domn');
  if (domn) {
    t.txCodeDomain = textAt(domn, 'Cd');
    t.txCodeFamily = textAt(domn, 'Fmly', 'Cd');
    t.txCodeSubFamily = textAt(domn, 'Fmly', 'SubFmlyCd');
  }
  const prtry = textAt(bk, 'Prtry', 'Cd');
  if (prtry) t.txCodeProprietary = prtry;
}

export function mapEntry(ntry: XNode, entryIndex: number, accountCurrency: string | null): MappedEntry {
  const amount = readAmount(child(ntry, 'Amt'), 'Ntry/Amt', accountCurrency);
  if (!amount) throw new CamtDataError(`entry ${entryIndex + 1}: no amount`);
  const direction = readDirection(child(ntry, 'CdtDbtInd'));
  if (!direction) throw new CamtDataError(`entry ${entryIndex + 1}: CdtDbtInd must be CRDT or DBIT`);
  const warnings: IntegrityWarning[] = [];
  if (amount.excessPrecision) {
    warnings.push({
      code: 'amount_precision',
      message: `entry ${entryIndex + 1}: ${amount.text} ${amount.currency} has more decimals than the currency`,
    });
  }
  const status = readStatus(child(ntry, 'Sts'));
  const bookingDate = readDate(child(ntry, 'BookgDt'));
  const valueDate = readDate(child(ntry, 'ValDt'));
  const bankRef = textAt(ntry, 'AcctSvcrRef');
  const entryRef = textAt(ntry, 'NtryRef');
  const reversal = isTrue(child(ntry, 'RvslInd'));
  const entryCharges = readCharges(ntry, amount.currency);
  const additional = textAt(ntry, 'AddtlNtryInf');

  const details: XNode[] = [];
  let batchNode: XNode | undefined;
  for (const d of ntry.children) {
    if (d.name !== 'NtryDtls') continue;
    batchNode ??= child(d, 'Btch');
    for (const tx of d.children) if (tx.name === 'TxDtls') details.push(tx);
  }
  let batch: StatementTransaction['batch'] = null;
  if (batchNode) {
    const count = textAt(batchNode, 'NbOfTxs');
    const total = readAmount(child(batchNode, 'TtlAmt'), 'Btch/TtlAmt', amount.currency);
    batch = {
      messageId: textAt(batchNode, 'MsgId'),
      paymentInfoId: textAt(batchNode, 'PmtInfId'),
      count: count && /^\d+$/.test(count) ? Number(count) : null,
      total: total ? total.text : null,
    };
  }

  const base = (): StatementTransaction => {
    const t = newTransaction(entryIndex, amount.currency, direction, amount.text);
    t.bankRef = bankRef;
    t.entryRef = entryRef;
    t.status = status;
    t.bookingDate = bookingDate;
    t.valueDate = valueDate;
    t.reversal = reversal;
    t.batch = batch;
    t.additionalInfo = additional;
    fillBankCode(ntry, t);
    return t;
  };

  const transactions: StatementTransaction[] = [];
  if (details.length === 0) {
    const t = base();
    t.amount = amount.text;
    if (entryCharges) {
      t.chargeAmount = entryCharges.amount;
      t.chargeCurrency = entryCharges.currency;
    }
    if (batch) t.paymentInfoId = batch.paymentInfoId;
    const instd = readAmount(at(ntry, 'AmtDtls', 'InstdAmt', 'Amt'), 'Ntry/AmtDtls/InstdAmt', amount.currency);
    if (instd) {
      t.originalAmount = instd.text;
      t.originalCurrency = instd.currency;
    }
    transactions.push(t);
    return { amount, direction, status, transactions, warnings };
  }

  const single = details.length === 1;
  let sum: Decimal = ZERO;
  let summable = true;
  for (const tx of details) {
    const t = base();
    const own = readTxAmount(tx, amount, single);
    const txDirection = readDirection(child(tx, 'CdtDbtInd')) ?? direction;
    t.direction = txDirection;
    if (own) {
      t.amount = own.text;
      t.currency = own.currency;
      if (own.currency === amount.currency)
        sum = addDecimal(sum, txDirection === direction ? own : { units: -own.units, scale: own.scale });
      else summable = false;
    } else summable = false;
    const refs = child(tx, 'Refs');
    if (refs) {
      t.acctSvcrRef = textAt(refs, 'AcctSvcrRef');
      t.endToEndId = textAt(refs, 'EndToEndId');
      t.instructionId = textAt(refs, 'InstrId');
      t.transactionId = textAt(refs, 'TxId');
      t.paymentInfoId = textAt(refs, 'PmtInfId') ?? batch?.paymentInfoId ?? null;
      t.mandateId = textAt(refs, 'MndtId');
    } else if (batch) t.paymentInfoId = batch.paymentInfoId;
    const instd = readAmount(at(tx, 'AmtDtls', 'InstdAmt', 'Amt'), 'TxDtls/AmtDtls/InstdAmt', t.currency);
    if (instd) {
      t.originalAmount = instd.text;
      t.originalCurrency = instd.currency;
    }
    t.exchangeRate =
      textAt(tx, 'AmtDtls', 'InstdAmt', 'CcyXchg', 'XchgRate') ?? textAt(tx, 'AmtDtls', 'TxAmt', 'CcyXchg', 'XchgRate');
    if (child(tx, 'BkTxCd')) fillBankCode(tx, t);
    const charges = readCharges(tx, t.currency) ?? (single ? entryCharges : null);
    if (charges) {
      t.chargeAmount = charges.amount;
      t.chargeCurrency = charges.currency;
    }
    readCounterparty(tx, direction, t);
    readRemittance(tx, t);
    const rtr = child(tx, 'RtrInf');
    if (rtr) t.returnReason = codeOrProprietary(child(rtr, 'Rsn')) ?? textAt(rtr, 'AddtlInf');
    t.additionalInfo = textAt(tx, 'AddtlTxInf') ?? additional;
    transactions.push(t);
  }
  if (!single) {
    if (!summable) {
      warnings.push({
        code: 'batch_amount_mismatch',
        message: `entry ${entryIndex + 1}: ${details.length} transactions without their own amount in ${amount.currency}; the entry total ${amount.text} is not repeated on them`,
      });
    } else if (compareDecimal(sum, amount) !== 0) {
      warnings.push({
        code: 'batch_amount_mismatch',
        message: `entry ${entryIndex + 1}: transactions add up to ${formatDecimal(sum, amount.currency)}, the entry says ${amount.text} ${amount.currency}`,
      });
    }
  }
  return { amount, direction, status, transactions, warnings };
}
