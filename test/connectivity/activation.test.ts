import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { manualClock } from '../../src/platform/clock.ts';
import { assertError, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import {
  activate,
  activationFields,
  auditEvents,
  createConnection,
  getConnection,
  type Sandbox,
  scopeOf,
  signInAgain,
} from './support.ts';

/**
 * Both activation flows against the simulated banks over HTTPS, and every way they are refused: a bad
 * field (400 naming it), the wrong family (400 wrong_activation_family), and the bank's refusals (400
 * activation_failed with the bank's own words): wrong transfer key, wrong SMS code, expired code.
 */
const clock = manualClock(new Date());
let t: TestApp;
before(async () => {
  t = await startTestApp({ sandboxBanks: true, clock });
});
after(() => t.close());

async function freshSandbox(): Promise<Sandbox> {
  return provisionAndLogin(t);
}

test('bad input answers 400 validation_failed naming the field; nothing reaches the bank', async () => {
  const sb = await freshSandbox();
  const op = await createConnection(t, sb, 'op');
  const nordea = await createConnection(t, sb, 'nordea-fi');
  const opFields = activationFields(op);
  const nordeaFields = activationFields(nordea);
  for (const [connection, fields, field] of [
    [op, { ...opFields, pin: '123456789012345' }, 'pin'],
    [op, { ...opFields, userId: '12345' }, 'userId'],
    [nordea, { ...nordeaFields, activationCode: '123456789' }, 'activationCode'],
    [nordea, { ...nordeaFields, country: 'fin' }, 'country'],
    [nordea, { ...nordeaFields, signerId: 'signer id!' }, 'signerId'],
  ] as const) {
    const error = assertError(await activate(t, sb, connection, fields), 400, 'validation_failed');
    assert.equal(error.details?.['field'], field);
  }
  // A missing field is caught by the route's schema, also naming the field.
  const { pin: _pin, ...withoutPin } = opFields;
  const missing = assertError(await activate(t, sb, op, withoutPin), 400, 'validation_failed');
  assert.deepEqual(
    ((missing.details?.['issues'] ?? []) as Array<{ field?: string }>).map((i) => i.field),
    ['pin'],
  );
  assert.equal((await getConnection(t, sb, op.id)).status, 'pending-activation');
  assert.equal((await auditEvents(t, sb.companyId, ['connection.activation_started'])).length, 0);
});

test('the wrong activation route answers 400 wrong_activation_family', async () => {
  const sb = await freshSandbox();
  const op = await createConnection(t, sb, 'op');
  const res = await t.request({
    method: 'POST',
    url: `/connections/${op.id}/activate-nordea`,
    headers: { 'x-session-token': sb.sessionToken },
    payload: { ...scopeOf(sb), holderName: 'ACME', signerId: '12345678', country: 'FI', activationCode: '1234567890' },
  });
  const error = assertError(res, 400, 'wrong_activation_family');
  assert.deepEqual(error.details, { bankKey: 'op', activationRoute: 'activate-op' });
  const demo = (
    await t.request({
      method: 'GET',
      url: `/connections?platformId=${sb.platformId}&companyId=${sb.companyId}`,
      headers: { 'x-session-token': sb.sessionToken },
    })
  ).json() as { items: Array<{ id: string; bankKey: string }> };
  const demoId = demo.items.find((c) => c.bankKey === 'demo')!.id;
  const onDemo = await t.request({
    method: 'POST',
    url: `/connections/${demoId}/activate-op`,
    headers: { 'x-session-token': sb.sessionToken },
    payload: { ...scopeOf(sb), userId: '1234567890', pin: '1234567890123456' },
  });
  assertError(onDemo, 400, 'wrong_activation_family');
  const byKey = await t.request({
    method: 'POST',
    url: `/connections/${op.id}/activate-op`,
    headers: { 'x-api-key': sb.apiKey },
    payload: { ...scopeOf(sb), ...activationFields(op) },
  });
  assertError(byKey, 403, 'admin_required');
});

test('a wrong transfer key: 400 activation_failed with the bank words; the right one still works, once', async () => {
  const sb = await freshSandbox();
  const op = await createConnection(t, sb, 'op');
  const fields = activationFields(op);
  const wrong = { ...fields, pin: fields['pin']!.replace(/^./, (d) => String((Number(d) + 1) % 10)) };
  const error = assertError(await activate(t, sb, op, wrong), 400, 'activation_failed');
  assert.equal(error.details?.['bankCode'], '30');
  assert.match(String(error.details?.['bankMessage']), /Transfer key is not valid/);
  const after = await getConnection(t, sb, op.id);
  assert.equal(after.status, 'pending-activation');
  assert.equal(after.readiness.certificate, null);
  const failed = await auditEvents(t, sb.companyId, ['connection.activation_failed']);
  assert.equal(failed.length, 1);
  assert.match(failed[0]!.message, /Transfer key is not valid/);
  assert.equal(JSON.stringify(failed).includes(wrong['pin']!), false, 'the key is never recorded');

  const ok = await activate(t, sb, op, fields);
  assert.equal(ok.statusCode, 200, ok.body);
  // A one-time key: using it again (a second enrolment) is refused by the bank.
  const again = assertError(await activate(t, sb, op, fields), 400, 'activation_failed');
  assert.match(String(again.details?.['bankMessage']), /already been used/);
  assert.equal(
    (await getConnection(t, sb, op.id)).status,
    'active',
    'a refused re-activation keeps the working certificate',
  );
});

test('a wrong SMS activation code and a wrong holder name are refused with the bank words', async () => {
  const sb = await freshSandbox();
  const nordea = await createConnection(t, sb, 'nordea-fi');
  const fields = activationFields(nordea);
  const wrongCode = {
    ...fields,
    activationCode: fields['activationCode'] === '1111111111' ? '2222222222' : '1111111111',
  };
  const error = assertError(await activate(t, sb, nordea, wrongCode), 400, 'activation_failed');
  assert.equal(error.details?.['bankCode'], '30');
  assert.match(String(error.details?.['bankMessage']), /Activation code is not valid/);

  // Nordea: fix the name and reuse the same code (domain.md §1.1).
  const wrongName = assertError(
    await activate(t, sb, nordea, { ...fields, holderName: 'SOMEONE ELSE' }),
    400,
    'activation_failed',
  );
  assert.match(String(wrongName.details?.['bankMessage']), /does not match the agreement/);
  const ok = await activate(t, sb, nordea, fields);
  assert.equal(ok.statusCode, 200, ok.body);
  assert.equal((ok.json() as { status: string }).status, 'active');
});

test('an expired activation code (valid 7 days) is refused: 400 activation_failed', async () => {
  const sb = await freshSandbox();
  const nordea = await createConnection(t, sb, 'nordea-fi');
  clock.advance(8 * 86_400_000);
  // Sessions do not last 8 days: sign in again.
  const later = await signInAgain(t, sb);
  const error = assertError(await activate(t, later, nordea, activationFields(nordea)), 400, 'activation_failed');
  assert.equal(error.details?.['bankCode'], '31');
  assert.match(String(error.details?.['bankMessage']), /expired/);
  assert.equal((await getConnection(t, later, nordea.id)).status, 'pending-activation');
});
