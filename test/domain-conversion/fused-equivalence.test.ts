/**
 * The fused converter (src/domain/conversion/fused.ts) against the level-by-level path (`fused: false`):
 * for every generated payment the two give the same result, byte for byte and issue for issue; where the
 * payment has an error the fused converter must decline. Generated payments mix non-ASCII text (kept,
 * transliterated or refused per bank charset), characters needing escaping, several payments (several
 * PmtInf), per-transaction and per-currency grouping, optional fields, non-canonical amounts and errors.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { findBankProfile } from '../../src/domain/banks/profiles.ts';
import { convertFused } from '../../src/domain/conversion/fused.ts';
import { convertPayment, listProfiles } from '../../src/domain/conversion/index.ts';
import { TRANSACTION_FIELD_RULES } from '../../src/domain/validation/field-rules.ts';
import { IBANS, samplePayment } from './fixtures.ts';

const now = new Date('2026-11-21T08:55:00Z');
const RUNS = Number(process.env.PROPERTY_RUNS ?? 300);
const supported = listProfiles().filter((p) => !p.unsupported);

function same(raw: unknown, bankKey: string, painVersion?: string): { fused: boolean; ok: boolean } {
  const opts = { now, ...(painVersion ? { painVersion } : {}) };
  const full = convertPayment(raw, bankKey, { ...opts, fused: false });
  const auto = convertPayment(raw, bankKey, opts);
  assert.deepEqual(auto, full);
  const profile = findBankProfile(bankKey);
  const version = painVersion ?? profile?.painVersion;
  const fused =
    profile !== undefined &&
    (version === 'pain.001.001.03' || version === 'pain.001.001.09' || version === 'pain.001.001.11') &&
    convertFused(raw, profile, version, now, undefined, () => '') !== undefined;
  const ok = full.ok && full.value.ok;
  if (fused) assert.ok(ok, 'the fused converter succeeded where the full path found errors');
  return { fused, ok };
}

test('fused = full for every bank x payment type sample (the golden inputs)', () => {
  let fused = 0;
  for (const profile of listProfiles()) {
    for (const type of profile.paymentTypes) {
      for (const version of profile.painVersions) {
        const raw = samplePayment(type.code, profile.countryCode, { transactions: 3 });
        if (same(raw, profile.key, version).fused) fused++;
      }
    }
  }
  assert.ok(fused > 100, `the fused converter took only ${fused} samples`);
});

/**
 * Ids and the BIC are checked by the fused writer as it copies them (the reader checks their lengths only):
 * each refused value must make the fused converter decline, and the full path then reports its issue.
 */
test('the fused writer refuses the ids and BICs the generic level refuses', () => {
  const profile = findBankProfile('commerzbank-de');
  assert.ok(profile);
  const cases: ReadonlyArray<readonly [field: string, value: string, code: string]> = [
    ...['/E2E-1', 'E2E-1/', 'E2E//1', 'E2E_1', 'E2E \u0142'].map((v) => ['endToEndId', v, 'invalid_charset'] as const),
    ...['I//2', 'I\u0130'].map((v) => ['instructionId', v, 'invalid_charset'] as const),
    ...['COBADE1FXXX', 'COBADEFOXXX', 'COBADEFFXX\u0141', 'cobadeffxxx'].map(
      (v) => ['creditor.agent.bic', v, 'invalid_bic'] as const,
    ),
  ];
  for (const [field, value, code] of cases) {
    const raw = samplePayment('SEPA_CT', 'DE', { transactions: 3 });
    const payment = (raw['payments'] as Array<Record<string, unknown>>)[0] as Record<string, unknown>;
    const tx = (payment['transactions'] as Array<Record<string, unknown>>)[1];
    assert.ok(tx);
    if (field === 'creditor.agent.bic') (tx['creditor'] as Record<string, unknown>)['agent'] = { bic: value };
    else tx[field] = value;
    assert.equal(
      convertFused(raw, profile, profile.painVersion, now, undefined, () => ''),
      undefined,
      value,
    );
    const r = convertPayment(raw, profile.key, { now });
    assert.ok(r.ok && !r.value.ok, value);
    const issue = r.value.issues.find((i) => i.path === `payments[0].transactions[1].${field}`);
    assert.equal(issue?.code, code, value);
  }
});

