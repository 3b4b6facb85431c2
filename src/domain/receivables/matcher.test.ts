import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type ExpectedCandidate, type IncomingCredit, matchReceivables, toleranceMinor } from './matcher.ts';

const exp = (id: string, over: Partial<ExpectedCandidate> = {}): ExpectedCandidate => ({
  id,
  currency: 'EUR',
  amountMinMinor: 10000n,
  amountMaxMinor: 10000n,
  matchedMinor: 0n,
  dateFrom: '2026-11-01',
  dateTo: '2026-11-30',
  counterpartyIban: null,
  counterpartyOther: null,
  referenceValue: null,
  remittanceContains: null,
  ...over,
});
const inc = (id: string, over: Partial<IncomingCredit> = {}): IncomingCredit => ({
  id,
  currency: 'EUR',
  amountMinor: 10000n,
  matchedMinor: 0n,
  bookingDate: '2026-11-10',
  endToEndId: null,
  reference: null,
  counterpartyIban: null,
  remittance: null,
  ...over,
});
const settings = { toleranceAmount: '0', tolerancePercent: '0', windowDays: 5 };

test('rule 1: a structured reference, also as a payer mangled it (spaces, case)', () => {
  const out = matchReceivables(
    [inc('i1', { reference: 'rf18 5390 0754 7034' })],
    [exp('e1', { referenceValue: 'RF18539007547034' })],
    settings,
  );
  assert.deepEqual(
    out.matches.map((m) => [m.rule, m.amountMinor, m.amountDeltaMinor]),
    [['structured-reference', 10000n, 0n]],
  );
});

test('N:1: two partial credits by reference settle one expected payment, the open amount exact', () => {
  const out = matchReceivables(
    [inc('i1', { reference: '1232', amountMinor: 3333n }), inc('i2', { reference: '1232', amountMinor: 6667n })],
    [exp('e1', { referenceValue: '1232' })],
    settings,
  );
  assert.deepEqual(
    out.matches.map((m) => [m.incoming, m.amountMinor, m.amountDeltaMinor]),
    [
      [0, 3333n, -6667n],
      [1, 6667n, 0n],
    ],
  );
});

test('an overpayment by reference settles the expected payment and keeps the rest of the credit open', () => {
  const out = matchReceivables(
    [inc('i1', { reference: '1232', amountMinor: 12000n })],
    [exp('e1', { referenceValue: '1232' })],
  );
  assert.equal(out.matches[0]!.amountMinor, 10000n);
  assert.equal(out.matches[0]!.amountDeltaMinor, 2000n);
});

test('rule 2: end-to-end id naming the invoice number', () => {
  const out = matchReceivables([inc('i1', { endToEndId: 'INV-42' })], [exp('e1', { remittanceContains: 'INV-42' })]);
  assert.equal(out.matches[0]!.rule, 'end-to-end-id');
});

test('rule 3: amount and counterparty within the window; outside it, or on a bare amount, nothing', () => {
  const e = exp('e1', { counterpartyIban: 'FI2112345600000785' });
  const ok = matchReceivables([inc('i1', { counterpartyIban: 'FI2112345600000785', bookingDate: '2026-12-05' })], [e]);
  assert.equal(ok.matches[0]!.rule, 'amount-counterparty');
  assert.equal(ok.matches[0]!.daysDelta, 5);
  const late = matchReceivables(
    [inc('i1', { counterpartyIban: 'FI2112345600000785', bookingDate: '2026-12-06' })],
    [e],
  );
  assert.deepEqual(late.unmatched, [0]);
  const bare = matchReceivables([inc('i1')], [exp('e1')]);
  assert.deepEqual(bare.unmatched, [0]);
  assert.equal(bare.matches.length, 0);
});

