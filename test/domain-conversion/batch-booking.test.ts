/**
 * Issue 38 item 10: `batchBooking` on a canonical payment asks for PmtInf/BtchBookg (true: one debit for
 * the payment; false: one per transaction) where the bank honours it (its profile's batchBooking is not
 * "omit": Nordea DK/NO, Danske, the German banks); a bank that books as agreed with the holder refuses it
 * (batch_booking_not_allowed, ADR 0073) and its profile view says so (batchBooking.choice).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { convertPayment, listProfiles } from '../../src/domain/conversion/index.ts';
import { samplePayment } from './fixtures.ts';

const now = new Date('2026-11-21T08:55:00Z');

function withBatchBooking(country: string, value: unknown): Record<string, unknown> {
  const p = samplePayment('SEPA_CT', country);
  (p.payments as Array<Record<string, unknown>>)[0]!.batchBooking = value;
  return p;
}

const batchTags = (xml: string) => [...xml.matchAll(/<BtchBookg>([^<]*)<\/BtchBookg>/g)].map((m) => m[1]);

for (const fused of [true, false]) {
  test(`a bank that honours BtchBookg writes the payment's choice (${fused ? 'fused' : 'full'} path)`, () => {
    for (const [value, expected] of [
      [false, ['false']],
      [true, ['true']],
      [undefined, ['true']], // the profile's default
    ] as const) {
      const r = convertPayment(withBatchBooking('DE', value), 'deutsche-bank-de', { now, fused });
      assert.ok(r.ok && r.value.ok, JSON.stringify(r.ok && !r.value.ok ? r.value.issues : r));
      assert.deepEqual(batchTags(r.value.xml), expected, `batchBooking ${value}`);
    }
  });

  test(`a bank that books as agreed refuses batchBooking with the contract's issue (${fused ? 'fused' : 'full'} path)`, () => {
    for (const value of [true, false]) {
      const r = convertPayment(withBatchBooking('FI', value), 'nordea-fi', { now, fused });
      assert.ok(r.ok && !r.value.ok, `batchBooking ${value}`);
      assert.deepEqual(
        r.value.issues.filter((i) => i.severity === 'error').map((i) => [i.code, i.path, i.level, i.bank]),
        [['batch_booking_not_allowed', 'payments[0].batchBooking', 'bank', 'nordea-fi']],
      );
    }
    // Without batchBooking the file carries none, as before.
    const r = convertPayment(withBatchBooking('FI', undefined), 'nordea-fi', { now, fused });
    assert.ok(r.ok && r.value.ok);
    assert.deepEqual(batchTags(r.value.xml), []);
  });
}

test('batchBooking that is not a boolean is refused', () => {
  const r = convertPayment(withBatchBooking('DE', 'yes'), 'deutsche-bank-de', { now });
  assert.ok(r.ok && !r.value.ok);
  assert.deepEqual(
    r.value.issues.filter((i) => i.severity === 'error').map((i) => [i.code, i.path]),
    [['invalid_type', 'payments[0].batchBooking']],
  );
});

test('the profile view tells a client where batchBooking may be set', () => {
  const views = new Map(listProfiles().map((p) => [p.key, p.batchBooking]));
  assert.deepEqual(views.get('deutsche-bank-de'), { choice: true, default: true });
  assert.deepEqual(views.get('nordea-fi'), { choice: false, default: null });
  // Every bank that writes BtchBookg offers the choice, and only those.
  let checked = 0;
  for (const p of listProfiles()) {
    const r = convertPayment(samplePayment('SEPA_CT', p.countryCode), p.key, { now });
    if (!r.ok || !r.value.ok) continue;
    assert.equal(/<BtchBookg>/.test(r.value.xml), p.batchBooking.choice, p.key);
    checked++;
  }
  assert.ok(checked >= 10, `only ${checked} banks converted the sample`);
});