/** Sets `path` (dotted, below the transaction) to `value`, creating the objects on the way. */
function setPath(tx: Record<string, unknown>, path: string, value: string): void {
  const keys = path.split('.');
  let o = tx;
  for (const k of keys.slice(0, -1)) {
    const next = o[k];
    o[k] = typeof next === 'object' && next !== null ? { ...(next as Record<string, unknown>) } : {};
    o = o[k] as Record<string, unknown>;
  }
  o[keys[keys.length - 1] as string] = value;
}

/**
 * The guard of the one field-rule table (src/domain/validation/field-rules.ts): every field both paths
 * read is spoiled in turn (one character over its ISO length; a character its class refuses), in every
 * supported bank's sample. The fused converter must either decline or give exactly the full path's
 * result, and a field over its length is a `too_long` error of the full path at that field.
 */
test('every field rule of the table: the fused path declines or reports what the full path reports', () => {
  let declined = 0;
  let cases = 0;
  for (const profile of supported) {
    const type = profile.paymentTypes.find((t) => t.code === 'SEPA_CT') ?? profile.paymentTypes[0];
    if (!type) continue;
    for (const rule of TRANSACTION_FIELD_RULES) {
      const defects = [
        { value: 'A'.repeat(rule.max + 1), tooLong: true },
        { value: rule.charset === 'identifier' ? 'ID_1' : 'Caf\u00e9 \u20ac', tooLong: false },
      ];
      for (const { value, tooLong } of defects) {
        const raw = samplePayment(type.code, profile.countryCode, { transactions: 3 });
        const payment = (raw['payments'] as Array<Record<string, unknown>>)[0] as Record<string, unknown>;
        const tx = (payment['transactions'] as Array<Record<string, unknown>>)[1];
        assert.ok(tx);
        setPath(tx, rule.path, value);
        const { fused } = same(raw, profile.key);
        cases++;
        if (!fused) declined++;
        if (tooLong) {
          const r = convertPayment(raw, profile.key, { now, fused: false });
          assert.ok(r.ok && !r.value.ok, `${profile.key} ${rule.path}`);
          const issue = r.value.issues.find((i) => i.path === `payments[0].transactions[1].${rule.path}`);
          assert.equal(issue?.code, 'too_long', `${profile.key} ${rule.path}`);
          assert.equal(fused, false, `${profile.key} ${rule.path}: the fused path took a field over its length`);
        }
      }
    }
  }
  assert.ok(cases > 100 && declined >= cases / 2, `${declined} of ${cases} declined`);
});

/**
 * The rules of issue 38 reach both paths: NOTPROVIDED end-to-end ids (shared, with and without the
 * client's instruction id, beside a real duplicate, at a bank that fills InstrId from the end-to-end id),
 * batchBooking (asked, absent, not a boolean) at banks that offer the choice and banks that refuse it,
 * and pain.001.001.11. Each case is byte- and issue-identical, and the cases the fast reader takes are
 * taken by it (so the equality is not vacuous).
 */
test('issue 38 rules (NOTPROVIDED, batchBooking, pain.001.001.11): fused = full, and the fused path takes the valid ones', () => {
  type Case = {
    bank: string;
    country: string;
    version?: string;
    batch?: unknown;
    ids: Array<string | null>;
    instr?: Record<number, string>;
  };
  const cases: Case[] = [];
  const idSets: Array<Array<string | null>> = [
    ['NOTPROVIDED', 'NOTPROVIDED', 'NOTPROVIDED'],
    ['NOTPROVIDED', 'E2E-2', 'NOTPROVIDED'],
    ['E2E-1', 'NOTPROVIDED', 'E2E-1'],
  ];
  for (const [bank, country] of [
    ['nordea-fi', 'FI'],
    ['deutsche-bank-de', 'DE'],
    ['demo', 'FI'],
    ['mbank-pl', 'PL'],
  ] as const) {
    const profile = findBankProfile(bank);
    assert.ok(profile, bank);
    for (const version of profile.painVersions) {
      for (const batch of [undefined, true, false, 'yes']) {
        for (const ids of idSets) cases.push({ bank, country, version, batch, ids });
        cases.push({ bank, country, version, batch, ids: idSets[0] as string[], instr: { 1: 'CLIENT-I-2' } });
      }
    }
  }
  let fused = 0;
  let valid = 0;
  for (const c of cases) {
    const raw = samplePayment(c.bank === 'demo' ? 'INTRA_COMPANY' : 'SEPA_CT', c.country, { transactions: 3 });
    const payment = (raw['payments'] as Array<Record<string, unknown>>)[0] as Record<string, unknown>;
    if (c.batch !== undefined) payment['batchBooking'] = c.batch;
    const txs = payment['transactions'] as Array<Record<string, unknown>>;
    txs.forEach((tx, j) => {
      tx['endToEndId'] = c.ids[j];
      if (c.instr?.[j] !== undefined) tx['instructionId'] = c.instr[j];
      else delete tx['instructionId'];
    });
    const label = `${c.bank} ${c.version} batchBooking=${String(c.batch)} ${c.ids.join(',')}`;
    const r = same(raw, c.bank, c.version);
    const full = convertPayment(raw, c.bank, { now, fused: false, ...(c.version ? { painVersion: c.version } : {}) });
    const duplicate = c.ids[0] === 'E2E-1';
    const choice = findBankProfile(c.bank)?.flavour.batchBooking !== 'omit';
    const expectValid = !duplicate && (c.batch === undefined || (typeof c.batch === 'boolean' && choice));
    assert.equal(r.ok, expectValid, `${label}: ${JSON.stringify(full.ok && !full.value.ok ? full.value.issues : '')}`);
    if (r.ok) valid++;
    if (r.fused) fused++;
    if (r.ok && full.ok && full.value.ok && c.instr === undefined) {
      // Every NOTPROVIDED transaction has an InstrId of its own in the file.
      const instrIds = [...full.value.xml.matchAll(/<InstrId>([^<]*)<\/InstrId>/g)].map((m) => m[1]);
      const need = c.ids.filter((id) => id === 'NOTPROVIDED').length;
      assert.ok(new Set(instrIds).size >= need, `${label}: InstrIds ${instrIds.join(',')}`);
    }
  }
  assert.ok(valid > 20 && fused >= valid * 0.75, `fused ${fused} of ${valid} valid (${cases.length} cases)`);
});