test('rule 4: tolerance at its bound matches (and settles), past it nothing', () => {
  const e = exp('e1', { remittanceContains: 'INV 2026-117' });
  const tol = { toleranceAmount: '0.50', tolerancePercent: '0', windowDays: 5 };
  const at = matchReceivables(
    [inc('i1', { amountMinor: 9950n, remittance: 'payment of inv 2026-117 thanks' })],
    [e],
    tol,
  );
  assert.equal(at.matches[0]!.rule, 'tolerance-remittance');
  assert.equal(at.matches[0]!.settles, true);
  assert.equal(at.matches[0]!.amountDeltaMinor, -50n);
  const past = matchReceivables([inc('i1', { amountMinor: 9949n, remittance: 'INV2026117' })], [e], tol);
  assert.deepEqual(past.unmatched, [0]);
  // The percentage: 1 % of 100.00 is 1.00; the larger of the two bounds applies.
  assert.equal(toleranceMinor({ toleranceAmount: '0.50', tolerancePercent: '1', windowDays: 5 }, 'EUR', 10000n), 100n);
  assert.equal(toleranceMinor({ toleranceAmount: '0', tolerancePercent: '0.5', windowDays: 5 }, 'EUR', 10001n), 50n);
});

test('1:N: one credit naming several references settles each with its exact open amount', () => {
  const out = matchReceivables(
    [inc('i1', { amountMinor: 30000n, remittance: 'RF18539007547034 RF712348231 ' })],
    [
      exp('e1', { referenceValue: 'RF18539007547034' }),
      exp('e2', { referenceValue: 'RF712348231', amountMinMinor: 20000n, amountMaxMinor: 20000n }),
    ],
  );
  assert.deepEqual(
    out.matches.map((m) => [m.expected, m.amountMinor]),
    [
      [0, 10000n],
      [1, 20000n],
    ],
  );
});

test('an ambiguous set matches nothing', () => {
  const out = matchReceivables(
    [inc('i1', { counterpartyIban: 'FI2112345600000785' })],
    [exp('e1', { counterpartyIban: 'FI2112345600000785' }), exp('e2', { counterpartyIban: 'FI2112345600000785' })],
  );
  assert.equal(out.matches.length, 0);
  assert.deepEqual(out.ambiguous, [{ incoming: 0, rule: 'amount-counterparty', candidates: [0, 1] }]);
});

test('property (fixed seed): matched amounts never exceed either side', () => {
  let seed = 20261203;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  for (let round = 0; round < 200; round++) {
    const expected = Array.from({ length: 1 + rnd(6) }, (_, k) =>
      exp(`e${k}`, {
        amountMinMinor: BigInt(1 + rnd(500)),
        referenceValue: rnd(2) ? `R${rnd(3)}` : null,
        counterpartyIban: rnd(2) ? `FI00${rnd(2)}` : null,
        remittanceContains: rnd(2) ? `INV${rnd(3)}` : null,
        matchedMinor: 0n,
      }),
    ).map((e) => ({ ...e, amountMaxMinor: e.amountMinMinor + BigInt(rnd(50)) }));
    const incoming = Array.from({ length: 1 + rnd(8) }, (_, k) =>
      inc(`i${k}`, {
        amountMinor: BigInt(1 + rnd(600)),
        reference: rnd(2) ? `R${rnd(3)}` : null,
        counterpartyIban: rnd(2) ? `FI00${rnd(2)}` : null,
        remittance: rnd(2) ? `INV${rnd(3)} R${rnd(3)}` : null,
      }),
    );
    const out = matchReceivables(incoming, expected, { toleranceAmount: '0.10', tolerancePercent: '2', windowDays: 5 });
    const toIncoming = new Map<number, bigint>();
    const toExpected = new Map<number, bigint>();
    for (const m of out.matches) {
      assert.ok(m.amountMinor > 0n);
      toIncoming.set(m.incoming, (toIncoming.get(m.incoming) ?? 0n) + m.amountMinor);
      toExpected.set(m.expected, (toExpected.get(m.expected) ?? 0n) + m.amountMinor);
    }
    for (const [i, sum] of toIncoming) assert.ok(sum <= incoming[i]!.amountMinor, `round ${round} incoming ${i}`);
    for (const [j, sum] of toExpected) assert.ok(sum <= expected[j]!.amountMaxMinor, `round ${round} expected ${j}`);
  }
});
