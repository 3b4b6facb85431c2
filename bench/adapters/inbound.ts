// Inbound parsers plugged into the shared peer harness (../shared/bench). The timed work is our full
// normalisation (parseBankFile, streaming its transactions as a large-file ingest does); the mapping below
// only regroups the normalised transactions into the harness's entry/transaction shape as they arrive,
// no copying of strings. Statement-level checks (balances, summary, sequence) run as in every parse.

import { parseBankFile } from '../../src/domain/inbound/index.ts';
import type { StatementTransaction } from '../../src/domain/inbound/types.ts';

type BenchTransaction = {
  endToEndId: string | null;
  amount: string | null;
  counterparty: { name: string | null; iban: string | null; bic: string | null };
  remittanceInformation: string | null;
};
type BenchEntry = {
  amount: string;
  creditDebit: 'CRDT' | 'DBIT';
  acctSvcrRef: string | null;
  transactions: BenchTransaction[];
};

function toBenchTransaction(t: StatementTransaction): BenchTransaction {
  return {
    endToEndId: t.endToEndId,
    amount: t.amount,
    counterparty: { name: t.counterpartyName, iban: t.counterpartyIban, bic: t.counterpartyBic },
    remittanceInformation: t.remittance,
  };
}

/**
 * Regroups the streamed transactions of each block into entries as they arrive (an entry's transactions
 * are consecutive), so the normalised transactions are never all held next to the harness's shape.
 */
class EntryCollector {
  readonly blocks: BenchEntry[][] = [];
  private current: BenchEntry | null = null;
  private currentBlock = -1;
  private currentIndex = -1;

  add(t: StatementTransaction, block: number): void {
    if (block !== this.currentBlock || t.entryIndex !== this.currentIndex || !this.current) {
      this.currentBlock = block;
      this.currentIndex = t.entryIndex;
      // Sized by push: most entries have one transaction, and [x] is an array of exactly one.
      this.current = {
        amount: t.entryAmount,
        creditDebit: t.direction === 'credit' ? 'CRDT' : 'DBIT',
        acctSvcrRef: t.bankRef,
        transactions: [toBenchTransaction(t)],
      };
      this.blocks[block] ??= [];
      (this.blocks[block] as BenchEntry[]).push(this.current);
    } else this.current.transactions.push(toBenchTransaction(t));
  }
}

function parse(text: string) {
  const collector = new EntryCollector();
  const result = parseBankFile(text, { onTransaction: (t, block) => collector.add(t, block) });
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
  if (result.kind !== 'statement') throw new Error(`expected a statement, got ${result.kind}`);
  const statements = [];
  for (const b of result.blocks) {
    if (!b.ok) throw new Error(b.message);
    statements.push({ id: b.statement.statementId, entries: collector.blocks[b.index] ?? [] });
  }
  return { statements };
}

export function parseCamt(xml: string) {
  return parse(xml);
}

export function parseMt940(text: string) {
  return parse(text);
}
