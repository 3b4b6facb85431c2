/**
 * What a bank rejects that the converter must not write: one currency per block where the bank books a
 * block as one debit, SEPA's name and amount limits, the SEPA/SWIFT Latin set for cross-border types
 * whatever the bank's domestic set, and lengths counted on what the caller wrote. Each case runs through
 * the fused converter and the general path (fused: false): both must give the same answer.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { convertPayment } from '../../src/domain/conversion/index.ts';
import { samplePayment } from './fixtures.ts';

const now = new Date('2026-11-21T08:55:00Z');

type Payment = Record<string, unknown> & { payments: Array<Record<string, unknown> & { transactions: Tx[] }> };
type Tx = Record<string, unknown> & { creditor: Record<string, unknown> };

function sample(type: string, country: string, transactions = 2): Payment {
  return samplePayment(type, country, { transactions }) as Payment;
}

type Outcome = { ok: true; xml: string; warnings: string[] } | { ok: false; issues: string[] };

/** The converter's answer, the same from both paths; issues as "code path". */
function convert(raw: Payment, bank: string): Outcome {
  const outcomes = [true, false].map((fused): Outcome => {
    const r = convertPayment(structuredClone(raw), bank, { now, fused });
    assert.ok(r.ok);
    const v = r.value;
    return v.ok
      ? { ok: true, xml: v.xml, warnings: v.warnings.map((w) => `${w.code} ${w.path}`) }
      : { ok: false, issues: v.issues.filter((i) => i.severity === 'error').map((i) => `${i.code} ${i.path}`) };
  });
  assert.deepEqual(outcomes[0], outcomes[1], 'the fused converter and the general path agree');
  return outcomes[0] as Outcome;
}

function blocks(xml: string): string[][] {
  return [...xml.matchAll(/<PmtInf>([\s\S]*?)<\/PmtInf>/g)].map((m) =>
    [...(m[1] ?? '').matchAll(/<InstdAmt Ccy="([A-Z]{3})">/g)].map((c) => c[1] as string),
  );
}

describe('one currency per payment block', () => {
  test('a bank that books each block as one debit gets one block per currency', () => {
    const p = sample('URGENT', 'DK', 3);
    const txs = p.payments[0]!.transactions;
    txs[1]!.currency = 'EUR';
    const r = convert(p, 'danske-dk');
    assert.ok(r.ok, JSON.stringify(r));
    assert.deepEqual(blocks(r.xml), [['DKK', 'DKK'], ['EUR']]);
    assert.match(r.xml, /<BtchBookg>true<\/BtchBookg>/);
  });

  test("a bank without batch booking keeps the caller's one block", () => {
    const p = sample('URGENT', 'FI', 2);
    p.payments[0]!.transactions[1]!.currency = 'SEK';
    const r = convert(p, 'op');
    assert.ok(r.ok, JSON.stringify(r));
    assert.deepEqual(blocks(r.xml), [['EUR', 'SEK']]);
  });
});

describe('SEPA scheme limits (EPC rulebooks)', () => {
  const name71 = `Lieferant ${'x'.repeat(61)}`;

  test('creditor and debtor names over 70 characters are refused for SEPA types, at any bank', () => {
    for (const bank of ['op', 'deutsche-bank-de', 'nordea-se']) {
      const p = sample('SEPA_CT', 'DE');
      p.payments[0]!.transactions[1]!.creditor.name = name71;
      (p.payments[0]!.debtor as Record<string, unknown>).name = name71;
      assert.deepEqual(convert(p, bank), {
        ok: false,
        issues: ['too_long payments[0].debtor.name', 'too_long payments[0].transactions[1].creditor.name'],
      });
    }
    // 70 is the limit, and a domestic or cross-border type keeps ISO's 140.
    const p = sample('SEPA_CT', 'DE');
    p.payments[0]!.transactions[0]!.creditor.name = name71.slice(0, 70);
    assert.equal(convert(p, 'op').ok, true);
    const xb = sample('XB_SWIFT', 'FI');
    xb.payments[0]!.transactions[0]!.creditor.name = name71;
    assert.equal(convert(xb, 'op').ok, true);
  });

  test('amounts above 999,999,999.99 EUR are refused for SEPA types', () => {
    const p = sample('SEPA_CT', 'DE');
    p.payments[0]!.transactions[0]!.amount = '999999999.99';
    p.payments[0]!.transactions[1]!.amount = '1000000000.00';
    assert.deepEqual(convert(p, 'op'), {
      ok: false,
      issues: ['invalid_amount payments[0].transactions[1].amount'],
    });
    const urgent = sample('URGENT', 'FI');
    urgent.payments[0]!.transactions[1]!.amount = '1000000000.00';
    assert.equal(convert(urgent, 'op').ok, true, 'a TARGET2 payment has no such limit');
  });
});

