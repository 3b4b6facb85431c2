import { currencyExponent } from '../../money/currencies.ts';
import { parseAmountText } from '../../money/decimal.ts';
import { newTransaction } from '../new-transaction.ts';
import { PlainSums } from '../plain-sums.ts';
import {
  addEntry,
  checkBalances,
  checkSummary,
  computedSummary,
  type EntryTotals,
  mergeSummary,
  newTotals,
  pickBalance,
} from '../statement-totals.ts';
import type {
  Balance,
  EntrySummary,
  IntegrityWarning,
  NormalisedStatement,
  StatementTransaction,
  TransactionSink,
} from '../types.ts';
import { type Details, parseDetails86At } from './details86.ts';
import { legacyParty } from './legacy-party.ts';
import { isRealDate, line61Error, scanLine61, scanned, yymmdd } from './line61.ts';
import { KNOWN_TAGS, type RawBlock } from './split-blocks.ts';
import type { TextWindow } from './text-window.ts';

/**
 * One MT940/MT942 message (from :20: to the end) to a normalised statement. Tag order is checked
 * because a misplaced tag is how truncated or spliced files show: :25: after :61:, a :61: after the
 * closing balance, a statement without an opening or closing balance. Such a block is refused with
 * the reason; the rest of the file is not affected.
 */
export type MappedBlock =
  | { ok: true; statement: NormalisedStatement; warnings: IntegrityWarning[]; account: string | null; closed: boolean }
  | { ok: false; message: string; account: string | null; closed: boolean };

class BlockError extends Error {}

const NON_SWIFT = /[^\x20-\x7e\r]/;
const SWIFT_ONLY = new Set(['20', '21', '28', '28C', '60F', '60M', '62F', '62M']);

function firstLine(value: string): string {
  const nl = value.indexOf('\n');
  return nl < 0 ? value : value.slice(0, nl);
}

function mod97(iban: string): boolean {
  const s = iban.slice(4) + iban.slice(0, 4);
  let rem = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const v = c >= 65 && c <= 90 ? c - 55 : c - 48;
    if (v < 0 || v > 35) return false;
    rem = v > 9 ? (rem * 100 + v) % 97 : (rem * 10 + v) % 97;
  }
  return rem === 1;
}

/** :25: is "IBAN", "IBAN" + currency (ING "NL..EUR"), "BIC/IBAN", "BLZ/account", "/PL.." or a national number. */
type Account = { iban: string | null; other: string | null; currency: string | null };

function readAccount(value: string): Account {
  const raw = value.trim();
  const candidates = raw
    .split('/')
    .map((s) => s.replace(/\s+/g, ''))
    .filter((s) => s !== '');
  for (const c of [raw.replace(/[\s/]+/g, ''), ...candidates]) {
    if (/^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$/.test(c)) {
      if (mod97(c)) return { iban: c, other: null, currency: null };
      const cur = c.slice(-3);
      if (/^[A-Z]{3}$/.test(cur) && mod97(c.slice(0, -3))) return { iban: c.slice(0, -3), other: null, currency: cur };
    }
  }
  return { iban: null, other: raw === '' ? null : raw, currency: null };
}

// C/D, YYMMDD, currency (some banks omit it on intermediate balances), amount with "," (Rabobank's
// old format writes "."), leading zeros of any length, occasionally a space as thousands separator.
const BALANCE = /^([CD])(\d{6})([A-Z]{3})?(\d[\d ]{0,24}(?:[,.]\d*)?)\s*$/;

function readBalance(tag: string, value: string, fallbackCurrency: string | null): Balance {
  const m = BALANCE.exec(value.trim());
  const currency = m?.[3] ?? fallbackCurrency;
  if (!m || !currency)
    throw new BlockError(`:${tag}: "${value.trim().slice(0, 40)}" is not a balance (C/D, YYMMDD, currency, amount)`);
  const digits = (m[4] as string)
    .replace(/ /g, '')
    .replace(',', '.')
    .replace(/^0+(?=\d)/, '');
  const amount = parseAmountText(digits, currency);
  if (!amount) throw new BlockError(`:${tag}: amount "${m[4]}" is not a decimal`);
  return {
    type: tag,
    amount: amount.text,
    currency,
    direction: m[1] === 'D' ? 'debit' : 'credit',
    date: yymmdd(m[2] as string),
    creditLineIncluded: false,
    creditLineAmount: null,
  };
}

