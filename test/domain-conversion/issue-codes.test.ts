/**
 * One test per issue code: a valid sample with one defect gives exactly that issue, at the right path
 * and level. Covers generic, bank and payment-type levels and the typed request errors.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findBankProfile } from '../../src/domain/banks/profiles.ts';
import { convertFused } from '../../src/domain/conversion/fused.ts';
import { convertPayment, validatePayment } from '../../src/domain/conversion/index.ts';
import { IBANS, samplePayment } from './fixtures.ts';

// biome-ignore lint/suspicious/noExplicitAny: tests reach into sample JSON to break one field at a time
type Doc = Record<string, any>;
const now = new Date('2026-11-21T08:55:00Z');

function sample(type = 'INTRA_COMPANY', country = 'FI', transactions = 1): Doc {
  return samplePayment(type, country, { transactions }) as Doc;
}

/**
 * The guard of the fused pain.001 path (issue 35): every defect case below goes through the fused
 * converter too, which must either decline it (and the full path answers) or answer exactly as the
 * full path does. A rule added to the full path only fails here on the case that shows it.
 */
function fusedDeclinesOrAgrees(doc: unknown, bank: string, painVersion?: string) {
  const opts = painVersion === undefined ? { now } : { now, painVersion };
  const full = convertPayment(doc, bank, { ...opts, fused: false });
  assert.deepEqual(convertPayment(doc, bank, opts), full, 'the fused path answers as the full path');
  const profile = findBankProfile(bank);
  const version = painVersion ?? profile?.painVersion;
  if (!profile || (version !== 'pain.001.001.03' && version !== 'pain.001.001.09' && version !== 'pain.001.001.11'))
    return;
  const fused = convertFused(doc, profile, version, now, undefined, () => '');
  if (fused !== undefined) assert.ok(full.ok && full.value.ok, 'the fused path took a payment the full path refuses');
}

function issuesOf(doc: unknown, bank: string, painVersion?: string) {
  fusedDeclinesOrAgrees(doc, bank, painVersion);
  const r = validatePayment(doc, bank, painVersion === undefined ? { now } : { now, painVersion });
  assert.ok(r.ok, 'request resolved');
  return r.value.issues.map((i) => ({ code: i.code, path: i.path, level: i.level, severity: i.severity }));
}

/** Transliteration warnings of national letters in the samples are ignored unless that is the code under test. */
function expectOnly(
  doc: unknown,
  bank: string,
  code: string,
  path: string,
  level: string,
  severity = 'error',
  painVersion?: string,
) {
  const issues = issuesOf(doc, bank, painVersion).filter(
    (i) => code === 'charset_transliterated' || i.code !== 'charset_transliterated',
  );
  assert.deepEqual(issues, [{ code, path, level, severity }]);
}

const P0 = 'payments[0]';
const T0 = 'payments[0].transactions[0]';

test('the untouched samples are valid', () => {
  assert.deepEqual(issuesOf(sample(), 'nordea-fi'), []);
});

test('required', () => {
  const d = sample();
  delete d.payments[0].transactions[0].endToEndId;
  expectOnly(d, 'nordea-fi', 'required', `${T0}.endToEndId`, 'generic');
});

test('invalid_type (wrong JSON type is an issue, not a crash)', () => {
  const d = sample();
  d.payments[0].debtor.country = 42;
  d.payments[0].debtor.postalAddress = undefined;
  expectOnly(d, 'nordea-fi', 'invalid_type', `${P0}.debtor.country`, 'generic');
  const notObject = sample('INTRA_COMPANY', 'FI', 2);
  notObject.payments[0].transactions[1] = 'oops';
  expectOnly(notObject, 'nordea-fi', 'invalid_type', `${P0}.transactions[1]`, 'generic');
  for (const raw of [null, [], 'x', 1, { payments: 'no' }]) {
    const r = validatePayment(raw, 'nordea-fi', { now });
    assert.ok(r.ok && r.value.valid === false);
  }
});

test('invalid_iban', () => {
  const d = sample();
  d.payments[0].transactions[0].creditor.account.iban = 'FI2112345600000786';
  expectOnly(d, 'nordea-fi', 'invalid_iban', `${T0}.creditor.account.iban`, 'generic');
});

test('invalid_bic', () => {
  const d = sample();
  d.payments[0].transactions[0].creditor.agent = { bic: 'NDEA1' };
  expectOnly(d, 'nordea-fi', 'invalid_bic', `${T0}.creditor.agent.bic`, 'generic');
});

test('invalid_amount (float number, exponent, negative)', () => {
  for (const amount of [12.5, '1e3', '-1.00']) {
    const d = sample();
    d.payments[0].transactions[0].amount = amount;
    expectOnly(d, 'nordea-fi', 'invalid_amount', `${T0}.amount`, 'generic');
  }
});