const SEPA_IBANS = [
  IBANS['DE'],
  IBANS['FI'],
  IBANS['SE'],
  IBANS['DK'],
  IBANS['PL'],
  IBANS['NO'],
  'BE71068973942469',
  'AT541200024082639475',
  'FR1420041010050500013M02606',
] as string[];
const BICS = ['COBADEFFXXX', 'NDEAFIHH', 'GKCCBEBB', 'BKAUATWWXXX', 'ESSESESS'];

/** Letters of every charset, characters that are transliterated or escaped; rarely one that is refused (€). */
const textArb = fc.oneof(
  {
    weight: 19,
    arbitrary: fc
      .array(fc.constantFrom(...'abcXYZ019 -.,()+/?:\'åäöÅÄÖæøÆØéèüßąłŚż&";!_'.split('')), {
        minLength: 1,
        maxLength: 24,
      })
      .map((cs) => `N ${cs.join('')}`.trim()),
  },
  { weight: 1, arbitrary: fc.constantFrom('Café €', 'a <b>', 'x'.repeat(150)) },
);

/** Mostly `good`, sometimes one of `bad`. */
function mostly<T>(good: fc.Arbitrary<T>, ...bad: T[]): fc.Arbitrary<T> {
  return fc.oneof({ weight: 150, arbitrary: good }, { weight: 1, arbitrary: fc.constantFrom(...bad) });
}

const amountArb = mostly(
  fc.oneof(
    fc.integer({ min: 1, max: 9_999_999 }).map((c) => `${Math.floor(c / 100)}.${String(c % 100).padStart(2, '0')}`),
    fc.integer({ min: 1, max: 99_999 }).map(String),
    fc.constantFrom('0.5', '12.3'),
  ),
  '0.00',
  '1e3',
  '-5.00',
  '1.234',
);

const addressArb = fc.record(
  {
    streetName: textArb,
    buildingNumber: fc.constantFrom('1', '12a', '7 & 9', ''),
    postCode: fc.constantFrom('00100', '50735', 'SW1A 1AA'),
    townName: textArb,
  },
  { requiredKeys: ['townName'] },
);

const creditorArb = fc.record(
  {
    name: textArb,
    country: mostly(fc.constantFrom('DE', 'FI', 'SE', 'BE', 'US'), 'XX'),
    postalAddress: addressArb,
    account: fc.oneof(
      { weight: 150, arbitrary: fc.constantFrom(...SEPA_IBANS).map((iban) => ({ iban })) },
      {
        weight: 1,
        arbitrary: fc.constantFrom({ iban: 'DE00370400440532013000' }, { iban: 'de89 3704 0044 0532 0130 00' }),
      },
    ),
    agent: mostly(fc.constantFrom(...BICS), 'COBADE1FXXX', 'cobadeffxxx', 'COBADEFOXXX', 'COBADEFFXX').map((bic) => ({
      bic,
    })),
  },
  { requiredKeys: ['name', 'account', 'country', 'agent'] },
);

