import { parseAmountText } from '../../money/decimal.ts';
import { isRealDate } from '../mt940/line61.ts';
import {
  checkBalances,
  checkSummary,
  computedSummary,
  type EntryTotals,
  mergeSummary,
  pickOpeningClosing,
} from '../statement-totals.ts';
import type { Balance, EntrySummary, IntegrityWarning, NormalisedStatement, StatementTransaction } from '../types.ts';
import type { Tree } from '../xml/tree.ts';
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
import { N } from './names.ts';

/**
 * The statement-level part of a camt Stmt/Rpt/Ntfctn (everything except the entries, which were
 * mapped one by one while streaming) plus the integrity checks over the whole block. The header is a
 * small tree of its own (`header`, root 0) into which the statement's header elements were copied.
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

function readBalance(t: Tree, bal: number, index: number): Balance {
  const tp = t.child(bal, N.Tp);
  const type = codeOrProprietary(t, t.child(tp, N.CdOrPrtry)) ?? 'UNKNOWN';
  const subType = codeOrProprietary(t, t.child(tp, N.SubTp));
  const what = `balance ${index + 1} (${type})`;
  const amount = readAmount(t, t.child(bal, N.Amt), what, null);
  if (!amount) throw new CamtDataError(`${what}: no amount`);
  const direction = readDirection(t, t.child(bal, N.CdtDbtInd)) ?? 'credit';
  const date = readDate(t, t.child(bal, N.Dt));
  if (!date) throw new CamtDataError(`${what}: no date (Bal/Dt is mandatory)`);
  const line = t.child(bal, N.CdtLine);
  const lineAmount = readAmount(t, t.child(line, N.Amt), `${what} credit line`, amount.currency);
  return {
    type: subType ? `${type}/${subType}` : type,
    amount: amount.text,
    currency: amount.currency,
    direction,
    date,
    creditLineIncluded: isTrue(t, t.child(line, N.Incl)),
    creditLineAmount: lineAmount ? lineAmount.text : null,
  };
}

/**
 * TxsSummry as far as it is given. Its Sum elements are schema DecimalNumber, which may be signed: a bank
 * that writes its debit total as "-120.00" means debits of 120.00 (the summary's sums are magnitudes, as
 * the entries' are), so the sign is dropped there; a negative credit or total sum says nothing we can
 * check and is left out with an ignored_field warning. Neither refuses the statement.
 */
function readFileSummary(
  t: Tree,
  sum: number,
  currency: string | null,
  warnings: IntegrityWarning[],
): Partial<EntrySummary> {
  if (sum < 0) return {};
  const out: Partial<EntrySummary> = {};
  const count = (n: number) => {
    const v = t.textAt(n, N.NbOfNtries);
    return v && /^\d+$/.test(v) ? Number(v) : undefined;
  };
  const amount = (n: number, path: string) => {
    const s = t.child(n, N.Sum);
    if (s < 0) return undefined;
    const raw = t.trimmed(s);
    if (raw.startsWith('-')) {
      const magnitude = currency ? parseAmountText(raw.slice(1), currency) : undefined;
      if (magnitude && n === t.child(sum, N.TtlDbtNtries)) return magnitude.text;
      warnings.push({ code: 'ignored_field', message: `${path} "${raw}" is negative: not checked` });
      return undefined;
    }
    const attrs = t.attrs[s] as string;
    const a = readAmount(t, s, path, currency, attrs || (currency ? `Ccy="${currency}"` : ''));
    return a ? a.text : undefined;
  };
  const ttl = t.child(sum, N.TtlNtries);
  const cdt = t.child(sum, N.TtlCdtNtries);
  const dbt = t.child(sum, N.TtlDbtNtries);
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
  readNet(t, ttl, currency, warnings, out);
  return out;
}

/**
 * The file's net amount of all entries with its direction: camt .02-.04 `TtlNtries/TtlNetNtryAmt` and
 * `TtlNtries/CdtDbtInd`, .05 on `TtlNtries/TtlNetNtry/{Amt, CdtDbtInd}`. An unreadable one is left out
 * with ignored_field (a summary never refuses the statement).
 */
function readNet(
  t: Tree,
  ttl: number,
  currency: string | null,
  warnings: IntegrityWarning[],
  out: Partial<EntrySummary>,
) {
  if (ttl < 0) return;
  const net = t.child(ttl, N.TtlNetNtry);
  const node = net >= 0 ? t.child(net, N.Amt) : t.child(ttl, N.TtlNetNtryAmt);
  if (node < 0) return;
  const raw = t.trimmed(node);
  const indicator = t.textAt(net >= 0 ? net : ttl, N.CdtDbtInd);
  const amount = currency ? parseAmountText(raw, currency) : undefined;
  const path = net >= 0 ? 'TxsSummry/TtlNtries/TtlNetNtry' : 'TxsSummry/TtlNtries/TtlNetNtryAmt';
  if (!amount || !/^\d*(?:\.\d*)?$/.test(raw) || (indicator !== 'CRDT' && indicator !== 'DBIT')) {
    warnings.push({
      code: 'ignored_field',
      message: `${path} "${raw}" ${indicator ?? ''} is not a net amount and direction: not checked`,
    });
    return;
  }
  out.totalNet = amount.text;
  out.totalDirection = indicator === 'CRDT' ? 'credit' : 'debit';
}