test('amount_precision', () => {
  const d = sample();
  d.payments[0].transactions[0].amount = '1.001';
  expectOnly(d, 'nordea-fi', 'amount_precision', `${T0}.amount`, 'generic');
});

test('invalid_currency', () => {
  const d = sample();
  d.payments[0].transactions[0].currency = 'XYZ';
  expectOnly(d, 'nordea-fi', 'invalid_currency', `${T0}.currency`, 'generic');
});

test('invalid_country', () => {
  const d = sample();
  d.payments[0].transactions[0].creditor.country = 'XX';
  expectOnly(d, 'nordea-fi', 'invalid_country', `${T0}.creditor.country`, 'generic');
});

test('invalid_date', () => {
  const d = sample();
  d.payments[0].executionDate = '2026-02-30';
  expectOnly(d, 'nordea-fi', 'invalid_date', `${P0}.executionDate`, 'generic');
});

test('invalid_code', () => {
  const d = sample();
  d.payments[0].priority = 'URGENT';
  expectOnly(d, 'nordea-fi', 'invalid_code', `${P0}.priority`, 'generic');
});

test('too_long', () => {
  const d = sample();
  d.payments[0].transactions[0].remittance.unstructured = 'x'.repeat(141);
  expectOnly(d, 'nordea-fi', 'too_long', `${T0}.remittance.unstructured`, 'generic');
});

test('charset_transliterated is a warning naming original and replacement', () => {
  const d = sample();
  d.payments[0].transactions[0].creditor.name = 'Jürgen Müller & Co';
  expectOnly(d, 'nordea-fi', 'charset_transliterated', `${T0}.creditor.name`, 'generic', 'warning');
  const r = convertPayment(d, 'nordea-fi', { now });
  assert.ok(r.ok && r.value.ok);
  assert.match(r.value.warnings[0]?.message ?? '', /ü->u.*&->\+/);
  assert.match(r.value.xml, /<Nm>Jurgen Muller \+ Co<\/Nm>/);
});

test('invalid_charset where no safe mapping exists', () => {
  const d = sample();
  d.payments[0].transactions[0].remittance.unstructured = 'Price 10 €';
  expectOnly(d, 'nordea-fi', 'invalid_charset', `${T0}.remittance.unstructured`, 'generic');
});

test('duplicate_end_to_end_id', () => {
  const d = sample('INTRA_COMPANY', 'FI', 2);
  d.payments[0].transactions[1].endToEndId = d.payments[0].transactions[0].endToEndId;
  expectOnly(d, 'nordea-fi', 'duplicate_end_to_end_id', `${P0}.transactions[1].endToEndId`, 'generic');
});

test('unsupported_schema_version', () => {
  const d = sample();
  d.schemaVersion = '2.0';
  expectOnly(d, 'nordea-fi', 'unsupported_schema_version', 'schemaVersion', 'generic');
});

test('unknown_payment_type', () => {
  const d = sample();
  d.payments[0].paymentType = 'TELEPORT';
  expectOnly(d, 'nordea-fi', 'unknown_payment_type', `${P0}.paymentType`, 'payment-type');
});

test('payment_type_requires', () => {
  const d = sample('FI_REF');
  delete d.payments[0].transactions[0].remittance;
  expectOnly(d, 'nordea-fi', 'payment_type_requires', `${T0}.remittance.creditorReference`, 'payment-type');
});

test('invalid_reference (Finnish, KID, OCR, FIK, RF, Polish formats)', () => {
  const cases: Array<[string, string, string, (d: Doc) => void, string]> = [
    [
      'FI_REF',
      'FI',
      'nordea-fi',
      (d) => {
        d.payments[0].transactions[0].remittance.creditorReference = '1233';
      },
      `${T0}.remittance.creditorReference`,
    ],
    [
      'NO_KID',
      'NO',
      'dnb-no',
      (d) => {
        d.payments[0].transactions[0].remittance.creditorReference = '1234567890';
      },
      `${T0}.remittance.creditorReference`,
    ],
    [
      'SE_BANKGIRO',
      'SE',
      'seb-se',
      (d) => {
        d.payments[0].transactions[0].remittance.creditorReference = '1234567898';
      },
      `${T0}.remittance.creditorReference`,
    ],
    [
      'DK_FIK71',
      'DK',
      'danske-dk',
      (d) => {
        d.payments[0].transactions[0].remittance.creditorReference = '123456789000012';
      },
      `${T0}.remittance.creditorReference`,
    ],
    [
      'SEPA_CT',
      'FI',
      'op',
      (d) => {
        d.payments[0].transactions[0].remittance = { creditorReference: 'RF19539007547034' };
      },
      `${T0}.remittance.creditorReference`,
    ],
    [
      'PL_TAX_US',
      'PL',
      'mbank-pl',
      (d) => {
        d.payments[0].transactions[0].remittance.unstructured = '/TI/N5260250275/OKR/26M10/SFP/VAT-7';
      },
      `${T0}.remittance.unstructured`,
    ],
    [
      'PL_SPLIT',
      'PL',
      'pko-pl',
      (d) => {
        d.payments[0].transactions[0].splitPayment.taxId = '5260250275';
      },
      `${T0}.splitPayment.taxId`,
    ],
  ];
  for (const [type, country, bank, mutate, path] of cases) {
    const d = sample(type, country);
    mutate(d);
    expectOnly(d, bank, 'invalid_reference', path, 'payment-type');
  }
});

