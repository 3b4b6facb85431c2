import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  approvalTransition,
  CONNECTION_STATUSES,
  CONVERSION_JOB_STATUSES,
  connectionTransition,
  conversionJobTransition,
  DELIVERY_STATUSES,
  type DeliveryMode,
  type DocumentEvent,
  deliveryStarted,
  deliveryTransition,
  documentTransition,
  endedForResubmit,
  evidenceRefusal,
  LINE_STATES,
  lineSettled,
  lineTransition,
  mustMove,
  OUTBOUND_STATUSES,
  type OutboundStatus,
  outboundStatusOf,
  paymentEventOf,
  statusesMovingTo,
  submittedAs,
  userTransition,
  WEBHOOK_DELIVERY_STATUSES,
  webhookDeliveryTransition,
  webhookEndpointTransition,
} from './index.ts';

const MODES: DeliveryMode[] = ['converted-only', 'host-to-host'];

test('only the channel confirmation makes a host-to-host document sent', () => {
  for (const status of OUTBOUND_STATUSES) {
    for (const deliveryMode of MODES) {
      const confirmed = documentTransition({ status, deliveryMode }, { type: 'delivery-confirmed' });
      const allowed = status === 'converted' && deliveryMode === 'host-to-host';
      assert.equal(confirmed.ok, allowed, `${status} ${deliveryMode}`);
      if (confirmed.ok) assert.equal(confirmed.to, 'sent');
      // No evidence whatever moves a host-to-host document out of converted.
      if (deliveryMode === 'host-to-host' && status === 'converted') {
        for (const lines of [['pending'], ['cleared'], ['rejected'], []] as const) {
          const moved = documentTransition({ status, deliveryMode }, { type: 'evidence', lines });
          assert.equal(moved.ok, false, `evidence ${lines.join()} moved a never-delivered document`);
        }
      }
    }
  }
});

test('evidence moves a document by its lines; executed stays; terminal and unapproved refuse', () => {
  const evidence = (status: OutboundStatus, lines: Array<'pending' | 'cleared' | 'rejected'>, mode: DeliveryMode) =>
    documentTransition({ status, deliveryMode: mode }, { type: 'evidence', lines });
  assert.deepEqual(evidence('converted', ['pending'], 'converted-only'), { ok: true, to: 'sent', changed: true });
  assert.deepEqual(evidence('sent', ['pending', 'cleared'], 'host-to-host'), { ok: true, to: 'sent', changed: false });
  assert.deepEqual(evidence('sent', ['cleared', 'rejected'], 'host-to-host'), {
    ok: true,
    to: 'executed',
    changed: true,
  });
  assert.deepEqual(evidence('sent', ['rejected', 'rejected'], 'host-to-host'), {
    ok: true,
    to: 'rejected',
    changed: true,
  });
  assert.deepEqual(evidence('executed', ['rejected'], 'host-to-host'), { ok: true, to: 'executed', changed: false });
  // A return (docs/adr/0070): executed becomes rejected only when every line came back.
  const returned = (lines: Array<'pending' | 'cleared' | 'rejected'>) =>
    documentTransition(
      { status: 'executed', deliveryMode: 'host-to-host' },
      { type: 'evidence', lines, returned: true },
    );
  assert.deepEqual(returned(['rejected', 'rejected']), { ok: true, to: 'rejected', changed: true });
  assert.deepEqual(returned(['rejected', 'cleared']), { ok: true, to: 'executed', changed: false });
  assert.deepEqual(returned([]), { ok: true, to: 'executed', changed: false });
  for (const status of ['rejected', 'cancelled', 'pending-approval'] as const) {
    assert.equal(evidence(status, ['cleared'], 'converted-only').ok, false, status);
    assert.equal(typeof evidenceRefusal({ status, deliveryMode: 'converted-only' }), 'string');
  }
});

