// Inbound parsers plugged into the shared peer harness (../shared/bench). The timed work is our full
// normalisation (parseBankFile); the mapping below only regroups our flat transactions into the
// harness's entry/transaction shape, one pass, no copying of strings.

import type { NormalisedStatement } from '../../src/domain/inbound/index.ts';
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

function toBenchStatement(s: NormalisedStatement): { id: string | null; entries: BenchEntry[] } {
  const entries: BenchEntry[] = [];
  const txs = s.transactions;
  // An entry's transactions are consecutive: each entry gets an array of its exact size (pushing into []
  // would reserve room for 17 on the first push, for entries that mostly have one transaction).
  for (let i = 0; i < txs.length; ) {
    const t = txs[i] as StatementTransaction;
    let j = i + 1;
    while (j < txs.length && (txs[j] as StatementTransaction).entryIndex === t.entryIndex) j++;
    const transactions: BenchTransaction[] = j - i === 1 ? [toBenchTransaction(t)] : new Array(j - i);
    if (j - i > 1) for (let k = i; k < j; k++) transactions[k - i] = toBenchTransaction(txs[k] as StatementTransaction);
    entries.push({
      amount: t.entryAmount,
      creditDebit: t.direction === 'credit' ? 'CRDT' : 'DBIT',
      acctSvcrRef: t.bankRef,
      transactions,
    });
    i = j;
  }
  return { id: s.statementId, entries };
}

function parse(text: string) {
  const result = parseBankFile(text);
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
  if (result.kind !== 'statement') throw new Error(`expected a statement, got ${result.kind}`);
  const statements = [];
  for (const b of result.blocks) {
    if (!b.ok) throw new Error(b.message);
    statements.push(toBenchStatement(b.statement));
  }
  return { statements };
}

export function parseCamt(xml: string) {
  return parse(xml);
}

export function parseMt940(text: string) {
  return parse(text);
}
