import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { renewExpiringCertificates } from '../../src/app/connections/renew.ts';
import { manualClock } from '../../src/platform/clock.ts';
import { provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import {
  activate,
  activationFields,
  auditEvents,
  createConnection,
  deliver,
  getConnection,
  type Sandbox,
  scopeOf,
  signInAgain,
} from './support.ts';

/**
 * Certificate renewal with an injected clock (the service's and the simulated banks'): nothing
 * happens outside the renewal window; inside it (the last 60 days of two years), the job emits
 * connection.certificate_expiring, enrols a new key signed with the old certificate, stores the new
 * certificate and emits connection.certificate_renewed; the connection keeps delivering with it.
 */
const DAY = 86_400_000;
const clock = manualClock(new Date('2026-12-01T09:00:00Z'));
let t: TestApp;
let sb: Sandbox;
before(async () => {
  t = await startTestApp({ sandboxBanks: true, clock });
  sb = await provisionAndLogin(t);
});
after(() => t.close());

test('renewal before expiry: expiring and renewed events, a new certificate, deliveries go on', async () => {
  for (const bankKey of ['op', 'nordea-fi']) {
    const created = await createConnection(t, sb, bankKey);
    assert.equal((await activate(t, sb, created, activationFields(created))).statusCode, 200);
  }
  const connections = (
    (
      await t.request({
        method: 'GET',
        url: `/connections?platformId=${sb.platformId}&companyId=${sb.companyId}`,
        headers: { 'x-session-token': sb.sessionToken },
      })
    ).json() as {
      items: Array<{
        id: string;
        bankKey: string;
        readiness: { certificate?: { expiry: string; serialNumber: string } | null };
      }>;
    }
  ).items.filter((c) => c.bankKey !== 'demo');
  const before = new Map(connections.map((c) => [c.id, c.readiness.certificate!]));
  const expiry = new Date(before.values().next().value!.expiry);
  assert.ok(Math.abs(expiry.getTime() - (clock.now().getTime() + 730 * DAY)) < 2 * DAY, 'issued for two years');

  // 100 days before expiry: outside the 60-day window, nothing to do.
  clock.set(new Date(expiry.getTime() - 100 * DAY));
  assert.deepEqual(await renewExpiringCertificates(t.ctx), { renewed: 0, failed: 0 });

  // 30 days before expiry: both are renewed, signed with their still-valid certificates.
  clock.set(new Date(expiry.getTime() - 30 * DAY));
  assert.deepEqual(await renewExpiringCertificates(t.ctx), { renewed: 2, failed: 0 });
  const later = await signInAgain(t, sb);
  for (const connection of connections) {
    const renewed = await getConnection(t, later, connection.id);
    const certificate = renewed.readiness.certificate!;
    assert.notEqual(certificate.serialNumber, before.get(connection.id)!.serialNumber);
    assert.ok(new Date(certificate.expiry).getTime() > clock.now().getTime() + 700 * DAY);
    assert.equal(renewed.readiness.ready, true);
  }
  const events = await auditEvents(t, sb.companyId, [
    'connection.certificate_expiring',
    'connection.certificate_renewed',
  ]);
  assert.deepEqual(
    events.map((e) => e.type),
    [
      'connection.certificate_expiring',
      'connection.certificate_renewed',
      'connection.certificate_expiring',
      'connection.certificate_renewed',
    ],
  );
  assert.equal(events[0]!.metadata['daysLeft'], 30);
  // Nothing left to renew.
  assert.deepEqual(await renewExpiringCertificates(t.ctx), { renewed: 0, failed: 0 });

  // The renewed certificate signs the next delivery, and the bank takes it.
  const op = connections.find((c) => c.bankKey === 'op')!;
  const sent = await t.request({
    method: 'POST',
    url: `/connections/${op.id}/test-payment`,
    headers: { 'x-session-token': later.sessionToken },
    payload: scopeOf(later),
  });
  assert.equal(sent.statusCode, 202, sent.body);
  await deliver(t, later, (sent.json() as { documentId: string }).documentId);
  const outcome = (await getConnection(t, later, op.id)).readiness.lastTestPayment!;
  assert.equal(outcome.deliveryStatus, 'delivered');
  const signedWith = (outcome.delivery as { evidence: { signedWith: { serialNumber: string } } }).evidence.signedWith;
  assert.equal(signedWith.serialNumber, (await getConnection(t, later, op.id)).readiness.certificate!.serialNumber);
});

test('an expired certificate cannot renew itself: renewal_failed is recorded with the bank words', async () => {
  const other = await provisionAndLogin(t);
  const created = await createConnection(t, other, 'op');
  assert.equal((await activate(t, other, created, activationFields(created))).statusCode, 200);
  // Past the expiry: the bank refuses a renewal signed with it.
  clock.advance(731 * DAY);
  const result = await renewExpiringCertificates(t.ctx);
  assert.ok(result.failed >= 1);
  const failed = await auditEvents(t, other.companyId, ['connection.certificate_renewal_failed']);
  assert.equal(failed.length, 1);
  assert.match(failed[0]!.message, /valid certificate/);
});