const remittanceArb = fc.record(
  {
    unstructured: textArb,
    creditorReference: mostly(fc.constant('RF18539007547034'), 'RF00539007547034', '12344', ''),
    creditorReferenceType: fc.constantFrom('SCOR', 'FI'),
  },
  { requiredKeys: [] },
);

const txArb = fc.record(
  {
    instructionId: mostly(fc.constantFrom('I-1', 'I/2', ''), '/bad'),
    amount: amountArb,
    currency: fc.oneof(
      { weight: 60, arbitrary: fc.constant('EUR') },
      { weight: 3, arbitrary: fc.constantFrom('SEK', 'JPY', 'PLN') },
      { weight: 1, arbitrary: fc.constant('XXX') },
    ),
    creditor: creditorArb,
    remittance: remittanceArb,
    purposeCode: mostly(fc.constantFrom('SALA', 'SUPP'), 'bad code'),
    unknownField: fc.constant(1),
  },
  { requiredKeys: ['amount', 'currency', 'creditor'] },
);

const paymentArb = fc.record({
  paymentType: fc.constantFrom('SEPA_CT', 'SEPA_INST', 'URGENT', 'SALARY', 'INTRA_COMPANY', 'XB_SWIFT', undefined),
  executionDate: fc.constantFrom('2026-11-25', '2026-03-02'),
  // Issue 38: mostly absent (most banks book as agreed and refuse it), sometimes asked, rarely not a boolean.
  batchBooking: fc.oneof(
    { weight: 12, arbitrary: fc.constant(undefined) },
    { weight: 4, arbitrary: fc.boolean() },
    { weight: 1, arbitrary: fc.constant('yes') },
  ),
  // Issue 38: transactions without a reference of their own (EndToEndId NOTPROVIDED, EPC132-08 AT-41).
  notProvided: fc.oneof(
    { weight: 3, arbitrary: fc.constant(0) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 6 }) },
  ),
  transactions: fc.array(fc.oneof({ weight: 5, arbitrary: txArb.filter((t) => !('unknownField' in t)) }, txArb), {
    minLength: 1,
    maxLength: 6,
  }),
});

const docArb = fc.record({
  bank: fc.constantFrom(...supported.map((p) => p.key)),
  version: fc.constantFrom('pain.001.001.03', 'pain.001.001.11', undefined),
  payments: fc.array(paymentArb, { minLength: 1, maxLength: 3 }),
  duplicate: fc.nat({ max: 100 }),
});

test('fused = full on generated payments (text, escaping, groups, errors)', () => {
  let fused = 0;
  let valid = 0;
  let runs = 0;
  fc.assert(
    fc.property(docArb, ({ bank, version: asked, payments, duplicate }) => {
      const profile = supported.find((p) => p.key === bank);
      if (!profile) return;
      let n = 0;
      const raw = {
        messageId: 'MSG-1',
        creationDateTime: '2026-11-21T08:55:00',
        initiatingParty: { name: 'ACME & Co', organisationId: { id: '1234567-8' } },
        payments: payments.map((p, i) => ({
          paymentId: `PMT-${i + 1}`,
          ...(p.paymentType ? { paymentType: p.paymentType } : {}),
          executionDate: p.executionDate,
          ...(p.batchBooking === undefined ? {} : { batchBooking: p.batchBooking }),
          debtor: {
            name: 'ACME Group',
            country: 'DE',
            postalAddress: { streetName: 'Hauptstraße', buildingNumber: '1', postCode: '50735', townName: 'Köln' },
            account: { iban: IBANS['DE'] },
          },
          // endToEndIds are unique unless `duplicate` picks an earlier one; the first `notProvided` of a
          // payment are NOTPROVIDED (several may share it).
          transactions: p.transactions.map((t, j) => {
            n++;
            const id = j < p.notProvided ? 'NOTPROVIDED' : duplicate === n && n > 1 ? 'E2E-1' : `E2E-${n}`;
            return { endToEndId: id, ...t };
          }),
        })),
      };
      const version = asked && profile.painVersions.includes(asked) ? asked : undefined;
      const r = same(raw, bank, version);
      runs++;
      if (r.fused) fused++;
      if (r.ok) valid++;
    }),
    { numRuns: RUNS },
  );
  // Guards against a generator that never reaches the fused path (the equality would then be vacuous).
  assert.ok(fused >= valid / 3 && fused > runs / 20, `fused ${fused}, valid ${valid} of ${runs}`);
});