/** :90D:/:90C: (MT942): number of entries, currency, sum. */
function readCountSum(value: string): { count: number; currency: string; sum: string } | null {
  const m = /^(\d{1,5})([A-Z]{3})(\d{1,15}(?:,\d*)?)\s*$/.exec(value.trim());
  if (!m) return null;
  const a = parseAmountText((m[3] as string).replace(',', '.'), m[2] as string);
  return a ? { count: Number(m[1]), currency: m[2] as string, sum: a.text } : null;
}

// Allowed predecessor phases per tag: 0 header, 1 opening balance seen, 2 in entries, 3 closing seen.
function phaseOf(tag: string): number {
  switch (tag) {
    case '20':
    case '21':
    case '25':
    case '25P':
    case '28':
    case '28C':
    case '13':
    case '13D':
    case '34F':
      return 0;
    case '60F':
    case '60M':
      return 1;
    case '61':
      return 2;
    default:
      return 3;
  }
}

export function mapBlock(
  block: RawBlock,
  format: 'mt940' | 'mt942',
  blockIndex: number,
  onTransaction: TransactionSink | null,
  win: TextWindow,
): MappedBlock {
  const accountField = block.accountField;
  const account =
    accountField >= 0 ? block.text.slice(block.starts[accountField], block.ends[accountField]).trim() || null : null;
  // "Closed" for the incomplete-file alert: the message ended properly or at least reached its closing balance.
  const hasClosing = block.hasClosing;
  const closed = !block.unclosedSwift && (hasClosing || block.terminated);
  try {
    return { ...mapFields(block, format, blockIndex, account, onTransaction, win), account, closed };
  } catch (e) {
    if (!(e instanceof BlockError)) throw e;
    return {
      ok: false,
      message: `statement ${blockIndex + 1}${account ? ` (${account})` : ''}: ${e.message}`,
      account,
      closed,
    };
  }
}

/**
 * What one block's fields build up, field by field. One class with every field set here keeps one shape,
 * so the field functions below, which take it, stay monomorphic in the per-entry loop.
 */
class BlockState {
  readonly block: RawBlock;
  readonly format: 'mt940' | 'mt942';
  readonly blockIndex: number;
  readonly label: string;
  readonly onTransaction: TransactionSink | null;
  readonly win: TextWindow;
  readonly warnings: IntegrityWarning[] = [];
  readonly balances: Balance[] = [];
  readonly transactions: StatementTransaction[] = [];
  statementId: string | null = null;
  sequence: string | null = null;
  createdAt: string | null = null;
  info: string | null = null;
  acct: Account = { iban: null, other: null, currency: null };
  phase = 0;
  currency: string | null = null;
  totals: EntryTotals = newTotals(null);
  entryIndex = -1;
  lastTx: StatementTransaction | null = null;
  // The transaction whose :86: was the field just read: a :86: right after it continues it (Rabobank's
  // older layout and Danske Bank write one :86: per line of the description).
  continued: StatementTransaction | null = null;
  // Streaming: a transaction is handed over once its :86: (if any) is applied, i.e. when the next field is not its :86:.
  pending: StatementTransaction | null = null;
  fileSummary: Partial<EntrySummary> = {};
  readonly invalidDates: string[] = [];
  lastRealDate = '';
  // Entry amounts of the plain "123.45" shape in a two-decimal currency are summed as numbers and
  // handed to the totals in bulk (exact: see PlainSums), the others one by one as Decimals.
  readonly sums = new PlainSums();
  lastCur = '';
  lastCurTwo = false;

  constructor(
    block: RawBlock,
    format: 'mt940' | 'mt942',
    blockIndex: number,
    label: string,
    onTransaction: TransactionSink | null,
    win: TextWindow,
  ) {
    this.block = block;
    this.format = format;
    this.blockIndex = blockIndex;
    this.label = label;
    this.onTransaction = onTransaction;
    this.win = win;
  }
}