test('invalid_account (Bankgiro, NRB)', () => {
  const d = sample('SE_BANKGIRO', 'SE');
  d.payments[0].transactions[0].creditor.account.other.id = '50501056';
  expectOnly(d, 'seb-se', 'invalid_account', `${T0}.creditor.account.other.id`, 'payment-type');
});

test('bank_unsupported', () => {
  const d = sample('PL_ELIXIR', 'PL');
  expectOnly(d, 'pekao-pl', 'bank_unsupported', '', 'bank');
});

test('pain_version_unsupported', () => {
  expectOnly(
    sample('SEPA_CT', 'DE'),
    'commerzbank-de',
    'pain_version_unsupported',
    '',
    'bank',
    'error',
    'pain.001.001.03',
  );
});

test('payment_type_not_offered', () => {
  const d = sample('SE_BANKGIRO', 'SE');
  expectOnly(d, 'nordea-fi', 'payment_type_not_offered', `${P0}.paymentType`, 'bank');
});

test('bic_required (non-SEPA creditor without agent)', () => {
  const d = sample('XB_SWIFT');
  delete d.payments[0].transactions[0].creditor.agent;
  // the payment type's `requires` names the same field: one issue per path is enough
  expectOnly(d, 'nordea-fi', 'bic_required', `${T0}.creditor.agent.bic`, 'bank');
});

test('currency_not_supported', () => {
  const d = sample('INTRA_COMPANY', 'FI');
  d.payments[0].transactions[0].currency = 'SEK';
  expectOnly(d, 'demo', 'currency_not_supported', `${T0}.currency`, 'bank');
});

test('charge_bearer_not_allowed', () => {
  const d = sample('INTRA_COMPANY', 'FI');
  d.payments[0].chargeBearer = 'DEBT';
  expectOnly(d, 'demo', 'charge_bearer_not_allowed', `${P0}.chargeBearer`, 'bank');
});

test('batch_booking_not_allowed', () => {
  const d = sample('SEPA_CT', 'FI');
  d.payments[0].batchBooking = false;
  expectOnly(d, 'nordea-fi', 'batch_booking_not_allowed', `${P0}.batchBooking`, 'bank');
});

test('pain.001.001.11 takes the same rules: charge_bearer_not_allowed', () => {
  const d = sample('INTRA_COMPANY', 'FI');
  d.payments[0].chargeBearer = 'DEBT';
  expectOnly(d, 'demo', 'charge_bearer_not_allowed', `${P0}.chargeBearer`, 'bank', 'error', 'pain.001.001.11');
});

test('address_not_structured (from 15 November 2026)', () => {
  const d = sample('SE_ACCOUNT', 'SE');
  d.payments[0].transactions[0].creditor.postalAddress = {
    addressLines: ['Storgatan 1', '111 22 Stockholm'],
    townName: 'Stockholm',
  };
  expectOnly(d, 'seb-se', 'address_not_structured', `${T0}.creditor.postalAddress.addressLines`, 'bank');
  d.payments[0].executionDate = '2026-11-13';
  assert.deepEqual(issuesOf(d, 'seb-se'), []);
});

test('bank_too_long (bank limit stricter than ISO)', () => {
  const d = sample('SEPA_CT');
  d.payments[0].transactions[0].creditor.name = 'N'.repeat(71);
  expectOnly(d, 'demo', 'bank_too_long', `${T0}.creditor.name`, 'bank');
});

test('remittance_not_allowed (Nordea: no free text next to KID)', () => {
  const d = sample('NO_KID', 'NO');
  d.payments[0].transactions[0].remittance.unstructured = 'Faktura 1';
  expectOnly(d, 'nordea-no', 'remittance_not_allowed', `${T0}.remittance.unstructured`, 'bank');
});

