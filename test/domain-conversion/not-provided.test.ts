/**
 * Issue 38 item 10: several transactions without a reference of their own, each with the EndToEndId
 * NOTPROVIDED as the EPC SCT rulebook's implementation guidelines prescribe (EPC132-08, AT-41), are one
 * valid message: end-to-end uniqueness is checked on the ids the client gave, and every NOTPROVIDED
 * transaction without an instructionId gets a generated unique InstrId, which the journal keeps on its
 * line and reconciliation matches the bank's booking on.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generatedInstructionId } from '../../src/domain/canonical/generated-instruction-id.ts';
import { convertPayment } from '../../src/domain/conversion/index.ts';
import { journalLines } from '../../src/domain/journal/payment-lines.ts';
import { matchEntries } from '../../src/domain/recon/match-entries.ts';
import type { ReconEntry } from '../../src/domain/recon/types.ts';
import { samplePayment } from './fixtures.ts';

const now = new Date('2026-11-21T08:55:00Z');

function notProvided(count: number, keep: Record<number, string> = {}): Record<string, unknown> {
  const p = samplePayment('SEPA_CT', 'FI', { transactions: count });
  const txs = (p.payments as Array<{ transactions: Array<Record<string, unknown>> }>)[0]?.transactions ?? [];
  txs.forEach((t, n) => {
    t.endToEndId = 'NOTPROVIDED';
    const instr = keep[n];
    if (instr !== undefined) t.instructionId = instr;
    else delete t.instructionId;
  });
  return p;
}

const instrIds = (xml: string) => [...xml.matchAll(/<InstrId>([^<]*)<\/InstrId>/g)].map((m) => m[1]);
const e2eIds = (xml: string) => [...xml.matchAll(/<EndToEndId>([^<]*)<\/EndToEndId>/g)].map((m) => m[1]);

for (const fused of [true, false]) {
  test(`NOTPROVIDED on three transactions is accepted, each with a generated InstrId (${fused ? 'fused' : 'full'} path)`, () => {
    const payment = notProvided(3, { 1: 'CLIENT-INSTR-2' });
    const r = convertPayment(payment, 'nordea-fi', { now, fused });
    assert.ok(r.ok);
    assert.ok(r.value.ok, JSON.stringify(r.value.ok ? [] : r.value.issues));
    const xml = r.value.xml;
    const generated = [generatedInstructionId('MSG-SEPA-CT', 0, 0), generatedInstructionId('MSG-SEPA-CT', 0, 2)];
    assert.deepEqual(instrIds(xml), [generated[0], 'CLIENT-INSTR-2', generated[1]]);
    assert.deepEqual(e2eIds(xml), ['NOTPROVIDED', 'NOTPROVIDED', 'NOTPROVIDED']);
    assert.match(generated[0] ?? '', /^NP[0-9A-F]{32}$/);
    assert.notEqual(generated[0], generated[1]);
    assert.deepEqual(
      r.value.autoFilled.filter((f) => f.endsWith('instructionId')),
      ['payments[0].transactions[0].instructionId', 'payments[0].transactions[2].instructionId'],
    );
    // The journal's lines carry the same ids the file does, so the bank's echo of them matches.
    assert.deepEqual(
      journalLines(payment).map((l) => l.instructionId),
      instrIds(xml),
    );
  });
}

test('a real end-to-end id used twice is still refused', () => {
  const payment = notProvided(3);
  const txs = (payment.payments as Array<{ transactions: Array<Record<string, unknown>> }>)[0]?.transactions ?? [];
  (txs[0] as Record<string, unknown>).endToEndId = 'E2E-1';
  (txs[2] as Record<string, unknown>).endToEndId = 'E2E-1';
  const r = convertPayment(payment, 'nordea-fi', { now });
  assert.ok(r.ok && !r.value.ok);
  assert.deepEqual(
    r.value.issues.filter((i) => i.severity === 'error').map((i) => [i.code, i.path]),
    [['duplicate_end_to_end_id', 'payments[0].transactions[2].endToEndId']],
  );
});

test('reconciliation matches NOTPROVIDED bookings line by line on the generated InstrId', () => {
  const payment = notProvided(3);
  const lines = journalLines(payment).map((l) => ({
    endToEndId: l.endToEndId,
    instructionId: l.instructionId,
    messageId: 'MSG-SEPA-CT',
    paymentInfoId: l.paymentId,
    amountMinor: l.amountMinor,
    currency: l.currency,
    creditorIban: l.payeeIban,
    executionDate: l.executionDate,
  }));
  // The bank books each with EndToEndId NOTPROVIDED and quotes the InstrId (camt Refs/InstrId); same amounts.
  const entries: ReconEntry[] = [2, 0, 1].map((n) => ({
    endToEndId: 'NOTPROVIDED',
    instructionId: lines[n]?.instructionId ?? null,
    messageId: null,
    paymentInfoId: null,
    amountMinor: lines[n]?.amountMinor ?? 0n,
    currency: 'EUR',
    direction: 'debit',
    counterpartyIban: null,
    bookingDate: '2026-11-25',
    reversal: false,
    batchWithoutDetails: false,
  }));
  const r = matchEntries(lines, entries);
  assert.deepEqual(
    r.matches.map((m) => [m.line, m.entry, m.rule]),
    [
      [2, 0, 'instruction-id'],
      [0, 1, 'instruction-id'],
      [1, 2, 'instruction-id'],
    ],
  );
});