function mapFields(
  block: RawBlock,
  format: 'mt940' | 'mt942',
  blockIndex: number,
  account: string | null,
  onTransaction: TransactionSink | null,
  win: TextWindow,
): { ok: true; statement: NormalisedStatement; warnings: IntegrityWarning[] } {
  if (block.junk) throw new BlockError(`unexpected text before :20: "${block.junk.slice(0, 40)}"`);
  const label = `statement ${blockIndex + 1}${account ? ` (${account})` : ''}`;
  const s = new BlockState(block, format, blockIndex, label, onTransaction, win);
  const { tags, count } = block;
  for (let k = 0; k < count; k++) {
    const tag = tags[k] as string;
    if (tag !== '86') s.continued = null;
    // The statement line and its details, by far the most frequent fields, first.
    if (tag === '61') {
      // A transaction is complete at the next :61: (or the block's end), not at the next other tag: a
      // :86: after a field such as :NS: still continues it (lastTx), and a streamed copy made before
      // that lost its remittance (the stored payload and the stateless answer differed).
      if (s.pending !== null) {
        (onTransaction as TransactionSink)(s.pending, blockIndex);
        s.pending = null;
      }
      statementLine(s, k);
    } else if (tag === '86') detailsField(s, k);
    else otherField(s, tag, k);
  }
  if (s.pending !== null) (onTransaction as TransactionSink)(s.pending, blockIndex);
  checkComplete(s);
  const statement = statementOf(s);
  return { ok: true, statement, warnings: s.warnings };
}

/** :61:, free text (no SWIFT character check), in the entries phase: one transaction. */
function statementLine(s: BlockState, k: number): void {
  const { text, starts, ends, lines, breaks, breakFrom, breakTo } = s.block;
  const lineNo = lines[k] as number;
  if (s.format === 'mt940') {
    if (s.phase === 0) throw new BlockError(`:61: on line ${lineNo} before the opening balance :60F:/:60M:`);
    if (s.phase === 3) throw new BlockError(`:61: on line ${lineNo} after the closing balance`);
  }
  const start = starts[k] as number;
  const end = ends[k] as number;
  const firstBreak = breakFrom[k] as number;
  const nl = firstBreak < (breakTo[k] as number) ? (breaks[firstBreak] as number) : end;
  if (!scanLine61(s.win, text, start, end, nl))
    throw new BlockError(`${line61Error(text, start, end)} (line ${lineNo})`);
  const line = scanned;
  const cur = s.currency ?? s.acct.currency;
  if (!cur) throw new BlockError(`:61: on line ${lineNo} without a currency (no :60F:/:34F:)`);
  if (cur !== s.lastCur) {
    s.lastCur = cur;
    s.lastCurTwo = (currencyExponent(cur) ?? 2) === 2;
  }
  const mark = line.mark;
  const credit = mark === 'C' || mark === 'RD' || mark === 'EC';
  const status = s.format === 'mt942' || mark === 'EC' || mark === 'ED' ? 'pending' : 'booked';
  const amountText = entryAmount(s, cur, credit, status === 'booked', lineNo);
  s.entryIndex++;
  const t = newTransaction(s.entryIndex, cur, credit ? 'credit' : 'debit', amountText);
  t.amount = amountText;
  t.valueDate = line.valueDate;
  t.bookingDate = line.entryDate ?? line.valueDate;
  t.reversal = mark === 'RC' || mark === 'RD';
  t.status = status;
  t.txCodeProprietary = line.typeCode;
  t.swiftTypeCode = line.typeCode;
  t.customerRef = line.customerRef;
  t.bankRef = line.bankRef;
  t.additionalInfo = line.supplementary;
  if (t.customerRef !== null && t.customerRef.length > 16) fixedWidthParty(t);
  if (t.additionalInfo !== null && t.additionalInfo.length <= 34) supplementaryIban(t);
  if (line.valueDate !== s.lastRealDate) {
    if (isRealDate(line.valueDate)) s.lastRealDate = line.valueDate;
    else s.invalidDates.push(line.valueDate);
  }
  if (s.onTransaction) s.pending = t;
  else s.transactions.push(t);
  s.lastTx = t;
  if (s.phase < 2) s.phase = 2;
}

/** The scanned :61:'s amount as the statement keeps it, added to the block's totals. */
function entryAmount(s: BlockState, cur: string, credit: boolean, booked: boolean, lineNo: number): string {
  const line = scanned;
  if (s.lastCurTwo && line.plainUnits >= 0) {
    // parseAmountText would return this text unchanged, at scale 2.
    s.sums.add(s.totals, line.plainUnits, cur, credit, booked);
    return line.amount;
  }
  const amount = parseAmountText(line.amount, cur);
  if (!amount) throw new BlockError(`:61: amount "${line.amount}" on line ${lineNo} is not a decimal`);
  addEntry(s.totals, amount, cur, credit ? 'credit' : 'debit', booked);
  return amount.text;
}

