import {
  checkBalances,
  checkSummary,
  computedSummary,
  type EntryTotals,
  mergeSummary,
  pickOpeningClosing,
} from '../statement-totals.ts';
import type { Balance, EntrySummary, IntegrityWarning, NormalisedStatement, StatementTransaction } from '../types.ts';
import { at, child, textAt, type XNode } from '../xml/node.ts';
import {
  bicOf,
  CamtDataError,
  codeOrProprietary,
  isTrue,
  partyOf,
  readAmount,
  readDate,
  readDirection,
} from './camt-values.ts';

/**
 * The statement-level part of a camt Stmt/Rpt/Ntfctn (everything except the entries, which were
 * mapped one by one while streaming) plus the integrity checks over the whole block.
 */

// Booked with booked first: PRCD ("previously closed booked") is what several banks send instead of
// OPBD, and an intraday camt.052 closes on an interim booked balance. Available balances pair last.
const PAIRS = [
  [
    ['OPBD', 'PRCD'],
    ['CLBD', 'ITBD'],
  ],
  [['OPAV'], ['CLAV', 'ITAV']],
] as const;

function readBalance(bal: XNode, index: number): Balance {
  const tp = child(bal, 'Tp');
  const type = codeOrProprietary(child(tp, 'CdOrPrtry')) ?? 'UNKNOWN';
  const subType = codeOrProprietary(child(tp, 'SubTp'));
  const what = `balance ${index + 1} (${type})`;
  const amount = readAmount(child(bal, 'Amt'), what, null);
  if (!amount) throw new CamtDataError(`${what}: no amount`);
  const direction = readDirection(child(bal, 'CdtDbtInd')) ?? 'credit';
  const date = readDate(child(bal, 'Dt'));
  if (!date) throw new CamtDataError(`${what}: no date (Bal/Dt is mandatory)`);
  const line = child(bal, 'CdtLine');
  const lineAmount = readAmount(child(line, 'Amt'), `${what} credit line`, amount.currency);
  return {
    type: subType ? `${type}/${subType}` : type,
    amount: amount.text,
    currency: amount.currency,
    direction,
    date,
    creditLineIncluded: isTrue(child(line, 'Incl')),
    creditLineAmount: lineAmount ? lineAmount.text : null,
  };
}

function readFileSummary(sum: XNode | undefined, currency: string | null): Partial<EntrySummary> {
  if (!sum) return {};
  const out: Partial<EntrySummary> = {};
  const count = (n: XNode | undefined) => {
    const t = textAt(n, 'NbOfNtries');
    return t && /^\d+$/.test(t) ? Number(t) : undefined;
  };
  const amount = (n: XNode | undefined, path: string) => {
    const s = child(n, 'Sum');
    if (!s) return undefined;
    const a = readAmount({ ...s, attrs: s.attrs || (currency ? `Ccy="${currency}"` : '') }, path, currency);
    return a ? a.text : undefined;
  };
  const ttl = child(sum, 'TtlNtries');
  const cdt = child(sum, 'TtlCdtNtries');
  const dbt = child(sum, 'TtlDbtNtries');
  const totalCount = count(ttl);
  if (totalCount !== undefined) out.totalCount = totalCount;
  const totalSum = amount(ttl, 'TxsSummry/TtlNtries/Sum');
  if (totalSum !== undefined) out.totalSum = totalSum;
  const creditCount = count(cdt);
  if (creditCount !== undefined) out.creditCount = creditCount;
  const creditSum = amount(cdt, 'TxsSummry/TtlCdtNtries/Sum');
  if (creditSum !== undefined) out.creditSum = creditSum;
  const debitCount = count(dbt);
  if (debitCount !== undefined) out.debitCount = debitCount;
  const debitSum = amount(dbt, 'TxsSummry/TtlDbtNtries/Sum');
  if (debitSum !== undefined) out.debitSum = debitSum;
  return out;
}

export type StatementContext = {
  messageId: string | null;
  messageCreatedAt: string | null;
  messagePage: { page: string | null; last: boolean | null } | null;
  sourceFormat: string;
};

export function accountLabelOf(header: XNode): string | null {
  return textAt(header, 'Acct', 'Id', 'IBAN') ?? textAt(header, 'Acct', 'Id', 'Othr', 'Id');
}

export function mapStatement(
  header: XNode,
  ctx: StatementContext,
  totals: EntryTotals,
  transactions: StatementTransaction[],
  label: string,
): { statement: NormalisedStatement; warnings: IntegrityWarning[] } {
  const balances: Balance[] = [];
  for (const b of header.children) if (b.name === 'Bal') balances.push(readBalance(b, balances.length));
  const acct = child(header, 'Acct');
  const accountCurrency = textAt(acct, 'Ccy') ?? totals.currency ?? balances[0]?.currency ?? null;
  const { opening: openingBalance, closing: closingBalance, paired } = pickOpeningClosing(balances, PAIRS);
  const computed = computedSummary(totals);
  const fileSummary = readFileSummary(child(header, 'TxsSummry'), accountCurrency);
  const warnings: IntegrityWarning[] = [];
  const hasFileSummary = Object.keys(fileSummary).length > 0;
  if (hasFileSummary) warnings.push(...checkSummary(fileSummary, computed, label));
  // Notifications (camt.054) and many intraday reports carry no balances by design; a statement must.
  const expectsBalances = ctx.sourceFormat.startsWith('camt.053') || balances.length > 0;
  if (paired || expectsBalances) {
    warnings.push(...checkBalances(paired ? openingBalance : null, paired ? closingBalance : null, totals, label));
  }
  const pg = child(header, 'StmtPgntn') ?? child(header, 'RptPgntn') ?? child(header, 'NtfctnPgntn');
  const owner = partyOf(at(acct, 'Ownr'));
  const statement: NormalisedStatement = {
    messageId: ctx.messageId,
    statementId: textAt(header, 'Id'),
    createdAt: textAt(header, 'CreDtTm') ?? ctx.messageCreatedAt,
    sequenceNumber: textAt(header, 'ElctrncSeqNb'),
    legalSequenceNumber: textAt(header, 'LglSeqNb'),
    sourceFormat: ctx.sourceFormat,
    accountIban: textAt(acct, 'Id', 'IBAN'),
    accountOther: textAt(acct, 'Id', 'Othr', 'Id'),
    accountCurrency,
    accountOwner: textAt(owner, 'Nm') ?? textAt(acct, 'Nm'),
    accountServicerBic: bicOf(child(acct, 'Svcr')),
    fromDate: textAt(header, 'FrToDt', 'FrDtTm') ?? textAt(header, 'FrToDt', 'FrDt'),
    toDate: textAt(header, 'FrToDt', 'ToDtTm') ?? textAt(header, 'FrToDt', 'ToDt'),
    copyDuplicate: textAt(header, 'CpyDplctInd'),
    pagination: pg
      ? { page: textAt(pg, 'PgNb'), last: textAt(pg, 'LastPgInd') === null ? null : isTrue(child(pg, 'LastPgInd')) }
      : ctx.messagePage,
    entryCount: totals.count,
    entrySummary: hasFileSummary ? mergeSummary(fileSummary, computed) : computed,
    balances,
    openingBalance,
    closingBalance,
    transactions,
    droppedCurrencies: [...totals.otherCurrencies].sort(),
    additionalInfo: textAt(header, 'AddtlStmtInf') ?? textAt(header, 'AddtlRptInf') ?? textAt(header, 'AddtlNtfctnInf'),
  };
  return { statement, warnings };
}
