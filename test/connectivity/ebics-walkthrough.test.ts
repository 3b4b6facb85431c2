import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import {
  type ConnectionPickupJob,
  FOLLOW_UP_AFTER_MS,
  runFollowUpPickups,
  scheduleFollowUpPickups,
} from '../../src/app/delivery/follow-up-pickup.ts';
import { pickUpBankFiles } from '../../src/app/delivery/pickup.ts';
import { manualClock } from '../../src/platform/clock.ts';
import { JOBS } from '../../src/workers/jobs.ts';
import { assertError, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import {
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
 * Issue 37's "done when", over real HTTPS against the sandbox's EBICS 3.0 bank simulators: a sandbox
 * user creates a test-environment `deutsche-bank-de` (then `commerzbank-de`) connection, onboards it
 * from the readiness alone (init: INI and HIA; the letter; HPB; confirming the bank's hashes), sends
 * the test payment and sees it uploaded by BTU, answered, downloaded by BTD and reconciled.
 */
let t: TestApp;
let sb: Sandbox;
const clock = manualClock(new Date());
async function pickUpNextMinute() {
  clock.advance(61_000);
  return pickUpBankFiles(t.ctx);
}
type Ebics = {
  state: string;
  hostId: string;
  partnerId: string;
  userId: string;
  bankKeyHashes: { authentication: string; encryption: string } | null;
  certificatesExpireAt: string | null;
  reason: string | null;
};
const ebicsOf = (c: { readiness: Record<string, unknown> }) => c.readiness['ebics'] as Ebics;
const post = (path: string, payload: Record<string, unknown>) =>
  t.request({ method: 'POST', url: path, headers: session(sb), payload: { ...scopeOf(sb), ...payload } });

/** The follow-up pickup jobs queued for a bank's test connection of this company. */
async function pickupJobsOf(bankKey: string) {
  const rows = await t.ctx.db.execute<{ data: ConnectionPickupJob; start_after: Date; slot: string }>(sql`
    SELECT data, start_after, singleton_on::text AS slot FROM pgboss.job
    WHERE name = ${JOBS.connectionPickup.name} AND data->>'companyId' = ${sb.companyId} AND data->>'bankKey' = ${bankKey}`);
  return rows.rows.map((r) => ({
    data: r.data,
    startAfter: new Date(r.start_after),
    slot: r.slot,
  }));
}

before(async () => {
  t = await startTestApp({ sandboxBanks: true, clock });
  sb = await provisionAndLogin(t);
});
after(() => t.close());

for (const bankKey of ['deutsche-bank-de', 'commerzbank-de']) {
  test(`${bankKey}: onboard over EBICS 3.0 from the readiness, then the test payment is executed and cleared`, async () => {
    const created = await createConnection(t, sb, bankKey);
    assert.equal(created.status, 'pending-activation');
    assert.equal(ebicsOf(created).state, 'new');
    const issued = created.readiness.sandboxActivation as { hostId: string; partnerId: string; userId: string };
    assert.ok(issued?.hostId && issued.partnerId && issued.userId, 'the sandbox shows the subscriber the bank set up');
    assert.equal(
      (created.readiness['activation'] as { route: string }).route,
      `POST /connections/${created.id}/ebics/init`,
    );

    const init = await post(`/connections/${created.id}/ebics/init`, issued);
    assert.equal(init.statusCode, 200, init.body);
    const sent = init.json() as typeof created;
    assert.deepEqual(
      { ...ebicsOf(sent), certificatesExpireAt: null },
      {
        state: 'awaiting-bank',
        ...issued,
        bankKeyHashes: null,
        certificatesExpireAt: null,
        reason: null,
        letter: `GET /connections/${created.id}/ebics/letter`,
      },
    );
    assert.ok(Date.parse(ebicsOf(sent).certificatesExpireAt ?? '') > Date.now() + 2 * 365 * 86_400_000);
    assert.equal(JSON.stringify(sent).includes('PRIVATE KEY'), false, 'no private key is ever answered');

    const letter = await t.request({
      method: 'GET',
      url: `/connections/${created.id}/ebics/letter?platformId=${sb.platformId}&companyId=${sb.companyId}`,
      headers: session(sb),
    });
    assert.equal(letter.statusCode, 200);
    assert.match(letter.headers['content-type'] as string, /^text\/html/);
    assert.equal(letter.body.match(/<pre class="hash">/g)?.length, 3, 'one hash per certificate');
    assert.ok(letter.body.includes(issued.userId));

    // Until the bank has accepted the letter, HPB is refused with the bank's code.
    const early = await post(`/connections/${created.id}/ebics/bank-keys`, {});
    const refused = assertError(early, 400, 'ebics_refused');
    assert.equal(refused.details?.['returnCode'], '091002');

    clock.advance(4_000);
    const keys = await post(`/connections/${created.id}/ebics/bank-keys`, {});
    assert.equal(keys.statusCode, 200, keys.body);
    const { bankKeyHashes, state } = keys.json() as {
      bankKeyHashes: { authentication: string; encryption: string };
      state: string;
    };
    assert.equal(state, 'confirm-bank-keys');
    const published = t.banks?.ebicsSimulator(bankKey)?.bankKeyHashes();
    assert.deepEqual(bankKeyHashes, published);
    const shown = await getConnection(t, sb, created.id);
    assert.deepEqual(
      (shown.readiness.sandboxActivation as unknown as { bankKeyHashes: unknown }).bankKeyHashes,
      published,
      'the sandbox shows what the bank would publish',
    );

    const wrong = await post(`/connections/${created.id}/ebics/confirm-bank-keys`, {
      authenticationHash: bankKeyHashes.encryption,
      encryptionHash: bankKeyHashes.encryption,
    });
    assert.deepEqual(assertError(wrong, 400, 'bank_key_mismatch').details, { mismatched: ['authenticationHash'] });
    assert.equal(
      ebicsOf(await getConnection(t, sb, created.id)).state,
      'confirm-bank-keys',
      'a mismatch changes nothing',
    );

    const spaced = (hex: string) => hex.toLowerCase().match(/../g)!.join(' ');
    const confirmed = await post(`/connections/${created.id}/ebics/confirm-bank-keys`, {
      authenticationHash: spaced(bankKeyHashes.authentication),
      encryptionHash: bankKeyHashes.encryption,
    });
    assert.equal(confirmed.statusCode, 200, confirmed.body);
    const active = confirmed.json() as typeof created;
    assert.equal(active.status, 'active');
    assert.equal(active.readiness.ready, true);
    assert.equal(ebicsOf(active).state, 'active');
    assert.deepEqual(ebicsOf(active).bankKeyHashes, published);

    const payment = await post(`/connections/${created.id}/test-payment`, {});
    assert.equal(payment.statusCode, 202, payment.body);
    const { documentId } = payment.json() as { documentId: string };
    await deliver(t, sb, documentId);
    const delivered = (await getConnection(t, sb, created.id)).readiness.lastTestPayment;
    assert.equal(delivered?.deliveryStatus, 'delivered');
    const delivery = delivered?.delivery as { channel: string; evidence: Record<string, unknown> };
    const evidence = delivery.evidence;
    assert.equal(delivery.channel, 'ebics');
    assert.deepEqual(evidence['businessTransactionFormat'], { service: 'SCT', message: 'pain.001', version: '09' });
    assert.equal(t.banks?.ebicsSimulator(bankKey)?.uploads(issued).length, 1, 'the bank received the file once');

    // The delivery scheduled its connection's pickup a few seconds later (not the minute's sweep);
    // a second delivery inside the same few seconds adds no second job (docs/adr/0065).
    const followUps = await pickupJobsOf(bankKey);
    assert.equal(followUps.length, 1);
    assert.deepEqual(followUps[0]!.data, { ...scopeOf(sb), bankKey, environment: 'test' });
    assert.equal(followUps[0]!.startAfter.getTime(), clock.now().getTime() + FOLLOW_UP_AFTER_MS);
    for (let i = 0; i < 3; i++) {
      await scheduleFollowUpPickups(t.ctx, [{ ...scopeOf(sb), bankKey, environment: 'test', channel: 'ebics' }]);
    }
    const slots = (await pickupJobsOf(bankKey)).map((j) => j.slot);
    assert.deepEqual(slots, [...new Set(slots)], 'throttled: one pickup per connection per slot of a few seconds');
    const filesBefore = (
      await t.ctx.db.execute<{ n: string }>(
        sql`SELECT count(*)::text AS n FROM journal_documents WHERE direction = 'inbound'`,
      )
    ).rows[0]!.n;
    await runFollowUpPickups(
      t.ctx,
      followUps.map((j) => j.data),
    );
    const filesAfter = (
      await t.ctx.db.execute<{ n: string }>(
        sql`SELECT count(*)::text AS n FROM journal_documents WHERE direction = 'inbound'`,
      )
    ).rows[0]!.n;
    assert.ok(Number(filesAfter) - Number(filesBefore) >= 2, `picked ${Number(filesAfter) - Number(filesBefore)}`);
    const outcome = (await getConnection(t, sb, created.id)).readiness.lastTestPayment;
    assert.equal(outcome?.outcome, 'executed');
    assert.deepEqual(outcome?.lines, { cleared: 1, rejected: 0, pending: 0 });
    const lines = await documentOf(t, sb, documentId);
    assert.equal(lines.payments[0]?.recon.state, 'cleared');
    // Every file was confirmed by its receipt after it was committed: nothing comes again.
    assert.ok(
      t.banks
        ?.ebicsSimulator(bankKey)
        ?.files(issued)
        .every((f) => f.deliveredAt !== null || f.kind === 'hac'),
    );
    assert.deepEqual(await pickUpNextMinute(), { files: 0, failed: 0, deferred: 0 });

    const steps = [
      'connection.created',
      'connection.ebics_keys_sent',
      'connection.ebics_bank_keys_fetched',
      'connection.ebics_bank_key_mismatch',
      'connection.activated',
      'connection.test_payment_sent',
    ];
    const trail = await auditEvents(t, sb.companyId, steps);
    assert.deepEqual(
      trail.filter((e) => e.metadata['connectionId'] === created.id).map((e) => e.type),
      steps,
    );
  });
}

test('the EBICS routes on a web-services connection answer 400 wrong_activation_family', async () => {
  const op = await createConnection(t, sb, 'op');
  const res = await post(`/connections/${op.id}/ebics/init`, { hostId: 'H', partnerId: 'P', userId: 'U' });
  assertError(res, 400, 'wrong_activation_family');
});

test('a bank key change takes the connection out of service until an admin confirms the new hashes', async () => {
  const list = await t.request({
    method: 'GET',
    url: `/connections?platformId=${sb.platformId}&companyId=${sb.companyId}`,
    headers: session(sb),
  });
  const connection = (list.json() as { items: Array<{ id: string; bankKey: string; environment: string }> }).items.find(
    (c) => c.bankKey === 'deutsche-bank-de' && c.environment === 'test',
  )!;
  await t.banks?.ebicsSimulator('deutsche-bank-de')?.changeBankKeys();
  const payment = await post(`/connections/${connection.id}/test-payment`, {});
  const { documentId } = payment.json() as { documentId: string };
  await deliver(t, sb, documentId);
  const after = await getConnection(t, sb, connection.id);
  assert.equal(after.readiness.lastTestPayment?.deliveryStatus, 'failed');
  assert.equal(after.readiness.ready, false);
  const ebics = ebicsOf(after);
  assert.equal(ebics.state, 'bank-keys-changed');
  assert.match(ebics.reason ?? '', /091008/);
  const published = t.banks?.ebicsSimulator('deutsche-bank-de')?.bankKeyHashes();
  assert.deepEqual(ebics.bankKeyHashes, published, 'HPB ran at once: the new hashes wait for confirmation');
  const confirmed = await post(`/connections/${connection.id}/ebics/confirm-bank-keys`, {
    authenticationHash: published!.authentication,
    encryptionHash: published!.encryption,
  });
  assert.equal(confirmed.statusCode, 200, confirmed.body);
  assert.equal((confirmed.json() as { status: string }).status, 'active');
});

test('a download whose receipt is lost is offered again and ingested once', async () => {
  const list = await t.request({
    method: 'GET',
    url: `/connections?platformId=${sb.platformId}&companyId=${sb.companyId}`,
    headers: session(sb),
  });
  const connection = (list.json() as { items: Array<{ id: string; bankKey: string; environment: string }> }).items.find(
    (c) => c.bankKey === 'deutsche-bank-de' && c.environment === 'test',
  )!;
  const sim = t.banks!.ebicsSimulator('deutsche-bank-de')!;
  const issued = ebicsOf(await getConnection(t, sb, connection.id));
  const inbound = async () =>
    Number(
      (
        await t.ctx.db.execute<{ n: string }>(
          sql`SELECT count(*)::text AS n FROM journal_documents WHERE direction = 'inbound' AND company_id = ${sb.companyId}`,
        )
      ).rows[0]!.n,
    );
  // A new second: a new test payment (its message id is stamped to the second).
  clock.advance(1_000);
  const payment = await post(`/connections/${connection.id}/test-payment`, {});
  assert.equal(payment.statusCode, 202, payment.body);
  const { documentId } = payment.json() as { documentId: string };
  await deliver(t, sb, documentId);
  const before = await inbound();
  const job = { ...scopeOf(sb), bankKey: 'deutsche-bank-de', environment: 'test' };
  // The first receipt (the pain.002's BTD) is lost on its way: the files are journaled, not confirmed.
  sim.injectFault({ kind: 'drop-receipt' });
  await runFollowUpPickups(t.ctx, [job]);
  const afterFirst = await inbound();
  assert.equal(afterFirst - before, 2, 'the pain.002 and the camt.053 were journaled');
  // Neither is confirmed: the pain.002's receipt was lost, and that failure ended the round before
  // the camt.053's receipt.
  const open = sim.files(issued).filter((f) => f.deliveredAt === null && f.kind !== 'hac');
  assert.equal(open.length, 2, 'the bank offers the unconfirmed data again');
  // The next pickup downloads the same data again; the journal takes nothing twice, and confirms it.
  await runFollowUpPickups(t.ctx, [job]);
  const afterSecond = await inbound();
  assert.equal(afterSecond, afterFirst, 'downloaded twice, journaled once');
  assert.ok(
    sim.files(issued).every((f) => f.deliveredAt !== null || f.kind === 'hac'),
    'every file confirmed by its receipt',
  );
  assert.deepEqual(
    open.map((f) => sim.files(issued).find((g) => g.id === f.id)?.downloads),
    [2, 2],
  );
  const outcome = (await getConnection(t, sb, connection.id)).readiness.lastTestPayment;
  assert.equal(outcome?.outcome, 'executed');
  assert.deepEqual(outcome?.lines, { cleared: 1, rejected: 0, pending: 0 });
  await runFollowUpPickups(t.ctx, [job]);
  assert.equal(await inbound(), afterSecond, 'nothing more to take');
});