/** :86: (no check in any phase): the details of the last :61:, the next line of them, or the statement's information. */
function detailsField(s: BlockState, k: number): void {
  const { text, starts, ends, breaks, breakFrom, breakTo } = s.block;
  const lastTx = s.lastTx;
  if (lastTx) {
    const start = starts[k] as number;
    const end = ends[k] as number;
    const details = parseDetails86At(s.win, text, start, end, breaks, breakFrom[k] as number, breakTo[k] as number);
    applyDetails(lastTx, details);
    if (details.dialect === 'free-text' && details.bookingText === null && lastTx.remittance !== null) {
      const note = legacyParty(lastTx, text.slice(start, end), lastTx.swiftTypeCode?.length === 3);
      if (note !== null)
        s.warnings.push({ code: 'guessed_field', message: `${s.label}: entry ${lastTx.entryIndex + 1}: ${note}` });
    }
    s.continued = lastTx;
    s.lastTx = null;
  } else if (s.continued !== null) {
    continueDetails(s.continued, text.slice(starts[k], ends[k]));
  } else {
    const value = text.slice(starts[k], ends[k]).trim();
    s.info = s.info ? `${s.info}\n${value}` : value;
  }
}

/** Every other field: checked (known, SWIFT characters, in its phase), then read by its tag. */
function otherField(s: BlockState, tag: string, k: number): void {
  const block = s.block;
  const value = block.text.slice(block.starts[k], block.ends[k]);
  const line = block.lines[k] as number;
  if (!KNOWN_TAGS.has(tag)) throw new BlockError(`unknown tag :${tag}: on line ${line}`);
  // Reference, sequence and balance fields are SWIFT x-charset: a byte outside printable ASCII there is
  // corruption. Free text (:86:, the references inside :61:) may carry national letters (mBank writes
  // Polish ones) and is not checked.
  if (SWIFT_ONLY.has(tag) && NON_SWIFT.test(firstLine(value))) {
    throw new BlockError(`:${tag}: on line ${line} contains characters outside the SWIFT character set`);
  }
  const p = phaseOf(tag);
  if (s.format === 'mt940') {
    if (p === 0 && s.phase > 0) throw new BlockError(`:${tag}: on line ${line} after the opening balance`);
    if (p === 2 && s.phase === 0) throw new BlockError(`:61: on line ${line} before the opening balance :60F:/:60M:`);
    if (p === 2 && s.phase === 3) throw new BlockError(`:61: on line ${line} after the closing balance`);
  }
  switch (tag) {
    case '20':
      s.statementId = value.trim() || null;
      break;
    case '25':
      s.acct = readAccount(value);
      break;
    case '28':
    case '28C':
      s.sequence = value.trim() || null;
      break;
    case '13':
    case '13D':
      s.createdAt = readCreatedAt(value) ?? s.createdAt;
      break;
    case '64':
    case '65':
    case '65F':
      informativeBalance(s, tag, value, line);
      break;
    case '60F':
    case '60M':
    case '62F':
    case '62M':
      openingOrClosing(s, tag, value, line);
      break;
    case '34F':
      floorLimit(s, value);
      break;
    case '90D':
    case '90C':
      countAndSum(s, tag, value);
      break;
    default:
      break;
  }
}

/** :13:/:13D: YYMMDD, then optionally hhmm and a UTC offset; null when it does not start with a date. */
function readCreatedAt(value: string): string | null {
  const m = /^(\d{6})(\d{4})?([+-]\d{4})?/.exec(value.trim());
  if (!m) return null;
  return `${yymmdd(m[1] as string)}${m[2] ? `T${m[2].slice(0, 2)}:${m[2].slice(2)}:00` : ''}${m[3] ? `${m[3].slice(0, 3)}:${m[3].slice(3)}` : ''}`;
}

/** :64:/:65:/:65F: available and forward balances are informative; a bank writing "Dnullnull7414,3" there must not sink the statement. */
function informativeBalance(s: BlockState, tag: string, value: string, line: number): void {
  try {
    s.balances.push(readBalance(tag === '65F' ? '65' : tag, firstLine(value), s.currency ?? s.acct.currency));
  } catch (e) {
    if (!(e instanceof BlockError)) throw e;
    s.warnings.push({ code: 'ignored_field', message: `${s.label}: ${e.message} (line ${line}), left out` });
  }
  if (s.phase >= 1) s.phase = 3;
  s.lastTx = null;
}

