import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DeliveryMode, OutboundStatus } from '../lifecycle/index.ts';
import { findStatementGaps } from './statement-gaps.ts';
import {
  applyStatusReport,
  type LifecycleLine,
  type LifecycleReport,
  type ReportTransaction,
} from './status-lifecycle.ts';

const line = (index: number, state: LifecycleLine['state'] = 'pending', paymentId = 'P1'): LifecycleLine => ({
  index,
  endToEndId: `E${index}`,
  instructionId: null,
  paymentId,
  amount: '10.00',
  currency: 'EUR',
  state,
});
const tx = (e2e: string, statusCode: string, reason?: string, addtl?: string): ReportTransaction => ({
  endToEndId: e2e,
  instructionId: null,
  originalAmount: null,
  currency: null,
  statusCode,
  reasons: reason
    ? [{ code: reason, proprietary: null, description: 'why', additionalInfo: addtl ? [addtl] : [] }]
    : [],
});
const report = (
  groupStatusCode: string | null,
  txs: ReportTransaction[] = [],
  groupCode: string | null = null,
): LifecycleReport => ({
  groupStatusCode,
  groupReasons: [],
  paymentGroups: [{ paymentInfoId: 'P1', statusCode: groupCode, reasons: [], transactions: txs }],
  extraTransactions: [],
});
const ctx = { documentId: 'doc_r', date: '2026-11-20T10:00:00' };
/** A document of a converted-only bank: evidence is all that moves it. */
const doc = (status: OutboundStatus, deliveryMode: DeliveryMode = 'converted-only') => ({ status, deliveryMode });

test('group ACSC or ACCC executes the document and clears every line', () => {
  for (const code of ['ACSC', 'ACCC']) {
    for (const from of ['converted', 'sent'] as const) {
      const out = applyStatusReport(doc(from), [line(0), line(1)], report(code), ctx);
      assert.equal(out.to, 'executed');
      assert.deepEqual(
        out.transitions.map((c) => [c.index, c.to]),
        [
          [0, 'cleared'],
          [1, 'cleared'],
        ],
      );
      assert.equal(out.lineChanges[0]!.evidence.source, 'pain.002');
      assert.equal(out.lineChanges[0]!.evidence.documentId, 'doc_r');
    }
  }
});

test('group RJCT rejects the document and every line, with the reason as evidence', () => {
  const r = report('RJCT');
  r.groupReasons = [{ code: 'AM10', proprietary: null, description: 'invalid control sum', additionalInfo: ['x'] }];
  const out = applyStatusReport(doc('sent'), [line(0), line(1)], r, ctx);
  assert.equal(out.to, 'rejected');
  assert.equal(out.transitions.length, 2);
  assert.equal(out.transitions[0]!.evidence.reason, 'AM10');
  assert.equal(out.transitions[0]!.evidence.addtlInf, 'x');
});

test('RJCT of every line rejects the document; of some lines leaves it sent with the others pending', () => {
  const all = applyStatusReport(
    doc('converted'),
    [line(0), line(1)],
    report(null, [tx('E0', 'RJCT', 'AC04'), tx('E1', 'RJCT', 'AM04')]),
    ctx,
  );
  assert.equal(all.to, 'rejected');
  assert.deepEqual(
    all.transitions.map((c) => c.evidence.reason),
    ['AC04', 'AM04'],
  );
  const some = applyStatusReport(doc('converted'), [line(0), line(1)], report(null, [tx('E0', 'RJCT', 'AC04')]), ctx);
  assert.equal(some.to, 'sent');
  assert.deepEqual(
    some.transitions.map((c) => [c.index, c.to]),
    [[0, 'rejected']],
  );
});

test('acknowledgement codes move converted to sent and keep sent; lines stay pending', () => {
  for (const code of ['RCVD', 'ACTC', 'ACCP', 'ACSP', 'ACWC', 'PDNG']) {
    assert.equal(applyStatusReport(doc('converted'), [line(0)], report(code), ctx).to, 'sent', code);
    const kept = applyStatusReport(doc('sent'), [line(0)], report(code), ctx);
    assert.equal(kept.to, 'sent');
    assert.equal(kept.transitions.length, 0);
  }
});

test('PART is resolved per line: executed when none pending and one executed, else sent', () => {
  const mixed = applyStatusReport(
    doc('sent'),
    [line(0), line(1)],
    report('PART', [tx('E0', 'ACSC'), tx('E1', 'RJCT', 'AC01')]),
    ctx,
  );
  assert.equal(mixed.to, 'executed');
  const open = applyStatusReport(
    doc('sent'),
    [line(0), line(1), line(2)],
    report('PART', [tx('E0', 'ACSC'), tx('E1', 'RJCT', 'AC01')]),
    ctx,
  );
  assert.equal(open.to, 'sent');
  assert.equal(open.transitions.length, 2);
});

test('the most specific status wins: transaction over payment group over file', () => {
  const out = applyStatusReport(doc('sent'), [line(0), line(1)], report('ACSC', [tx('E1', 'RJCT', 'AC04')]), ctx);
  assert.deepEqual(
    out.transitions.map((c) => [c.index, c.to]),
    [
      [0, 'cleared'],
      [1, 'rejected'],
    ],
  );
  assert.equal(out.to, 'executed');
  const group = applyStatusReport(doc('sent'), [line(0), line(1, 'pending', 'P2')], report(null, [], 'RJCT'), ctx);
  assert.deepEqual(
    group.transitions.map((c) => c.index),
    [0],
  );
  assert.equal(group.to, 'sent');
});

