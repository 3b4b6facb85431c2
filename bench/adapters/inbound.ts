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
  let current: BenchEntry | null = null;
  let currentIndex = -1;
  for (const t of s.transactions) {
    if (t.entryIndex !== currentIndex || !current) {
      currentIndex = t.entryIndex;
      current = {
        amount: t.entryAmount,
        creditDebit: t.direction === 'credit' ? 'CRDT' : 'DBIT',
        acctSvcrRef: t.bankRef,
        transactions: [],
      };
      entries.push(current);
    }
    current.transactions.push(toBenchTransaction(t));
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