/** :60F:/:60M: opens the entries (and sets the statement's currency), :62F:/:62M: closes them. */
function openingOrClosing(s: BlockState, tag: string, value: string, line: number): void {
  const b = readBalance(tag, firstLine(value), s.currency ?? s.acct.currency);
  s.balances.push(b);
  if (tag.startsWith('60')) {
    if (s.phase >= 1 && s.format === 'mt940') throw new BlockError(`second opening balance :${tag}: on line ${line}`);
    s.currency = b.currency;
    s.sums.flush(s.totals);
    s.totals = newTotals(s.currency);
    s.phase = 1;
  } else s.phase = 3;
  s.lastTx = null;
}

/** :34F: (MT942 floor limit): its currency is the statement's when no balance gave one. */
function floorLimit(s: BlockState, value: string): void {
  s.currency ??= /^([A-Z]{3})/.exec(value.trim())?.[1] ?? null;
  if (s.totals.currency === null && s.currency) {
    s.sums.flush(s.totals);
    s.totals = newTotals(s.currency);
  }
}

/** :90D:/:90C: (MT942): the bank's own count and sum of debits or credits, checked against the entries later. */
function countAndSum(s: BlockState, tag: string, value: string): void {
  const cs = readCountSum(value);
  if (cs) {
    if (tag === '90D') s.fileSummary = { ...s.fileSummary, debitCount: cs.count, debitSum: cs.sum };
    else s.fileSummary = { ...s.fileSummary, creditCount: cs.count, creditSum: cs.sum };
  }
  s.phase = 3;
  s.lastTx = null;
}

/** After the last field: an MT940 has both balances (or was not cut off) and every statement an account. */
function checkComplete(s: BlockState): void {
  const { balances, block } = s;
  if (s.format === 'mt940') {
    if (!balances.some((b) => b.type === '60F' || b.type === '60M'))
      throw new BlockError('no opening balance :60F:/:60M:');
    const hasClosing = balances.some((b) => b.type === '62F' || b.type === '62M');
    // Without a closing balance, a message that another one follows without an end mark was cut off.
    if (!hasClosing && (block.unclosedSwift || (block.followed && !block.terminated))) {
      throw new BlockError(
        'the message was cut off: no closing balance :62F:/:62M: and no end of message before the next one',
      );
    }
  }
  if (!s.acct.iban && !s.acct.other) throw new BlockError('no account :25:');
}

/** The statement of a complete block, with the warnings of its dates, totals and balances. */
function statementOf(s: BlockState): NormalisedStatement {
  const { warnings, label, balances, totals, fileSummary, format, acct } = s;
  if (s.invalidDates.length)
    warnings.push({
      code: 'invalid_date',
      message: `${label}: value date(s) ${s.invalidDates.join(', ')} are not calendar dates`,
    });
  s.sums.flush(totals);
  const computed = computedSummary(totals);
  const hasFileSummary = Object.keys(fileSummary).length > 0;
  if (hasFileSummary) warnings.push(...checkSummary(fileSummary, computed, label));
  const openingBalance = pickBalance(balances, ['60F', '60M']);
  const closingBalance = pickBalance(balances, ['62F', '62M']);
  if (format === 'mt940') warnings.push(...checkBalances(openingBalance, closingBalance, totals, label));
  return {
    messageId: s.statementId,
    statementId: s.statementId,
    createdAt: s.createdAt,
    sequenceNumber: s.sequence,
    legalSequenceNumber: null,
    sourceFormat: format === 'mt942' ? 'MT942' : 'MT940',
    accountIban: acct.iban,
    accountOther: acct.other,
    accountCurrency: s.currency ?? acct.currency,
    accountOwner: null,
    accountServicerBic: null,
    fromDate: openingBalance?.date ?? null,
    toDate: closingBalance?.date ?? null,
    copyDuplicate: null,
    pagination: null,
    entryCount: s.entryIndex + 1,
    entrySummary: hasFileSummary ? mergeSummary(fileSummary, computed) : computed,
    balances,
    openingBalance,
    closingBalance,
    transactions: s.transactions,
    droppedCurrencies: [...totals.otherCurrencies].sort(),
    additionalInfo: s.info,
  };
}

