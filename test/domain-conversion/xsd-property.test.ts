/**
 * Property: generated valid payments for every bank x payment type x pain version convert, the file is
 * valid against the official XSD (../shared/corpus/xsd, Debian xmllint), NbOfTxs and CtrlSum equal the
 * inputs, and every amount round-trips exactly. All documents of one version go to one xmllint call.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { convertPayment, listProfiles } from '../../src/domain/conversion/index.ts';
import { currencyExponent } from '../../src/domain/money/currencies.ts';
import { samplePayment } from './fixtures.ts';

const XMLLINT = '/usr/bin/xmllint';
const xsdDir = fileURLToPath(new URL('../../../shared/corpus/xsd/', import.meta.url));
const XSD: Record<string, string> = {
  'pain.001.001.03': path.join(xsdDir, 'phoughton-pyiso20022__pain.001.001.03.xsd'),
  'pain.001.001.09': path.join(xsdDir, 'phoughton-pyiso20022__pain.001.001.09.xsd'),
  'pain.001.001.11': path.join(xsdDir, 'phoughton-pyiso20022__pain.001.001.11.xsd'),
};
const RUNS = Number(process.env.PROPERTY_RUNS ?? 10);
const now = new Date('2026-11-21T08:55:00Z');

/** Text a user might type: SEPA letters, Nordic/Polish/German letters, and characters needing XML escaping. */
const textArb = fc
  .array(fc.constantFrom(...'abcXYZ019 -.,()+/?:\'åäöÅÄÖæøÆØéüßąłŚż&"<>'.split('')), { minLength: 1, maxLength: 20 })
  .map((cs) => `N ${cs.join('').replace(/[<>]/g, '')}`.trim());

/** Amounts up to 11 whole digits; a SEPA scheme type's up to its 999,999,999.99 EUR. */
function amountArb(currency: string, sepa: boolean): fc.Arbitrary<string> {
  const exp = currencyExponent(currency) ?? 2;
  return fc
    .tuple(fc.bigInt({ min: 1n, max: sepa ? 999_999_999n : 99_999_999_999n }), fc.nat({ max: 10 ** exp - 1 }))
    .map(([whole, frac]) => (exp === 0 ? whole.toString() : `${whole}.${String(frac).padStart(exp, '0')}`));
}

function toMinor(value: string, exp: number): bigint {
  const [w, f = ''] = value.split('.');
  return BigInt(`${w}${f.padEnd(exp, '0')}`);
}

type Expect = { file: string; count: number; amounts: Array<{ value: string; currency: string }> };

test('every bank x type x version: XSD-valid, exact NbOfTxs, CtrlSum and amounts', { timeout: 120_000 }, (t) => {
  if (!existsSync(XMLLINT)) {
    t.skip(`${XMLLINT} is not installed (apt-get install libxml2-utils): official XSD validation skipped`);
    return;
  }
  if (!Object.values(XSD).every((f) => existsSync(f))) {
    t.skip(`official XSDs not found in ${xsdDir}`);
    return;
  }
  const work = mkdtempSync(path.join(tmpdir(), 'pain001-prop-'));
  const byVersion = new Map<string, Expect[]>();
  let seq = 0;
  try {
    for (const profile of listProfiles()) {
      if (profile.unsupported) continue;
      for (const type of profile.paymentTypes) {
        for (const version of profile.painVersions) {
          const base = samplePayment(type.code, profile.countryCode, { transactions: 1 });
          const currency = ((base['payments'] as Array<{ transactions: Array<{ currency: string }> }>)[0]
            ?.transactions[0]?.currency ?? 'EUR') as string;
          fc.assert(
            fc.property(
              fc.integer({ min: 1, max: 4 }),
              fc.array(amountArb(currency, type.channel === 'SEPA'), { minLength: 4, maxLength: 4 }),
              textArb,
              (count, amounts, name) => {
                const doc = samplePayment(type.code, profile.countryCode, {
                  transactions: count,
                  amounts: type.code === 'PL_SPLIT' ? undefined : amounts,
                });
                const txs =
                  (doc['payments'] as Array<{ transactions: Array<Record<string, unknown>> }>)[0]?.transactions ?? [];
                for (const tx of txs) (tx['creditor'] as Record<string, unknown>)['name'] = name;
                const r = convertPayment(doc, profile.key, { painVersion: version, now });
                assert.ok(
                  r.ok && r.value.ok,
                  `${profile.key} ${type.code} ${version}: ${JSON.stringify(r.ok && !r.value.ok ? r.value.issues.filter((i) => i.severity === 'error') : r)}`,
                );
                const file = path.join(work, `${++seq}-${profile.key}-${type.code}.xml`);
                writeFileSync(file, r.value.xml);
                const list = byVersion.get(version) ?? [];
                list.push({
                  file,
                  count: txs.length,
                  amounts: txs.map((tx) => ({ value: tx['amount'] as string, currency: tx['currency'] as string })),
                });
                byVersion.set(version, list);
                checkTotals(
                  r.value.xml,
                  txs.length,
                  txs.map((tx) => ({ value: tx['amount'] as string, currency: tx['currency'] as string })),
                );
              },
            ),
            { numRuns: RUNS, seed: 20261121 },
          );
        }
      }
    }
    for (const [version, list] of byVersion) {
      const res = spawnSync(XMLLINT, ['--noout', '--schema', XSD[version] ?? '', ...list.map((e) => e.file)], {
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      });
      const failures = res.stderr.split('\n').filter((l) => l !== '' && !l.endsWith(' validates'));
      assert.deepEqual(failures, [], `${version}: ${failures.slice(0, 10).join('\n')}`);
      assert.equal(res.status, 0);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

function checkTotals(xml: string, count: number, amounts: Array<{ value: string; currency: string }>): void {
  const nb = [...xml.matchAll(/<NbOfTxs>(\d+)<\/NbOfTxs>/g)].map((m) => Number(m[1]));
  assert.equal(nb[0], count, 'GrpHdr NbOfTxs');
  assert.equal(
    nb.slice(1).reduce((a, b) => a + b, 0),
    count,
    'PmtInf NbOfTxs add up',
  );
  const written = [...xml.matchAll(/<InstdAmt Ccy="([A-Z]{3})">([0-9.]+)<\/InstdAmt>/g)].map((m) => ({
    currency: m[1] ?? '',
    value: m[2] ?? '',
  }));
  assert.equal(written.length, count);
  let expected = 0n;
  let exp = 0;
  for (let i = 0; i < count; i++) {
    const a = amounts[i];
    const w = written[i];
    assert.ok(a && w);
    const e = currencyExponent(a.currency) ?? 2;
    assert.equal(toMinor(w.value, e), toMinor(a.value, e), 'amount round-trips');
    assert.equal(w.currency, a.currency);
    exp = Math.max(exp, e);
  }
  for (const a of amounts.slice(0, count)) expected += toMinor(a.value, currencyExponent(a.currency) ?? 2);
  const ctrl = [...xml.matchAll(/<CtrlSum>([0-9.]+)<\/CtrlSum>/g)].map((m) => m[1] ?? '');
  assert.equal(toMinor(ctrl[0] ?? '', exp), expected, 'GrpHdr CtrlSum');
  const groupSum = ctrl.slice(1).reduce((s, c) => s + toMinor(c, exp), 0n);
  assert.equal(groupSum, expected, 'PmtInf CtrlSums add up');
}
