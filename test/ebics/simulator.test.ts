/**
 * The EBICS 3.0 client against the EBICS bank simulator on real HTTPS (no database): onboarding (HEV,
 * INI, HIA, the letter, HPB), BTU with segments and recovery, BTD with receipts, HAC, and the bank's
 * refusals (unknown subscriber, tampered or foreign signatures, replayed nonce, expired timestamp, bank
 * key change). Every request and response exchanged is valid against the official H005 schemas.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sepaTransfer } from '../../src/app/sandbox/first-payment.ts';
import { createEbicsChannel } from '../../src/channels/ebics/channel.ts';
import { type BankCertificates, createEbicsClient, type SubscriberKeys } from '../../src/channels/ebics/client.ts';
import { newSubscriberKeys } from '../../src/channels/ebics/keys.ts';
import { convertPayment } from '../../src/domain/conversion/index.ts';
import { signAuthenticated } from '../../src/domain/ebics/auth-signature.ts';
import { DOWNLOADS, sctUpload } from '../../src/domain/ebics/btf.ts';
import { certificateHash } from '../../src/domain/ebics/crypto.ts';
import { hpbRequest } from '../../src/domain/ebics/requests.ts';
import { parseResponse } from '../../src/domain/ebics/responses.ts';
import { type EbicsBankSimulator, startEbicsBankSimulator } from '../../src/simulators/ebics-bank/server.ts';
import { invalidMessages, recordingTransport, simulatorValidator } from './support.ts';

let sim: EbicsBankSimulator;
let transport: ReturnType<typeof recordingTransport>;
let keys: SubscriberKeys;
let bank: BankCertificates;
const ids = { partnerId: 'PARTNER1', userId: 'USER1' };
const sub = { hostId: 'DEUTDEFFXXX', ...ids };

function client(overrides: { bank?: BankCertificates | undefined; now?: () => Date; keys?: SubscriberKeys } = {}) {
  return createEbicsClient({
    url: sim.url,
    subscriber: sub,
    keys: overrides.keys ?? keys,
    bank: 'bank' in overrides ? overrides.bank : bank,
    transport,
    now: overrides.now ?? (() => new Date()),
  });
}

function pain001(remittance: string, messageId: string): Buffer {
  const r = convertPayment(
    sepaTransfer({
      messageId,
      date: '2026-12-03',
      payerName: 'Beispiel GmbH',
      debtorBic: 'DEUTDEFF',
      amount: '12.34',
      endToEndId: `${messageId}-1`,
      paymentId: `${messageId}-P`,
      remittance,
    }),
    'deutsche-bank-de',
  );
  assert.ok(r.ok && r.value.ok, 'the test payment converts');
  return Buffer.from(r.value.xml, 'utf8');
}

before(async () => {
  sim = await startEbicsBankSimulator({
    bankKey: 'deutsche-bank-de',
    hostId: sub.hostId,
    validate: simulatorValidator,
  });
  sim.addSubscriber(ids);
  transport = recordingTransport(sim.caPem);
  keys = await newSubscriberKeys({ ...ids, companyName: 'Beispiel GmbH', now: new Date() });
});

after(async () => {
  await transport.close();
  await sim.close();
  assert.deepEqual(invalidMessages(transport.exchanged), [], 'every exchanged message is schema-valid');
});

test('onboarding: HEV, INI and HIA, HPB refused until the letter is accepted, then the bank keys', async () => {
  const c = client({ bank: undefined });
  assert.deepEqual(await c.hev(), [{ protocol: 'H005', version: '03.00' }]);
  await c.ini();
  assert.equal(sim.subscriber(ids)?.state, 'ini-received');
  await c.hia();
  assert.equal(sim.subscriber(ids)?.state, 'initialised');
  await assert.rejects(c.ini(), (e: Error & { bank?: { code: string } }) => e.bank?.code === '091002');
  await assert.rejects(
    c.hpb(),
    (e: Error & { bank?: { code: string }; retryable?: boolean }) => e.bank?.code === '091002' && e.retryable === false,
  );
  sim.acceptLetter(ids);
  const got = await c.hpb();
  const hashes = sim.bankKeyHashes();
  assert.equal(certificateHash(got.authenticationCertPem).toString('hex').toUpperCase(), hashes.authentication);
  assert.equal(certificateHash(got.encryptionCertPem).toString('hex').toUpperCase(), hashes.encryption);
  bank = { authenticationCertPem: got.authenticationCertPem, encryptionCertPem: got.encryptionCertPem };
});

test('an unknown subscriber is refused with EBICS_INVALID_USER_OR_USER_STATE', async () => {
  const stranger = createEbicsClient({
    url: sim.url,
    subscriber: { ...sub, userId: 'NOBODY' },
    keys,
    transport,
    now: () => new Date(),
  });
  await assert.rejects(stranger.ini(), (e: Error & { bank?: { code: string } }) => e.bank?.code === '091002');
});

test('BTU uploads the pain.001; the bank answers with a pain.002, a booked camt.053 and a HAC, downloaded once each', async () => {
  const channel = createEbicsChannel(client(), { painVersion: '09' });
  const receipt = await channel.deliver({
    fileName: 'doc-1.xml',
    content: pain001('Invoice 1', 'MSG-EBICS-1').toString(),
    documentId: 'doc-1',
    messageId: 'MSG-EBICS-1',
  });
  assert.equal(receipt.channel, 'ebics');
  assert.match(receipt.reference, /^[A-Z][A-Z0-9]{3}$/);
  assert.equal(sim.uploads(ids).length, 1);
  const files = await channel.fetchInbound();
  const kinds = files.map((f) =>
    f.name.includes('STATUS') ? 'pain.002' : f.name.includes('STATEMENT') ? 'camt.053' : f.name,
  );
  assert.deepEqual(kinds.sort(), ['camt.053', 'pain.002']);
  const text = (name: string) => Buffer.from(files.find((f) => f.name.includes(name))!.content).toString('utf8');
  assert.match(text('STATUS'), /<TxSts>ACSC<\/TxSts>/);
  assert.match(text('STATEMENT'), /<EndToEndId>MSG-EBICS-1-1<\/EndToEndId>/);
  // Until each file is acknowledged (committed), the bank offers it again.
  const again = await channel.fetchInbound();
  assert.equal(again.length, 2);
  for (const f of again) await channel.acknowledge(f);
  assert.deepEqual(await channel.fetchInbound(), []);
  // The customer acknowledgement of the order, by HAC.
  const c = client();
  const hac = await c.download('HAC');
  assert.match(hac?.data.toString('utf8') ?? '', /<OrgnlMsgId>EBICS<\/OrgnlMsgId>[\s\S]*<Prtry>TS01<\/Prtry>/);
  await c.receipt(hac!.transactionId, 0);
  assert.ok(sim.files(ids).every((f) => f.deliveredAt !== null || f.kind === 'hac'));
});

test('the statement books every upload since the last one: two uploads, one camt.053 with both entries', async () => {
  const channel = createEbicsChannel(client(), { painVersion: '09' });
  for (const n of [11, 12]) {
    await channel.deliver({
      fileName: `doc-${n}.xml`,
      content: pain001(`Invoice ${n}`, `MSG-EBICS-${n}`).toString(),
      documentId: `doc-${n}`,
      messageId: `MSG-EBICS-${n}`,
    });
  }
  const files = await channel.fetchInbound();
  const statements = files.filter((f) => f.name.includes('STATEMENT'));
  assert.equal(files.filter((f) => f.name.includes('STATUS')).length, 2);
  assert.equal(statements.length, 1);
  const xml = Buffer.from(statements[0]!.content).toString('utf8');
  assert.match(xml, /<EndToEndId>MSG-EBICS-11-1<\/EndToEndId>[\s\S]*<EndToEndId>MSG-EBICS-12-1<\/EndToEndId>/);
  assert.match(xml, /<NbOfNtries>2<\/NbOfNtries>/);
  for (const f of files) await channel.acknowledge(f);
  // Booked once: the next statement download has nothing new.
  assert.deepEqual(await channel.fetchInbound(), []);
});

test('REJECT:<code> in the remittance is rejected in the pain.002 and absent from the statement', async () => {
  const channel = createEbicsChannel(client(), { painVersion: '09' });
  await channel.deliver({
    fileName: 'doc-2.xml',
    content: pain001('REJECT:AC04', 'MSG-EBICS-2').toString(),
    documentId: 'doc-2',
    messageId: 'MSG-EBICS-2',
  });
  const files = await channel.fetchInbound();
  const status = Buffer.from(files.find((f) => f.name.includes('STATUS'))!.content).toString('utf8');
  assert.match(status, /<TxSts>RJCT<\/TxSts>/);
  assert.match(status, /AC04/);
  for (const f of files) await channel.acknowledge(f);
});

test('an upload broken mid-segment resumes in the same transaction; the bank books it once', async () => {
  const before = sim.uploads(ids).length;
  sim.injectFault({ kind: 'drop-upload-segment', segment: 2 });
  const big = pain001(`Invoice ${'x'.repeat(100)}`, 'MSG-EBICS-3');
  const c = createEbicsClient({ url: sim.url, subscriber: sub, keys, bank, transport, now: () => new Date() });
  // Random padding in a comment makes the file bigger than one segment (1 MiB of base64).
  const padded = Buffer.concat([
    big,
    Buffer.from(
      `<!-- ${Buffer.from(Array.from({ length: 1_100_000 }, () => Math.floor(Math.random() * 256))).toString('base64')} -->`,
    ),
  ]);
  const up = await c.upload(padded, sctUpload('09'), 'doc-3.xml');
  assert.ok(up.segments >= 2);
  assert.equal(sim.uploads(ids).length, before + 1);
  // The same file name again is recognised: nothing booked twice.
  await c.upload(big, sctUpload('09'), 'doc-3.xml');
  assert.equal(sim.uploads(ids).length, before + 1);
  const channel = createEbicsChannel(c, { painVersion: '09' });
  for (const f of await channel.fetchInbound()) await channel.acknowledge(f);
});

test('a lost receipt leaves the data at the bank: the next download offers the same files', async () => {
  const channel = createEbicsChannel(client(), { painVersion: '09' });
  await channel.deliver({
    fileName: 'doc-4.xml',
    content: pain001('Invoice 4', 'MSG-EBICS-4').toString(),
    documentId: 'doc-4',
    messageId: 'MSG-EBICS-4',
  });
  const first = await channel.fetchInbound();
  sim.injectFault({ kind: 'drop-receipt' });
  const status = first.find((f) => f.name.includes('STATUS'))!;
  await assert.rejects(channel.acknowledge(status), (e: Error & { retryable?: boolean }) => e.retryable === true);
  for (const f of first.filter((f) => f !== status)) await channel.acknowledge(f);
  const second = await channel.fetchInbound();
  assert.equal(second.length, 1);
  assert.deepEqual(Buffer.from(second[0]!.content), Buffer.from(status.content));
  await channel.acknowledge(second[0]!);
  assert.deepEqual(await channel.fetchInbound(), []);
});

test('a tampered answer or one signed by another key is refused (fail closed)', async () => {
  sim.injectFault({ kind: 'tamper-response' });
  await assert.rejects(
    client().download(DOWNLOADS.statement),
    (e: Error & { code?: string; retryable?: boolean }) => e.code === 'signature_invalid' && e.retryable === false,
  );
  sim.injectFault({ kind: 'sign-with-other-key' });
  await assert.rejects(
    client().download(DOWNLOADS.statement),
    (e: Error & { code?: string }) => e.code === 'signature_invalid',
  );
  // A client holding a wrong bank certificate refuses the genuine bank as well.
  const wrong = { ...bank, authenticationCertPem: keys.authentication.certPem };
  await assert.rejects(
    client({ bank: wrong }).download(DOWNLOADS.statement),
    (e: Error & { code?: string }) => e.code === 'signature_invalid',
  );
});

test('our own signature tampered, a replayed nonce and an expired timestamp are refused with their EBICS codes', async () => {
  const post = async (xml: string) => parseResponse((await transport.post(sim.url, xml)).body);
  const signedHpb = signAuthenticated(
    hpbRequest(sub, { nonce: 'A'.repeat(32), timestamp: new Date().toISOString() }),
    keys.authentication.privateKeyPem,
  );
  assert.equal((await post(signedHpb))?.technical.code, '000000');
  assert.equal((await post(signedHpb))?.technical.code, '091103', 'the same nonce again');
  const old = signAuthenticated(
    hpbRequest(sub, { nonce: 'B'.repeat(32), timestamp: new Date(Date.now() - 3_600_000).toISOString() }),
    keys.authentication.privateKeyPem,
  );
  assert.equal((await post(old))?.technical.code, '091103', 'an hour-old timestamp');
  const tampered = signAuthenticated(
    hpbRequest(sub, { nonce: 'C'.repeat(32), timestamp: new Date().toISOString() }),
    keys.authentication.privateKeyPem,
  ).replace('<SecurityMedium>0000<', '<SecurityMedium>0001<');
  assert.equal((await post(tampered))?.technical.code, '061001');
  const foreign = signAuthenticated(
    hpbRequest(sub, { nonce: 'D'.repeat(32), timestamp: new Date().toISOString() }),
    keys.signature.privateKeyPem,
  );
  assert.equal((await post(foreign))?.technical.code, '061001');
});

test('after a bank key change, orders answer EBICS_BANK_PUBKEY_UPDATE_REQUIRED until HPB fetches the new keys', async () => {
  await sim.changeBankKeys();
  await assert.rejects(
    client().download(DOWNLOADS.statement),
    (e: Error & { code?: string; bank?: { code: string } }) =>
      e.code === 'bank_keys_changed' && e.bank?.code === '091008',
  );
  const got = await client({ bank: undefined }).hpb();
  assert.equal(
    certificateHash(got.authenticationCertPem).toString('hex').toUpperCase(),
    sim.bankKeyHashes().authentication,
  );
  bank = { authenticationCertPem: got.authenticationCertPem, encryptionCertPem: got.encryptionCertPem };
  assert.equal(await client().download(DOWNLOADS.statement), null);
});

test('a suspended subscriber is refused', async () => {
  sim.suspend(ids);
  await assert.rejects(
    client().download(DOWNLOADS.statement),
    (e: Error & { bank?: { code: string } }) => e.bank?.code === '091002',
  );
});
