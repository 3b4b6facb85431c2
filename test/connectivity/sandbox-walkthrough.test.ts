import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { pickUpBankFiles } from '../../src/app/delivery/pickup.ts';
import { ALGORITHMS } from '../../src/domain/fi-ws/families.ts';
import { manualClock } from '../../src/platform/clock.ts';
import { assertError, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import {
  activate,
  activationFields,
  auditEvents,
  createConnection,
  deliver,
  documentOf,
  getConnection,
  type Sandbox,
  scopeOf,
  session,
} from './support.ts';

/**
 * Issue 23's "done when", over real HTTPS against the sandbox's own bank simulators: a sandbox user
 * creates a test-environment `op` (then `nordea-fi`) connection, activates it with what the simulated
 * bank issued, sends the test payment, and sees it signed, delivered, answered and reconciled.
 */
let t: TestApp;
let sb: Sandbox;
// The download worker lists a test connection's files once a minute: each pickup here is a minute later.
const clock = manualClock(new Date());
async function pickUpNextMinute() {
  clock.advance(61_000);
  return pickUpBankFiles(t.ctx);
}
before(async () => {
  t = await startTestApp({ sandboxBanks: true, clock });
  sb = await provisionAndLogin(t);
});
after(() => t.close());

for (const [bankKey, family, route] of [
  ['op', 'A', 'activate-op'],
  ['nordea-fi', 'B', 'activate-nordea'],
] as const) {
  test(`${bankKey}: create, activate with the simulator's ${family === 'A' ? 'transfer key' : 'activation code'}, test payment signed, delivered, answered, reconciled`, async () => {
    const created = await createConnection(t, sb, bankKey);
    assert.equal(created.status, 'pending-activation');
    assert.deepEqual(created.readiness.missing, ['activation']);
    assert.equal(created.readiness.activation?.route, `POST /connections/${created.id}/${route}`);
    const issued = created.readiness.sandboxActivation;
    assert.ok(issued, 'the sandbox shows what the simulated bank issued');
    assert.equal(issued['family'], family);
    if (family === 'A') {
      assert.match(issued['userId'] ?? '', /^\d{10}$/);
      assert.match(issued['pin'] ?? '', /^\d{16}$/);
    } else {
      assert.match(issued['activationCode'] ?? '', /^\d{10}$/);
      assert.equal(issued['country'], 'FI');
    }

    // Before activation a submit to the bank is refused at once.
    const early = await t.request({
      method: 'POST',
      url: '/journal/payments',
      headers: { 'x-api-key': sb.apiKey, 'idempotency-key': `early-${bankKey}` },
      payload: {
        ...sb.firstPayment.body,
        bankKey,
        payment: { ...sb.firstPayment.body.payment, messageId: `EARLY-${bankKey}` },
      },
    });
    const refusal = assertError(early, 409, 'connection_not_ready');
    assert.deepEqual(refusal.details, { bankKey, environment: 'test', missing: ['activation'] });

    const activated = await activate(t, sb, created, activationFields(created));
    assert.equal(activated.statusCode, 200, activated.body);
    const active = activated.json() as typeof created;
    assert.equal(active.status, 'active');
    assert.equal(active.readiness.ready, true);
    assert.deepEqual(active.readiness.missing, []);
    assert.equal(active.readiness.sandboxActivation, undefined, 'a used activation is no longer shown');
    const certificate = active.readiness.certificate;
    assert.ok(certificate);
    assert.match(
      certificate.subject,
      family === 'A' ? new RegExp(`CN=${issued['userId']}`) : /serialNumber|2\.5\.4\.5/,
    );
    assert.match(active.readiness.bankCertificate?.subject ?? '', new RegExp(`${bankKey} simulator signing`));
    assert.equal(JSON.stringify(active).includes('PRIVATE KEY'), false, 'the private key is never answered');

    const sent = await t.request({
      method: 'POST',
      url: `/connections/${created.id}/test-payment`,
      headers: session(sb),
      payload: scopeOf(sb),
    });
    assert.equal(sent.statusCode, 202, sent.body);
    const { documentId, journalNo } = sent.json() as { documentId: string; journalNo: string };
    assert.match(journalNo, /^OUT-\d+$/);

    await deliver(t, sb, documentId);
    const delivered = (await getConnection(t, sb, created.id)).readiness.lastTestPayment;
    assert.equal(delivered?.outcome, 'awaiting_bank_answer');
    assert.equal(delivered?.deliveryStatus, 'delivered');
    const delivery = delivered?.delivery as { channel: string; reference: string; evidence: Record<string, unknown> };
    assert.equal(delivery.channel, 'fi-ws');
    const evidence = delivery.evidence;
    assert.equal(evidence['signatureAlgorithm'], ALGORITHMS.rsaSha256);
    assert.equal((evidence['signedWith'] as { serialNumber: string }).serialNumber, certificate.serialNumber);
    const upload = t.banks?.simulator(bankKey)?.files(family === 'A' ? issued['userId']! : issued['signerId']!);
    assert.equal(upload?.filter((f) => f.direction === 'upload').length, 1, 'the bank received the file once');
    assert.equal(upload?.find((f) => f.direction === 'upload')?.fileReference, evidence['fileReference']);

    // The download worker takes the bank's pain.002 and camt.053 through the ingest path.
    const picked = await pickUpNextMinute();
    assert.equal(picked.failed, 0);
    assert.ok(picked.files >= 2);
    const outcome = (await getConnection(t, sb, created.id)).readiness.lastTestPayment;
    assert.equal(outcome?.outcome, 'executed');
    assert.equal(outcome?.status, 'executed');
    assert.deepEqual(outcome?.lines, { cleared: 1, rejected: 0, pending: 0 });
    const lines = await documentOf(t, sb, documentId);
    assert.equal(lines.payments[0]?.recon.state, 'cleared');
    assert.ok(lines.payments[0]?.recon.evidence, 'the reconciliation carries its evidence');

    const steps = [
      'connection.created',
      'connection.activation_started',
      'connection.key_generated',
      'connection.certificate_enrolled',
      'connection.signing-cert-pinned',
      'connection.activated',
      'connection.user_info',
      'connection.test_payment_sent',
    ];
    const trail = await auditEvents(t, sb.companyId, steps);
    const mine = trail.filter((e) => e.metadata['connectionId'] === created.id).map((e) => e.type);
    assert.deepEqual(mine, steps, 'every step of the activation is an audit event, in order');
    const secret = family === 'A' ? issued['pin']! : issued['activationCode']!;
    const all = await auditEvents(t, sb.companyId, mine);
    assert.equal(JSON.stringify(all).includes(secret), false, 'no activation secret in the audit trail');
  });
}

test('a REJECT:<code> remittance is rejected by the simulated bank with that code', async () => {
  const connection = await getConnection(t, sb, (await createConnection(t, sb, 'op')).id);
  assert.equal(connection.status, 'active');
  const payment = structuredClone(sb.firstPayment.body.payment) as {
    messageId: string;
    payments: Array<{
      debtor: { agent: { bic: string } };
      transactions: Array<{ remittance: { unstructured: string } }>;
    }>;
  };
  payment.messageId = 'OP-REJECT-1';
  payment.payments[0]!.debtor.agent.bic = 'OKOYFIHH';
  payment.payments[0]!.transactions[0]!.remittance.unstructured = 'Invoice 7 REJECT:AC04';
  const res = await t.request({
    method: 'POST',
    url: '/journal/payments',
    headers: { 'x-api-key': sb.apiKey, 'idempotency-key': 'op-reject-1' },
    payload: { ...sb.firstPayment.body, bankKey: 'op', payment },
  });
  assert.equal(res.statusCode, 201, res.body);
  const doc = res.json() as { id: string };
  await deliver(t, sb, doc.id);
  await pickUpNextMinute();
  const lines = await documentOf(t, sb, doc.id);
  assert.equal(lines.status, 'rejected');
  assert.equal(lines.payments[0]?.recon.state, 'rejected');
  assert.match(JSON.stringify(lines.payments[0]?.recon.evidence), /AC04/);
});

test('a production submit without a production connection: 409 connection_not_ready after the billing gates', async () => {
  const res = await t.request({
    method: 'POST',
    url: '/journal/payments',
    headers: { 'x-api-key': sb.apiKey, 'idempotency-key': 'prod-op-1' },
    payload: {
      ...sb.firstPayment.body,
      bankKey: 'op',
      environment: 'production',
      payment: { ...sb.firstPayment.body.payment, messageId: 'PROD-OP-1' },
    },
  });
  const error = assertError(res, 409, 'connection_not_ready');
  assert.deepEqual(error.details, { bankKey: 'op', environment: 'production', missing: ['connection'] });
});