test('executed goes back to sent only when a person undoes a manual match (docs/adr/0079)', () => {
  const LINE_SETS: Array<Array<'pending' | 'cleared' | 'rejected'>> = [
    [],
    ['pending'],
    ['cleared'],
    ['rejected'],
    ['pending', 'cleared'],
    ['pending', 'rejected'],
    ['cleared', 'rejected'],
    ['rejected', 'rejected'],
  ];
  const undo = (status: OutboundStatus, lines: Array<'pending' | 'cleared' | 'rejected'>, mode: DeliveryMode) =>
    documentTransition({ status, deliveryMode: mode }, { type: 'manual-unmatched', lines });
  for (const mode of MODES) {
    assert.deepEqual(undo('executed', ['pending', 'cleared'], mode), { ok: true, to: 'sent', changed: true });
    assert.deepEqual(undo('executed', ['pending', 'rejected'], mode), { ok: true, to: 'sent', changed: true });
    // No line pending again (the undo released none): executed stays.
    assert.deepEqual(undo('executed', ['cleared', 'rejected'], mode), { ok: true, to: 'executed', changed: false });
    assert.deepEqual(undo('sent', ['pending'], mode), { ok: true, to: 'sent', changed: false });
    for (const status of ['rejected', 'cancelled', 'pending-approval'] as const)
      assert.equal(undo(status, ['pending'], mode).ok, false, status);
  }
  assert.deepEqual(undo('converted', ['pending'], 'converted-only'), { ok: true, to: 'converted', changed: false });
  assert.equal(undo('converted', ['pending'], 'host-to-host').ok, false, 'never delivered');
  // Every other event, with every set of lines, leaves an executed document anywhere but `sent`.
  const others: DocumentEvent[] = [
    { type: 'approved' },
    { type: 'approval-closed' },
    { type: 'cancel' },
    { type: 'delivery-confirmed' },
    ...LINE_SETS.flatMap((lines): DocumentEvent[] => [
      { type: 'evidence', lines },
      { type: 'evidence', lines, returned: true },
    ]),
  ];
  for (const mode of MODES)
    for (const event of others) {
      const move = documentTransition({ status: 'executed', deliveryMode: mode }, event);
      assert.ok(!move.ok || move.to !== 'sent', `${JSON.stringify(event)} took executed to sent`);
    }
  // And the undo never moves any other status anywhere.
  for (const status of OUTBOUND_STATUSES)
    for (const mode of MODES)
      for (const lines of LINE_SETS) {
        const move = undo(status, lines, mode);
        if (move.ok && move.changed) assert.deepEqual([status, move.to], ['executed', 'sent']);
      }
});

test('approval and cancel moves follow the lifecycle of DESIGN.md', () => {
  const doc = (status: OutboundStatus) => ({ status, deliveryMode: 'host-to-host' as const });
  assert.deepEqual(documentTransition(doc('pending-approval'), { type: 'approved' }), {
    ok: true,
    to: 'converted',
    changed: true,
  });
  assert.equal(documentTransition(doc('converted'), { type: 'approved' }).ok, false);
  assert.equal(documentTransition(doc('pending-approval'), { type: 'approval-closed' }).ok, true);
  for (const status of OUTBOUND_STATUSES) {
    const cancel = documentTransition(doc(status), { type: 'cancel' });
    assert.equal(cancel.ok, status === 'converted' || status === 'pending-approval', status);
  }
  assert.deepEqual(submittedAs('host-to-host', false), { status: 'converted', deliveryStatus: 'queued' });
  assert.deepEqual(submittedAs('host-to-host', true), {
    status: 'pending-approval',
    deliveryStatus: 'awaiting-approval',
  });
  assert.deepEqual(submittedAs('converted-only', true), {
    status: 'pending-approval',
    deliveryStatus: 'not-applicable',
  });
  assert.equal(endedForResubmit('rejected'), true);
  assert.equal(endedForResubmit('executed'), false);
  assert.equal(paymentEventOf('sent'), 'payment.sent');
  assert.equal(paymentEventOf('converted'), null);
  assert.throws(() => outboundStatusOf('ingested'));
});