describe('lengths count what the caller wrote', () => {
  test('a 140-character remittance with ß is accepted, its transliteration cut back to 140', () => {
    const p = sample('URGENT', 'FI');
    const text = `Straße ${'x'.repeat(133)}`;
    assert.equal(text.length, 140);
    (p.payments[0]!.transactions[0]! as Record<string, unknown>).remittance = { unstructured: text };
    const r = convert(p, 'op');
    assert.ok(r.ok, JSON.stringify(r));
    const ustrd = /<Ustrd>([^<]*)<\/Ustrd>/.exec(r.xml)?.[1] ?? '';
    assert.equal(ustrd, `Strasse ${'x'.repeat(132)}`);
    assert.deepEqual(r.warnings, ['charset_transliterated payments[0].transactions[0].remittance.unstructured']);
    // 141 characters written are still too long.
    (p.payments[0]!.transactions[0]! as Record<string, unknown>).remittance = { unstructured: `${text}x` };
    assert.deepEqual(convert(p, 'op'), {
      ok: false,
      issues: ['too_long payments[0].transactions[0].remittance.unstructured'],
    });
  });
});

describe('cross-border payments in the SEPA/SWIFT Latin set', () => {
  const name = (xml: string, n = 0) => [...xml.matchAll(/<Cdtr>\s*<Nm>([^<]*)<\/Nm>/g)][n]?.[1];

  test('national letters and & are transliterated for SWIFT and for SEPA to another country', () => {
    const cases: Array<[string, string, string, string]> = [
      // bank, type, debtor country, creditor IBAN
      ['nordea-se', 'SEPA_CT', 'SE', 'DE89370400440532013000'],
      ['danske-dk', 'SEPA_CT', 'DK', 'DE89370400440532013000'],
      ['pko-pl', 'SEPA_CT', 'PL', 'DE89370400440532013000'],
      ['commerzbank-de', 'SEPA_CT', 'DE', 'FI2112345600000785'],
    ];
    for (const [bank, type, country, iban] of cases) {
      const p = sample(type, country, 1);
      const tx = p.payments[0]!.transactions[0]!;
      tx.creditor.name = 'Żółć Åsa Müller & Co';
      tx.creditor.account = { iban };
      const r = convert(p, bank);
      assert.ok(r.ok, `${bank}: ${JSON.stringify(r)}`);
      assert.equal(name(r.xml), 'Zolc Asa Muller + Co', bank);
      assert.ok(r.warnings.includes('charset_transliterated payments[0].transactions[0].creditor.name'), bank);
    }
    // A type left to auto-selection (here SEPA_CT: EUR to a German IBAN) is told apart the same way.
    const auto = sample('SEPA_CT', 'SE', 1);
    delete auto.payments[0]!.paymentType;
    auto.payments[0]!.transactions[0]!.creditor.name = 'Åsa Öberg & Co';
    const a = convert(auto, 'nordea-se');
    assert.ok(a.ok, JSON.stringify(a));
    assert.equal(name(a.xml), 'Asa Oberg + Co');
    const xb = sample('XB_SWIFT', 'SE', 1);
    xb.payments[0]!.transactions[0]!.creditor.name = 'Björk & Søn';
    const r = convert(xb, 'nordea-se');
    assert.ok(r.ok, JSON.stringify(r));
    assert.equal(name(r.xml), 'Bjork + Son');
  });

  test("a domestic payment, SEPA to the bank's own country included, keeps the national letters", () => {
    const se = sample('SE_ACCOUNT', 'SE', 1);
    se.payments[0]!.transactions[0]!.creditor.name = 'Åsa Öberg';
    const r = convert(se, 'nordea-se');
    assert.ok(r.ok, JSON.stringify(r));
    assert.equal(name(r.xml), 'Åsa Öberg');
    const de = sample('SEPA_CT', 'DE', 1);
    de.payments[0]!.transactions[0]!.creditor.name = 'Müller & Söhne';
    const d = convert(de, 'commerzbank-de');
    assert.ok(d.ok, JSON.stringify(d));
    assert.equal(name(d.xml), 'Müller &amp; Söhne');
  });
});
