/**
 * The reconciliation task's receivables part (issue 39, docs/adr/0069): N expected payments against N
 * incoming credits — 30 % by structured reference, 40 % by amount and counterparty account, 10 %
 * partial (half the amount, by reference), 10 % 1:N (one credit naming two references whose amounts add
 * up), 10 % matching nothing — through the real matcher (src/domain/receivables/matcher.ts), beside a
 * hash join of the same data (reference, else account and amount, else the references in the
 * remittance) in the same process and run. Deterministic data (fixed seed); time is the median of
 * `ROUNDS` runs, memory the heap growth while matching (after a full collection, with --expose-gc).
 * `npm run bench` runs it after the harness when the recon task is among those asked for;
 * `node --expose-gc bench/receivables.ts [sizes]` alone, e.g. `10000,100000`.
 */
import {
  type ExpectedCandidate,
  ExpectedIndex,
  type IncomingCredit,
  matchReceivables,
} from '../src/domain/receivables/matcher.ts';
import { generateReference } from '../src/domain/references/creditor-reference.ts';

const ROUNDS = 5;
const sizes = (process.argv[2] ?? '10000,100000').split(',').map(Number);

function data(n: number) {
  let seed = 11649;
  const rnd = (m: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % m;
  };
  const expected: ExpectedCandidate[] = [];
  const incoming: IncomingCredit[] = [];
  const exp = (i: number, over: Partial<ExpectedCandidate>): ExpectedCandidate => {
    const e: ExpectedCandidate = {
      id: `exp_${i}`,
      currency: 'EUR',
      amountMinMinor: BigInt(1000 + rnd(10_000_000)),
      amountMaxMinor: 0n,
      matchedMinor: 0n,
      dateFrom: '2026-11-01',
      dateTo: '2026-11-30',
      counterpartyIban: null,
      counterpartyOther: null,
      referenceValue: null,
      remittanceContains: null,
      ...over,
    };
    e.amountMaxMinor = e.amountMinMinor;
    expected.push(e);
    return e;
  };
  const inc = (i: number, over: Partial<IncomingCredit>) =>
    incoming.push({
      id: `inc_${i}`,
      currency: 'EUR',
      amountMinor: 0n,
      matchedMinor: 0n,
      bookingDate: `2026-11-${String(1 + rnd(28)).padStart(2, '0')}`,
      endToEndId: null,
      reference: null,
      counterpartyIban: null,
      remittance: null,
      ...over,
    });
  const rf = (i: number) => {
    const g = generateReference('SCOR', `INV${i}`);
    if (!g.ok) throw new Error(g.reason);
    return g.value;
  };
  const iban = (i: number) => `FI${String(10 + (i % 89))}${String(i).padStart(14, '0')}`;
  let k = 0;
  for (let i = 0; i < n; i++) {
    const kind = i % 10;
    if (kind < 3) {
      const e = exp(k++, { referenceValue: rf(k) });
      inc(i, { amountMinor: e.amountMinMinor, reference: e.referenceValue, remittance: 'payment' });
    } else if (kind < 7) {
      const e = exp(k++, { counterpartyIban: iban(k) });
      inc(i, { amountMinor: e.amountMinMinor, counterpartyIban: e.counterpartyIban, remittance: 'thank you' });
    } else if (kind === 7) {
      const e = exp(k++, { referenceValue: rf(k) });
      inc(i, { amountMinor: e.amountMinMinor / 2n, reference: e.referenceValue });
    } else if (kind === 8) {
      const a = exp(k++, { referenceValue: rf(k) });
      const b = exp(k++, { referenceValue: rf(k) });
      inc(i, {
        amountMinor: a.amountMinMinor + b.amountMinMinor,
        remittance: `${a.referenceValue} ${b.referenceValue}`,
      });
    } else {
      inc(i, { amountMinor: BigInt(1000 + rnd(10_000_000)), counterpartyIban: iban(n + i), remittance: 'misc' });
    }
  }
  return { expected, incoming };
}

/** The reference: one hash lookup per credit, no rules, no windows, no ambiguity checks. */
function hashJoin(incoming: readonly IncomingCredit[], expected: readonly ExpectedCandidate[]): number {
  const byRef = new Map<string, number>();
  const byParty = new Map<string, number>();
  for (let j = 0; j < expected.length; j++) {
    const e = expected[j]!;
    if (e.referenceValue !== null) byRef.set(e.referenceValue, j);
    if (e.counterpartyIban !== null) byParty.set(`${e.counterpartyIban}|${e.amountMinMinor}`, j);
  }
  let matched = 0;
  for (const p of incoming) {
    if (p.reference !== null && byRef.has(p.reference)) matched++;
    else if (p.counterpartyIban !== null && byParty.has(`${p.counterpartyIban}|${p.amountMinor}`)) matched++;
    else if (p.remittance !== null) for (const t of p.remittance.split(' ')) if (byRef.has(t)) matched++;
  }
  return matched;
}

const gc = (globalThis as { gc?: () => void }).gc;
function measure(run: () => unknown): { ms: number; heapMb: number } {
  const times: number[] = [];
  let heap = 0;
  for (let r = 0; r < ROUNDS; r++) {
    gc?.();
    const before = process.memoryUsage().heapUsed;
    const t0 = performance.now();
    const out = run();
    times.push(performance.now() - t0);
    heap = Math.max(heap, process.memoryUsage().heapUsed - before);
    if (out === undefined) throw new Error('no result');
  }
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(ROUNDS / 2)]!, heapMb: heap / 1024 / 1024 };
}

const rows: string[] = [];
for (const n of sizes) {
  const { expected, incoming } = data(n);
  const ours = measure(() => {
    const out = matchReceivables(incoming, expected, undefined, new ExpectedIndex(expected));
    return out;
  });
  const outcome = matchReceivables(incoming, expected);
  const ref = measure(() => hashJoin(incoming, expected));
  const byRule = new Map<string, number>();
  for (const m of outcome.matches) byRule.set(m.rule, (byRule.get(m.rule) ?? 0) + 1);
  const credits = new Set(outcome.matches.map((m) => m.incoming)).size;
  rows.push(
    `| ${n} | ${ours.ms.toFixed(1)} ms | ${ours.heapMb.toFixed(1)} MB | ${ref.ms.toFixed(1)} ms | ${ref.heapMb.toFixed(1)} MB | ${(ours.ms / ref.ms).toFixed(2)} | ${credits} credits matched (${[...byRule].map(([r, c]) => `${r} ${c}`).join(', ')}), ${outcome.unmatched.length} unmatched, ${outcome.ambiguous.length} ambiguous |`,
  );
}
process.stdout.write(
  `\n## recon: receivables (expected × incoming credits)\n\n| N | matcher | matcher heap | hash join | hash join heap | matcher / hash join | outcome |\n|---:|---:|---:|---:|---:|---:|---|\n${rows.join('\n')}\n`,
);
