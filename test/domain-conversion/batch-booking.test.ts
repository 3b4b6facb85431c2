/**
 * Issue 38 item 10: `batchBooking` on a canonical payment asks for PmtInf/BtchBookg (true: one debit for
 * the payment; false: one per transaction) where the bank honours it (its profile's batchBooking is not
 * "omit": Nordea DK/NO, Danske, the German banks); a bank that ignores it gets none and a warning.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { convertPayment } from '../../src/domain/conversion/index.ts';
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

  test(`a bank that ignores BtchBookg writes none and warns (${fused ? 'fused' : 'full'} path)`, () => {
    const r = convertPayment(withBatchBooking('FI', false), 'nordea-fi', { now, fused });
    assert.ok(r.ok && r.value.ok);
    assert.deepEqual(batchTags(r.value.xml), []);
    assert.deepEqual(
      r.value.warnings.filter((w) => w.code === 'batch_booking_ignored').map((w) => [w.path, w.severity]),
      [['payments[0].batchBooking', 'warning']],
    );
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