test('regulatory_reporting_required (Norway from NOK 100,000 cross-border)', () => {
  const d = sample('XB_SWIFT', 'NO');
  d.payments[0].transactions[0].currency = 'NOK';
  d.payments[0].transactions[0].amount = '100000.00';
  expectOnly(d, 'dnb-no', 'regulatory_reporting_required', `${T0}.regulatoryReporting.code`, 'bank');
  d.payments[0].transactions[0].regulatoryReporting = { code: '14', information: 'Import of goods' };
  assert.deepEqual(issuesOf(d, 'dnb-no'), []);
});

test('payment_type_currency', () => {
  const d = sample('SE_ACCOUNT', 'SE');
  d.payments[0].transactions[0].currency = 'EUR';
  expectOnly(d, 'seb-se', 'payment_type_currency', `${T0}.currency`, 'payment-type');
});

test('payment_type_charge_bearer (SEPA is SLEV)', () => {
  const d = sample('SEPA_CT');
  d.payments[0].chargeBearer = 'SHAR';
  expectOnly(d, 'op', 'payment_type_charge_bearer', `${P0}.chargeBearer`, 'payment-type');
});

test('every issue at once, in the order generic, bank, payment type', () => {
  const d = sample('SEPA_CT');
  d.payments[0].transactions[0].creditor.account.iban = 'XX00';
  d.payments[0].chargeBearer = 'SHAR';
  d.payments[0].transactions[0].creditor.name = 'N'.repeat(71);
  const levels = issuesOf(d, 'demo').map((i) => i.level);
  assert.deepEqual([...new Set(levels)], ['generic', 'bank', 'payment-type']);
  const rank = { generic: 0, bank: 1, 'payment-type': 2 } as Record<string, number>;
  assert.ok(levels.every((l, i) => i === 0 || (rank[l] ?? 0) >= (rank[levels[i - 1] ?? ''] ?? 0)));
});

test('unknown fields are dropped and reported by dotted path', () => {
  const d = sample('INTRA_COMPANY', 'FI', 2);
  d.extra = 1;
  d.payments[0].transactions[1].foo = { deep: [1, 2] };
  d.payments[0].debtor.account.bar = 'x';
  const r = validatePayment(d, 'nordea-fi', { now });
  assert.ok(r.ok);
  assert.deepEqual(r.value.unknownFieldsDropped, ['extra', `${P0}.debtor.account.bar`, `${P0}.transactions[1].foo`]);
  assert.equal(r.value.valid, true);
});

test('automatic payment-type selection and autoFilled', () => {
  const d = sample('SEPA_CT');
  delete d.payments[0].paymentType;
  const r = validatePayment(d, 'op', { now });
  assert.ok(r.ok && r.value.valid);
  assert.deepEqual(r.value.autoSelected, [
    { paymentId: 'PMT-SEPA-CT', selected: 'SEPA_CT', confidence: 'high', reason: 'EUR to IBANs in SEPA countries' },
  ]);
  assert.ok(r.value.autoFilled.includes(`${P0}.paymentType`));
  assert.ok(r.value.autoFilled.includes(`${P0}.chargeBearer`));
});

test('company settings fill charge bearer and execution date; /convert passes none', () => {
  const d = sample('INTRA_COMPANY', 'FI');
  delete d.payments[0].executionDate;
  const r = convertPayment(d, 'nordea-fi', { now, company: { chargeBearer: 'DEBT', executionDateOffsetDays: 2 } });
  assert.ok(r.ok && r.value.ok);
  assert.match(r.value.xml, /<ReqdExctnDt>2026-11-23<\/ReqdExctnDt>/);
  assert.match(r.value.xml, /<ChrgBr>DEBT<\/ChrgBr>/);
  assert.ok(r.value.autoFilled.includes(`${P0}.executionDate`));
});

test('typed request errors: unknown bank 404, unknown painVersion 400', () => {
  const a = convertPayment(sample(), 'no-such-bank', { now });
  assert.ok(!a.ok && a.error.code === 'unknown_bank' && a.error.status === 404);
  const b = convertPayment(sample(), 'nordea-fi', { now, painVersion: 'pain.001.001.99' });
  assert.ok(!b.ok && b.error.code === 'unknown_pain_version' && b.error.status === 400);
});

test('the caller object is not modified', () => {
  const d = sample();
  d.payments[0].transactions[0].creditor.name = 'Jürgen';
  const before = JSON.stringify(d);
  convertPayment(d, 'nordea-fi', { now });
  assert.equal(JSON.stringify(d), before);
  assert.equal(IBANS['FI'], 'FI2112345600000785');
});
