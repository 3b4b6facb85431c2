import { generatedInstructionId, NOT_PROVIDED } from '../canonical/generated-instruction-id.ts';
import { formatGrouped } from '../money/decimal.ts';
import { formatMinor, parseAmount } from '../money/money.ts';

/**
 * What the journal keeps of a valid canonical payment besides the file: one line per transaction
 * (reconciliation matches them one to one), the document's payment type and a plain-text summary.
 * Reads the submitted JSON after the engine accepted it, so every amount parses and every
 * transaction is an object.
 */
export type JournalLine = {
  lineIndex: number;
  paymentId: string | null;
  endToEndId: string | null;
  instructionId: string | null;
  amount: string;
  amountMinor: bigint;
  exponent: number;
  currency: string;
  payeeName: string | null;
  payeeIban: string | null;
  /** YYYY-MM-DD as requested; reconciliation's booking-date window starts here. */
  executionDate: string | null;
};

type Rec = Record<string, unknown>;

const rec = (v: unknown): Rec | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : undefined;
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** IBAN in electronic form (no spaces, upper case), as the engine writes it. */
const electronic = (iban: string | null): string | null =>
  iban === null ? null : iban.replace(/\s+/g, '').toUpperCase();

/** The InstrId the engine generated for a NOTPROVIDED transaction without one (generatedInstructionId). */
function instructionIdFilled(messageId: string | null, endToEndId: string | null, i: number, j: number): string | null {
  return endToEndId === NOT_PROVIDED && messageId !== null ? generatedInstructionId(messageId, i, j) : null;
}

export function journalLines(payment: unknown): JournalLine[] {
  const out: JournalLine[] = [];
  const messageId = str(rec(payment)?.['messageId']);
  const payments = list(rec(payment)?.['payments']);
  for (let i = 0; i < payments.length; i++) {
    const pay = rec(payments[i]);
    const txs = list(pay?.['transactions']);
    for (let j = 0; j < txs.length; j++) {
      const tx = rec(txs[j]) ?? {};
      const currency = str(tx['currency']) ?? '';
      const parsed = parseAmount(tx['amount'], currency);
      const minor = parsed.ok ? parsed.minor : 0n;
      const exponent = parsed.ok ? parsed.exponent : 2;
      const creditor = rec(tx['creditor']);
      out.push({
        lineIndex: out.length,
        paymentId: str(pay?.['paymentId']),
        endToEndId: str(tx['endToEndId']),
        instructionId: str(tx['instructionId']) ?? instructionIdFilled(messageId, str(tx['endToEndId']), i, j),
        // Normalised to the currency's exponent ("125.5" is stored as "125.50").
        amount: formatMinor(minor, exponent),
        amountMinor: minor,
        exponent,
        currency,
        payeeName: str(creditor?.['name']),
        payeeIban: electronic(str(rec(creditor?.['account'])?.['iban'])),
        executionDate: str(pay?.['executionDate']),
      });
    }
  }
  return out;
}

/**
 * The document's payment type: the first payment's given type, else the type the engine selected
 * for it (autoSelected), else null.
 */
export function documentPaymentType(
  payment: unknown,
  autoSelected: ReadonlyArray<{ paymentId: string; selected: string }>,
): string | null {
  const first = rec(list(rec(payment)?.['payments'])[0]);
  const given = str(first?.['paymentType']);
  if (given !== null) return given;
  const id = str(first?.['paymentId']);
  return autoSelected.find((a) => a.paymentId === id)?.selected ?? autoSelected[0]?.selected ?? null;
}

/**
 * "3 payments, EUR 1,234.50 to Acme Oy and 2 others"; several currencies are joined with " + ".
 * Payees are counted by name, in order of first appearance.
 */
export function documentSummary(
  lines: readonly JournalLine[],
  totals: ReadonlyArray<{ currency: string; amount: string }>,
) {
  const n = lines.length;
  const money = totals.map((t) => `${t.currency} ${formatGrouped(t.amount)}`).join(' + ');
  const payees = [...new Set(lines.map((l) => l.payeeName).filter((p): p is string => p !== null))];
  const who =
    payees.length === 0
      ? ''
      : payees.length === 1
        ? ` to ${payees[0]}`
        : ` to ${payees[0]} and ${payees.length - 1} other${payees.length > 2 ? 's' : ''}`;
  return `${n} payment${n === 1 ? '' : 's'}, ${money}${who}`;
}
