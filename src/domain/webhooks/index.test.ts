import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareDecimalText } from '../money/decimal.ts';
import {
  backoffMs,
  endpointTakes,
  minAmountText,
  overlapHours,
  signatureHeader,
  standardSignatureHeader,
  standardWebhookKey,
  verifySignature,
  WEBHOOK_EVENT_TYPES,
} from './index.ts';

test('signature header: t and one v1 per secret; a receiver accepts any live secret', () => {
  const header = signatureHeader('{"a":1}', ['whsec_old', 'whsec_new'], 1_750_000_000);
  assert.match(header, /^t=1750000000,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
  assert.ok(verifySignature('{"a":1}', header, 'whsec_old'));
  assert.ok(verifySignature('{"a":1}', header, 'whsec_new'));
  assert.ok(!verifySignature('{"a":2}', header, 'whsec_new'));
  assert.ok(!verifySignature('{"a":1}', header, 'whsec_other'));
  assert.ok(!verifySignature('{"a":1}', 'v1=00', 'whsec_new'));
});

test('Standard Webhooks: the key is the base64 text after whsec_; one v1 per secret over id.timestamp.body', () => {
  assert.deepEqual(standardWebhookKey('whsec_AAEC'), Buffer.from([0, 1, 2]));
  // The published example of the Standard Webhooks specification (its reference libraries' tests).
  const header = standardSignatureHeader(
    'msg_p5jXN8AQM9LWM0D4loKWxJek',
    '{"test": 2432232314}',
    ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'whsec_AAEC'],
    1614265330,
  );
  const [first, second, ...rest] = header.split(' ');
  assert.equal(first, 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  assert.match(second!, /^v1,[A-Za-z0-9+/]{43}=$/);
  assert.deepEqual(rest, []);
});

test('backoff: 30 s doubling, capped at 1 h, +-20% jitter', () => {
  assert.equal(
    backoffMs(1, () => 0.5),
    30_000,
  );
  assert.equal(
    backoffMs(2, () => 0.5),
    60_000,
  );
  assert.equal(
    backoffMs(7, () => 0.5),
    1_920_000,
  );
  assert.equal(
    backoffMs(8, () => 0.5),
    3_600_000,
  );
  assert.equal(
    backoffMs(1, () => 0),
    24_000,
  );
  assert.equal(
    backoffMs(8, () => 0.99999999),
    4_320_000,
  );
});

test('overlap clamp and exact amounts', () => {
  assert.equal(overlapHours(undefined), 24);
  assert.equal(overlapHours(0), 1);
  assert.equal(overlapHours(100), 72);
  assert.equal(minAmountText(1000.5), '1000.5');
  assert.equal(minAmountText(1e21), undefined);
  assert.equal(minAmountText(-1), undefined);
  assert.equal(compareDecimalText('1000.00', '1000'), 0);
  assert.equal(compareDecimalText('999.99', '1000'), -1);
  assert.equal(compareDecimalText('0.30', '0.1'), 1);
  // 0.1 + 0.2 style float traps do not exist in minor units.
  assert.equal(compareDecimalText('0.3', '0.30000000000000004'), -1);
});

test('endpoint filter: event types, bankKey, minAmount over any total; auto-disabled never delivered', () => {
  const event = { type: 'payment.sent', data: { bankKey: 'demo', totals: [{ currency: 'EUR', amount: '10.00' }] } };
  assert.ok(endpointTakes({ eventTypes: null, filter: null }, event));
  assert.ok(!endpointTakes({ eventTypes: ['payment.executed'], filter: null }, event));
  assert.ok(endpointTakes({ eventTypes: null, filter: { bankKey: 'demo', minAmount: '10' } }, event));
  assert.ok(!endpointTakes({ eventTypes: null, filter: { minAmount: '10.01' } }, event));
  assert.ok(!endpointTakes({ eventTypes: null, filter: { bankKey: 'other' } }, event));
  assert.ok(!endpointTakes({ eventTypes: null, filter: null }, { type: 'webhook.auto-disabled', data: {} }));
});

test('payment.returned: subscribable, and its filter compares the returned line amount and bank', () => {
  assert.ok((WEBHOOK_EVENT_TYPES as readonly string[]).includes('payment.returned'));
  const event = { type: 'payment.returned', data: { bankKey: 'demo', amount: '40.00', currency: 'EUR' } };
  assert.ok(endpointTakes({ eventTypes: ['payment.returned'], filter: { bankKey: 'demo', minAmount: '40' } }, event));
  assert.ok(!endpointTakes({ eventTypes: null, filter: { minAmount: '40.01' } }, event));
  assert.ok(!endpointTakes({ eventTypes: null, filter: { bankKey: 'other' } }, event));
  assert.ok(!endpointTakes({ eventTypes: ['payment.rejected'], filter: null }, event));
});

test('receivables events: subscribable; minAmount compares the credit or the open amount, bankKey the statement bank', () => {
  for (const type of ['incoming_payment.received', 'expected_payment.overdue'])
    assert.ok((WEBHOOK_EVENT_TYPES as readonly string[]).includes(type), type);
  const received = { type: 'incoming_payment.received', data: { bankKey: 'demo', amount: '25.00', currency: 'EUR' } };
  assert.ok(endpointTakes({ eventTypes: null, filter: { bankKey: 'demo', minAmount: '25' } }, received));
  assert.ok(!endpointTakes({ eventTypes: null, filter: { minAmount: '25.01' } }, received));
  assert.ok(!endpointTakes({ eventTypes: null, filter: { bankKey: 'other' } }, received));
  // An expected payment concerns no bank: a bank filter leaves it out; its open amount is compared.
  const overdue = { type: 'expected_payment.overdue', data: { amount: '70.00', expectedAmount: '100.00' } };
  assert.ok(endpointTakes({ eventTypes: ['expected_payment.overdue'], filter: { minAmount: '70' } }, overdue));
  assert.ok(!endpointTakes({ eventTypes: null, filter: { minAmount: '70.01' } }, overdue));
  assert.ok(!endpointTakes({ eventTypes: null, filter: { bankKey: 'demo' } }, overdue));
});