/**
 * Rabobank's pre-SEPA :61: writes the counterparty in the reference subfield, fixed width: the account
 * in 16 positions (digits, "P" + giro number, or NONREF when none), then the name ("0121470966      W.P.
 * Jansen"). A reference of that shape is the counterparty, not the customer's reference.
 */
function fixedWidthParty(t: StatementTransaction): void {
  const ref = t.customerRef as string;
  const m = /^(NONREF|P?\d{3,15}) +$/.exec(ref.slice(0, 16));
  const name = ref.slice(16).trim();
  if (!m || name === '') return;
  const account = m[1] as string;
  t.customerRef = account === 'NONREF' ? 'NONREF' : null;
  if (account !== 'NONREF') t.counterpartyAccount = account;
  t.counterpartyName = name;
}

/**
 * Rabobank's structured MT940 (and ING's) writes the counterparty's IBAN as the :61: supplementary details
 * (subfield 9): a supplementary that is exactly an IBAN is the counterparty's account.
 */
function supplementaryIban(t: StatementTransaction): void {
  const s = t.additionalInfo as string;
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$/.test(s) || !mod97(s)) return;
  t.counterpartyIban = s;
  t.counterpartyAccount = s;
  t.additionalInfo = null;
}

/**
 * A :86: repeated after the one of its transaction is the next line of its description (Rabobank's
 * pre-SEPA layout: up to six :86: lines of 32 characters; Danske Bank writes one :86: per line too):
 * its text continues the remittance, joined with a space as the free-text lines of one :86: are.
 */
function continueDetails(t: StatementTransaction, raw: string): void {
  const value = raw.replace(/\s*\r?\n\s*/g, ' ').trim();
  if (value === '') return;
  t.remittance = t.remittance === null ? value : `${t.remittance} ${value}`;
}

/** Copies a :86: read into the reused Details (so at once, before the next :86:) onto its transaction. */
function applyDetails(t: StatementTransaction, d: Details): void {
  if (d.malformed) throw new BlockError(`malformed :86: of entry ${t.entryIndex + 1}: ${d.malformed}`);
  t.detailsDialect = d.dialect;
  if (d.endToEndId) t.endToEndId = d.endToEndId;
  // :61: writes "KREF+" (or NONREF) where the customer reference is the :86:'s KREF+.
  let keptRef: string | null = null;
  if (d.customerRef !== null) {
    if (t.customerRef === null || t.customerRef === 'NONREF' || t.customerRef === 'KREF+')
      t.customerRef = d.customerRef;
    else if (t.customerRef !== d.customerRef) keptRef = `KREF+${d.customerRef}`;
  }
  t.mandateId = d.mandateId;
  t.paymentInfoId = d.paymentInfoId;
  t.remittance = d.remittance;
  // :61: may have given the counterparty already (fixedWidthParty, supplementaryIban): :86: adds to it.
  t.counterpartyName = d.counterpartyName ?? t.counterpartyName;
  t.counterpartyIban = d.counterpartyIban ?? t.counterpartyIban;
  t.counterpartyAccount = d.counterpartyAccount ?? t.counterpartyAccount;
  t.counterpartyBic = d.counterpartyBic;
  t.counterpartyAddress = d.counterpartyAddress;
  t.returnReason = d.returnReason;
  t.creditorReference = d.creditorReference;
  t.creditorReferenceType = d.creditorReferenceType;
  // The :86: transaction code (German GVC, NL TRTP) is the bank's own code; the :61: SWIFT type stays in customerRef's line.
  if (d.txCode) t.txCodeProprietary = d.txCode;
  if (d.bookingText) t.additionalInfo = t.additionalInfo ? `${d.bookingText}; ${t.additionalInfo}` : d.bookingText;
  // What no field holds (a German ?10, a /ISDT/ date, mBank's TNR) follows, as the bank wrote it.
  if (d.unread !== null) t.additionalInfo = t.additionalInfo ? `${t.additionalInfo}; ${d.unread}` : d.unread;
  // A KREF+ beside another :61: customer reference has no field of its own.
  if (keptRef !== null) t.additionalInfo = t.additionalInfo ? `${t.additionalInfo}; ${keptRef}` : keptRef;
}
