/**
 * The harness's `reconcile(batch, statement)`: maps its canonical batch and the generator's
 * normalised statement twin onto our matcher's inputs and runs the real matcher. The mapping is
 * timed with it, as it would be in the service (lines and entries come from the journal).
 */
import { decimalToMinor } from '../../src/domain/money/decimal.ts';
import { matchEntries } from '../../src/domain/recon/match-entries.ts';
import type { ReconEntry, ReconLine } from '../../src/domain/recon/types.ts';

type BenchPayment = {
  endToEndId: string;
  instructionId: string | null;
  amount: string;
  currency?: string;
  creditor: { iban: string };
};
type BenchBatch = { currency?: string; requestedExecutionDate?: string; batchId?: string; payments: BenchPayment[] };
type BenchTx = {
  endToEndId: string | null;
  instructionId: string | null;
  pmtInfId: string | null;
  acctSvcrRef: string;
  amount: string;
  counterparty: { iban: string } | null;
};
type BenchEntry = {
  amount: string;
  creditDebit: 'DBIT' | 'CRDT';
  currency: string;
  bookingDate: string;
  acctSvcrRef?: string;
  transactions: BenchTx[];
};
type BenchStatement = { statements: Array<{ entries: BenchEntry[] }> };

export function reconcile(batch: BenchBatch, statement: BenchStatement) {
  const currency = batch.currency ?? 'EUR';
  const lines: ReconLine[] = batch.payments.map((p) => ({
    endToEndId: p.endToEndId,
    instructionId: p.instructionId,
    messageId: batch.batchId ?? null,
    paymentInfoId: null,
    amountMinor: decimalToMinor(p.amount, 2) ?? 0n,
    currency: p.currency ?? currency,
    creditorIban: p.creditor.iban,
    executionDate: batch.requestedExecutionDate ?? null,
  }));
  const entries: ReconEntry[] = [];
  const refs: string[] = [];
  for (const st of statement.statements) {
    for (const e of st.entries) {
      for (const t of e.transactions) {
        entries.push({
          endToEndId: t.endToEndId,
          instructionId: t.instructionId,
          messageId: null,
          paymentInfoId: t.pmtInfId,
          amountMinor: decimalToMinor(t.amount, 2) ?? 0n,
          currency: e.currency,
          direction: e.creditDebit === 'DBIT' ? 'debit' : 'credit',
          counterpartyIban: t.counterparty?.iban ?? null,
          bookingDate: e.bookingDate,
          reversal: false,
          batchWithoutDetails: false,
        });
        refs.push(t.acctSvcrRef);
      }
    }
  }
  const result = matchEntries(lines, entries);
  const matchedLines = new Uint8Array(lines.length);
  const matched = result.matches.map((m) => {
    matchedLines[m.line] = 1;
    return { endToEndId: lines[m.line]!.endToEndId, acctSvcrRef: refs[m.entry], rule: m.rule };
  });
  const unmatchedPayments: string[] = [];
  for (let i = 0; i < lines.length; i++) if (!matchedLines[i]) unmatchedPayments.push(lines[i]!.endToEndId ?? '');
  return { matched, unmatchedPayments, unmatchedEntries: result.unmatchedEntries.map((e) => refs[e]) };
}