test('delivery: claimed from queued, retrying or an expired lease; permanent failures end it at once', () => {
  for (const from of DELIVERY_STATUSES) {
    const claim = deliveryTransition(from, { type: 'claimed' });
    assert.equal(claim.ok, from === 'queued' || from === 'retrying' || from === 'in-progress', from);
  }
  assert.deepEqual(deliveryTransition('in-progress', { type: 'attempt-failed', permanent: true, attemptsLeft: 9 }), {
    ok: true,
    to: 'failed',
    changed: true,
  });
  assert.deepEqual(deliveryTransition('in-progress', { type: 'attempt-failed', permanent: false, attemptsLeft: 1 }), {
    ok: true,
    to: 'retrying',
    changed: true,
  });
  assert.deepEqual(deliveryTransition('in-progress', { type: 'attempt-failed', permanent: false, attemptsLeft: 0 }), {
    ok: true,
    to: 'failed',
    changed: true,
  });
  assert.equal(deliveryTransition('delivered', { type: 'confirmed' }).ok, false);
  assert.equal(deliveryTransition('awaiting-approval', { type: 'approved' }).ok, true);
  for (const from of DELIVERY_STATUSES) {
    const cancelled = deliveryTransition(from, { type: 'cancelled' });
    assert.equal(cancelled.ok, from === 'queued' || from === 'awaiting-approval', from);
    if (cancelled.ok) assert.equal(deliveryStarted(from), false);
  }
  assert.equal(deliveryStarted('in-progress'), true);
});

test('lines: rejected is final; a cleared line only takes a rejection, late', () => {
  for (const from of LINE_STATES) {
    for (const verdict of LINE_STATES) {
      const move = lineTransition(from, { type: 'report', verdict });
      if (from === 'rejected') assert.equal(move.ok, false);
      else if (from === 'pending') assert.deepEqual(move, { ok: true, to: verdict, changed: verdict !== 'pending' });
      else if (verdict === 'rejected') assert.deepEqual(move, { ok: true, to: 'rejected', changed: true, late: true });
      else assert.equal(move.ok, false);
    }
  }
  assert.deepEqual(lineTransition('cleared', { type: 'booked' }), { ok: true, to: 'cleared', changed: false });
  assert.deepEqual(lineTransition('pending', { type: 'reversed' }), { ok: true, to: 'rejected', changed: true });
  // A person undoes only their own manual match, of a cleared line (docs/adr/0076).
  assert.deepEqual(lineTransition('cleared', { type: 'unmatched', manual: true }), {
    ok: true,
    to: 'pending',
    changed: true,
  });
  assert.equal(lineTransition('cleared', { type: 'unmatched', manual: false }).ok, false);
  assert.equal(lineTransition('pending', { type: 'unmatched', manual: true }).ok, false);
  assert.equal(lineTransition('rejected', { type: 'unmatched', manual: true }).ok, false);
  assert.equal(lineSettled('cleared', 'status-report'), false);
  assert.equal(lineSettled('cleared', 'statement'), true);
  assert.equal(lineSettled('rejected', 'status-report'), true);
});

test('every other state set moves only as its table says', () => {
  assert.equal(approvalTransition('pending', 'approved').ok, true);
  assert.equal(approvalTransition('approved', 'rejected').ok, false);
  assert.equal(conversionJobTransition('running', 'dead').ok, true);
  assert.equal(conversionJobTransition('dead', 'running').ok, false);
  assert.equal(webhookEndpointTransition('auto-disabled', 'enabled').ok, true);
  assert.equal(webhookEndpointTransition('disabled', 'auto-disabled').ok, false);
  assert.equal(webhookDeliveryTransition('failed', 'pending').ok, false);
  assert.equal(userTransition('erased', 'active').ok, false);
  assert.deepEqual(connectionTransition('active', 'active'), { ok: true, to: 'active', changed: false });
  assert.equal(CONNECTION_STATUSES.length, 2);
});

test('SQL writers ask the table: the statuses a move may start from, and a refused move throws', () => {
  assert.deepEqual(statusesMovingTo(CONVERSION_JOB_STATUSES, conversionJobTransition, 'running'), [
    'pending',
    'running',
  ]);
  assert.deepEqual(statusesMovingTo(WEBHOOK_DELIVERY_STATUSES, webhookDeliveryTransition, 'failed'), [
    'pending',
    'failed',
  ]);
  assert.equal(mustMove(conversionJobTransition, 'running', 'dead'), 'dead');
  assert.equal(mustMove(webhookDeliveryTransition, 'pending', 'pending'), 'pending');
  assert.throws(() => mustMove(webhookDeliveryTransition, 'succeeded', 'pending'), {
    message: 'a webhook delivery cannot move from succeeded to pending',
  });
  assert.throws(() => mustMove(conversionJobTransition, 'pending', 'succeeded'), {
    message: 'a conversion job cannot move from pending to succeeded',
  });
});