const ISO_DATE_TIME =
  /^(\d{4}-\d{2}-\d{2})T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?(?:Z|[+-](?:0\d|1[0-4]):[0-5]\d)?$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * FrToDt's FrDtTm/ToDtTm (ISODateTime) or FrDt/ToDt (ISODate): a value that is not one (or not a calendar
 * day) is left out of the period with an invalid_date warning instead of passing as the statement's date.
 */
function periodEnd(
  t: Tree,
  period: number,
  dateTime: number,
  date: number,
  label: string,
  warnings: IntegrityWarning[],
): string | null {
  const dt = t.textAt(period, dateTime);
  const value = dt ?? t.textAt(period, date);
  if (value === null) return null;
  const day = dt !== null ? ISO_DATE_TIME.exec(value)?.[1] : ISO_DATE.test(value) ? value : undefined;
  if (day !== undefined && isRealDate(day)) return value;
  const name = dt !== null ? (dateTime === N.FrDtTm ? 'FrDtTm' : 'ToDtTm') : date === N.FrDt ? 'FrDt' : 'ToDt';
  warnings.push({
    code: 'invalid_date',
    message: `${label}: FrToDt/${name} "${value}" is not a date: left out of the period`,
  });
  return null;
}

export type StatementContext = {
  messageId: string | null;
  messageCreatedAt: string | null;
  messagePage: { page: string | null; last: boolean | null } | null;
  sourceFormat: string;
};

export function accountLabelOf(header: Tree): string | null {
  return header.textAt(0, N.Acct, N.Id, N.IBAN) ?? header.textAt(0, N.Acct, N.Id, N.Othr, N.Id);
}

export function mapStatement(
  t: Tree,
  ctx: StatementContext,
  totals: EntryTotals,
  transactions: StatementTransaction[],
  label: string,
): { statement: NormalisedStatement; warnings: IntegrityWarning[] } {
  const balances: Balance[] = [];
  const header = 0;
  for (let b = t.first[header] as number; b >= 0; b = t.next[b] as number)
    if (t.id[b] === N.Bal) balances.push(readBalance(t, b, balances.length));
  const acct = t.child(header, N.Acct);
  const accountCurrency = t.textAt(acct, N.Ccy) ?? totals.currency ?? balances[0]?.currency ?? null;
  const { opening: openingBalance, closing: closingBalance, paired } = pickOpeningClosing(balances, PAIRS);
  const computed = computedSummary(totals);
  const warnings: IntegrityWarning[] = [];
  const fileSummary = readFileSummary(t, t.child(header, N.TxsSummry), accountCurrency, warnings);
  const hasFileSummary = Object.keys(fileSummary).length > 0;
  if (hasFileSummary) warnings.push(...checkSummary(fileSummary, computed, label));
  // Notifications (camt.054) and many intraday reports carry no balances by design; a statement must.
  const expectsBalances = ctx.sourceFormat.startsWith('camt.053') || balances.length > 0;
  if (paired || expectsBalances) {
    warnings.push(...checkBalances(paired ? openingBalance : null, paired ? closingBalance : null, totals, label));
  }
  let pg = t.child(header, N.StmtPgntn);
  if (pg < 0) pg = t.child(header, N.RptPgntn);
  if (pg < 0) pg = t.child(header, N.NtfctnPgntn);
  const owner = partyOf(t, t.child(acct, N.Ownr));
  const period = t.child(header, N.FrToDt);
  const statement: NormalisedStatement = {
    messageId: ctx.messageId,
    statementId: t.textAt(header, N.Id),
    createdAt: t.textAt(header, N.CreDtTm) ?? ctx.messageCreatedAt,
    sequenceNumber: t.textAt(header, N.ElctrncSeqNb),
    legalSequenceNumber: t.textAt(header, N.LglSeqNb),
    sourceFormat: ctx.sourceFormat,
    accountIban: t.textAt(acct, N.Id, N.IBAN),
    accountOther: t.textAt(acct, N.Id, N.Othr, N.Id),
    accountCurrency,
    accountOwner: t.textAt(owner, N.Nm) ?? t.textAt(acct, N.Nm),
    accountServicerBic: bicOf(t, t.child(acct, N.Svcr)),
    fromDate: periodEnd(t, period, N.FrDtTm, N.FrDt, label, warnings),
    toDate: periodEnd(t, period, N.ToDtTm, N.ToDt, label, warnings),
    copyDuplicate: t.textAt(header, N.CpyDplctInd),
    pagination:
      pg >= 0
        ? {
            page: t.textAt(pg, N.PgNb),
            last: t.textAt(pg, N.LastPgInd) === null ? null : isTrue(t, t.child(pg, N.LastPgInd)),
          }
        : ctx.messagePage,
    entryCount: totals.count,
    entrySummary: hasFileSummary ? mergeSummary(fileSummary, computed) : computed,
    balances,
    openingBalance,
    closingBalance,
    transactions,
    droppedCurrencies: [...totals.otherCurrencies].sort(),
    additionalInfo:
      t.textAt(header, N.AddtlStmtInf) ?? t.textAt(header, N.AddtlRptInf) ?? t.textAt(header, N.AddtlNtfctnInf),
  };
  return { statement, warnings };
}
