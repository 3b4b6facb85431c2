import type { DeliveredFile, DeliveredTransaction } from './types.ts';

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/**
 * What the demo bank reads of a delivered payment: the journaled canonical payment (valid: the
 * engine accepted it) and the pain version it was written in.
 */
export function deliveredFileOf(canonical: unknown, painVersion: string): DeliveredFile {
  const doc = rec(canonical);
  const payments = list(doc['payments']).map(rec);
  const first = payments[0] ?? {};
  const debtor = rec(first['debtor']);
  return {
    messageId: str(doc['messageId']) ?? '',
    painVersion,
    debtorIban: (str(rec(debtor['account'])['iban']) ?? '').replace(/\s+/g, '').toUpperCase(),
    debtorName: str(debtor['name']) ?? '',
    executionDate: str(first['executionDate']) ?? '',
    payments: payments.map((p, i) => ({
      paymentInfoId: str(p['paymentId']) ?? `PMT-${i + 1}`,
      transactions: list(p['transactions']).map((t): DeliveredTransaction => {
        const tx = rec(t);
        const creditor = rec(tx['creditor']);
        return {
          endToEndId: str(tx['endToEndId']) ?? 'NOTPROVIDED',
          instructionId: str(tx['instructionId']),
          amount: str(tx['amount']) ?? '0',
          currency: str(tx['currency']) ?? '',
          creditorName: str(creditor['name']) ?? '',
          creditorIban: str(rec(creditor['account'])['iban'])?.replace(/\s+/g, '').toUpperCase() ?? null,
          remittance: str(rec(tx['remittance'])['unstructured']),
        };
      }),
    })),
  };
}