test('terminal and pending-approval documents are never moved, nor their lines', () => {
  for (const status of ['rejected', 'cancelled', 'pending-approval'] as const) {
    const out = applyStatusReport(doc(status), [line(0)], report('ACSC'), ctx);
    assert.equal(out.to, status);
    assert.match(out.ignored ?? '', new RegExp(status === 'pending-approval' ? 'approval' : status));
    assert.equal(out.lineChanges.length, 0);
  }
});

test('a host-to-host document never delivered takes no report: not moved to sent, lines untouched', () => {
  for (const code of ['ACSC', 'RJCT', 'ACTC']) {
    const out = applyStatusReport(doc('converted', 'host-to-host'), [line(0)], report(code), ctx);
    assert.equal(out.to, 'converted', code);
    assert.equal(out.ignored, 'the document was never delivered to the bank');
    assert.equal(out.lineChanges.length, 0);
  }
  // Once delivered (sent), the same reports apply.
  assert.equal(applyStatusReport(doc('sent', 'host-to-host'), [line(0)], report('ACSC'), ctx).to, 'executed');
  assert.equal(applyStatusReport(doc('sent', 'host-to-host'), [line(0)], report('ACTC'), ctx).to, 'sent');
});

test('executed is not moved back; a late rejection is recorded on the cleared line', () => {
  const out = applyStatusReport(
    doc('executed'),
    [line(0, 'cleared'), line(1, 'cleared')],
    report(null, [tx('E0', 'RJCT', 'AC04')]),
    ctx,
  );
  assert.equal(out.to, 'executed');
  assert.equal(out.lateRejections, 1);
  assert.equal(out.transitions[0]!.to, 'rejected');
  assert.equal(out.transitions[0]!.evidence.lateRejection, true);
  // A rejected line stays rejected whatever comes later.
  const after = applyStatusReport(doc('sent'), [line(0, 'rejected'), line(1)], report('ACSC'), ctx);
  assert.deepEqual(
    after.transitions.map((c) => c.index),
    [1],
  );
  assert.equal(after.to, 'executed');
});

test('transactions naming no line are counted; unknown codes change nothing', () => {
  const out = applyStatusReport(doc('sent'), [line(0)], report(null, [tx('NOPE', 'ACSC'), tx('E0', 'XXXX')]), ctx);
  assert.equal(out.unmatchedTransactions, 1);
  assert.equal(out.to, 'sent');
  assert.equal(out.lineChanges.length, 0);
});

test('statement gaps: balance differences in exact minor units and sequence skips', () => {
  const b = (amount: string, direction = 'credit') => ({ amount, currency: 'EUR', direction, date: null });
  const gaps = findStatementGaps([
    { documentId: 'a', sequenceNumber: '19/1', opening: b('1'), closing: b('10.5') },
    { documentId: 'b', sequenceNumber: '20/1', opening: b('10.50'), closing: b('5') },
    { documentId: 'c', sequenceNumber: '22/1', opening: b('5', 'debit'), closing: b('5') },
    { documentId: 'd', sequenceNumber: '22/2', opening: b('5'), closing: b('5') },
    { documentId: 'e', sequenceNumber: '22/4', opening: b('5'), closing: b('5') },
    { documentId: 'f', sequenceNumber: '1/1', opening: b('5.00'), closing: b('5') },
  ]);
  assert.deepEqual(
    gaps.map((g) => [g.kind, g.afterDocumentId, g.beforeDocumentId]),
    [
      ['balance', 'b', 'c'],
      ['sequence', 'b', 'c'],
      ['sequence', 'd', 'e'],
    ],
  );
});

test('NOTPROVIDED lines are told apart by their instruction ids: each verdict reaches its own line', () => {
  // Three lines without a reference of their own (EPC132-08 AT-41), each with its InstrId (the one the
  // engine generated for it); the bank echoes EndToEndId NOTPROVIDED with OrgnlInstrId.
  const lines = [0, 1, 2].map((n) => ({ ...line(n), endToEndId: 'NOTPROVIDED', instructionId: `NP${n}` }));
  const echo = (instr: string, code: string, reason?: string): ReportTransaction => ({
    ...tx('NOTPROVIDED', code, reason),
    instructionId: instr,
  });
  const out = applyStatusReport(
    doc('sent'),
    lines,
    report(null, [echo('NP0', 'RJCT', 'AC04'), echo('NP2', 'ACSC'), tx('NOTPROVIDED', 'RJCT', 'AM04')]),
    ctx,
  );
  assert.deepEqual(
    out.transitions.map((c) => [c.index, c.to, c.evidence.reason]),
    [
      [0, 'rejected', 'AC04'],
      [2, 'cleared', null],
    ],
  );
  // A NOTPROVIDED without an instruction id names no line: counted, never applied to one by guess.
  assert.equal(out.unmatchedTransactions, 1);
  assert.equal(out.to, 'sent');
});
