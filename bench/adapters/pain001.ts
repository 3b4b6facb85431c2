/**
 * Benchmark adapter: the shared harness's synthetic batch (../shared/bench/gen.mjs) mapped onto one
 * canonical payment, then validated and written by the engine. The mapping is part of what is timed.
 * The XML comes back as the string every caller of the engine gets (routes, journal, CLI).
 */
import { convertPayment } from '../../src/domain/conversion/index.ts';

type BenchAddress = { street: string; buildingNumber: string; postalCode: string; town: string; country: string };
type BenchPayment = {
  endToEndId: string;
  instructionId: string;
  amount: string;
  currency: string;
  creditor: { name: string; iban: string; bic: string; address?: BenchAddress };
  remittanceInformation: string;
};
type BenchBatch = {
  batchId: string;
  createdAt: string;
  requestedExecutionDate: string;
  batchBooking: boolean;
  debtor: { name: string; iban: string; bic: string; orgId: string; address?: BenchAddress };
  payments: BenchPayment[];
};

/** The batch's debtor banks at Commerzbank (COBADEFF): the German DK flavour, pain.001.001.09. */
const BANK = 'commerzbank-de';

function party(name: string, a: BenchAddress | undefined) {
  return a
    ? {
        name,
        country: a.country,
        postalAddress: {
          streetName: a.street,
          buildingNumber: a.buildingNumber,
          postCode: a.postalCode,
          townName: a.town,
        },
      }
    : { name };
}

/**
 * The batch's payments as canonical transactions. A function of its own so V8 optimises the loop as a
 * whole: inside `convert` it ran as on-stack-replaced code that the rest of `convert` kept discarding.
 */
function transactionsOf(ps: BenchPayment[]): unknown[] {
  const transactions = new Array(ps.length);
  for (let i = 0; i < ps.length; i++) {
    const p = ps[i] as BenchPayment;
    const c = p.creditor;
    const a = c.address;
    // One literal per shape (no properties added afterwards): the same objects party() would give.
    const creditor = a
      ? {
          name: c.name,
          country: a.country,
          postalAddress: {
            streetName: a.street,
            buildingNumber: a.buildingNumber,
            postCode: a.postalCode,
            townName: a.town,
          },
          account: { iban: c.iban },
          agent: { bic: c.bic },
        }
      : { name: c.name, account: { iban: c.iban }, agent: { bic: c.bic } };
    transactions[i] = {
      endToEndId: p.endToEndId,
      instructionId: p.instructionId,
      amount: p.amount,
      currency: p.currency,
      creditor,
      remittance: { unstructured: p.remittanceInformation },
    };
  }
  return transactions;
}

export function convert(batch: BenchBatch): string {
  const transactions = transactionsOf(batch.payments);
  const d = batch.debtor;
  const debtor = { ...party(d.name, d.address), account: { iban: d.iban }, agent: { bic: d.bic } };
  const canonical = {
    messageId: batch.batchId,
    creationDateTime: batch.createdAt,
    initiatingParty: { name: d.name, organisationId: { id: d.orgId } },
    payments: [
      {
        paymentId: `${batch.batchId}-1`,
        paymentType: 'SEPA_CT',
        executionDate: batch.requestedExecutionDate,
        debtor,
        transactions,
      },
    ],
  };

  const r = convertPayment(canonical, BANK);
  if (!r.ok) throw new Error(r.error.message);
  if (!r.value.ok) {
    const first = r.value.issues.filter((i) => i.severity === 'error').slice(0, 5);
    throw new Error(`batch ${batch.batchId} is invalid: ${JSON.stringify(first)}`);
  }
  return r.value.xml;
}
