/**
 * EBICS 3.0 messages and order-data cryptography (src/domain/ebics): every message built here is valid
 * against the official H005 schemas; signatures, encryption and segmentation round-trip and fail on
 * tampering.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, test } from 'node:test';
import { deflateSync } from 'node:zlib';
import { signAuthenticated, verifyAuthenticated } from '../../src/domain/ebics/auth-signature.ts';
import { DOWNLOADS, sctUpload } from '../../src/domain/ebics/btf.ts';
import {
  a006Sign,
  a006Verify,
  aesDecrypt,
  aesEncrypt,
  certificateHash,
  formatHash,
  parseHashInput,
} from '../../src/domain/ebics/crypto.ts';
import { initialisationLetter } from '../../src/domain/ebics/letter.ts';
import { openFor, openSegments, openUploadSignatures, sealFor, sealUpload } from '../../src/domain/ebics/order.ts';
import {
  hiaRequestOrderData,
  hpbResponseOrderData,
  parseHpbOrderData,
  parseKeyOrderData,
  signaturePubKeyOrderData,
} from '../../src/domain/ebics/order-data.ts';
import { parseRequest } from '../../src/domain/ebics/parse-request.ts';
import {
  hevRequest,
  hpbRequest,
  initialisationRequest,
  receiptRequest,
  transferRequest,
  unsecuredRequest,
} from '../../src/domain/ebics/requests.ts';
import {
  hevResponse,
  keyManagementResponse,
  parseHevResponse,
  parseResponse,
  transactionResponse,
} from '../../src/domain/ebics/responses.ts';
import { returnCode, returnCodeInfo } from '../../src/domain/ebics/return-codes.ts';
import { parseDom } from '../../src/domain/ebics/xml.ts';
import { newSelfSignedKey } from '../../src/platform/x509.ts';
import { ebicsSchemaErrors, ebicsXsdMissing } from '../support/ebics-xsd.ts';

type Key = { privateKeyPem: string; certPem: string };
const keys: Record<string, Key> = {};
const sub = { hostId: 'PAYOPSSIM', partnerId: 'PARTNER1', userId: 'USER1' };
const fresh = () => ({ nonce: randomBytes(16).toString('hex').toUpperCase(), timestamp: new Date().toISOString() });

before(async () => {
  const notBefore = new Date('2026-01-01T00:00:00Z');
  const notAfter = new Date('2031-01-01T00:00:00Z');
  for (const [name, usage] of [
    ['sig', 'signature'],
    ['auth', 'authentication'],
    ['enc', 'encryption'],
    ['bankAuth', 'authentication'],
    ['bankEnc', 'encryption'],
  ] as const) {
    keys[name] = await newSelfSignedKey({ subject: `CN=${name}, C=DE`, notBefore, notAfter, usage });
  }
});

function assertValid(xml: string) {
  if (ebicsXsdMissing) return;
  assert.deepEqual(ebicsSchemaErrors(xml), [], xml.slice(0, 400));
}

test('E002: AES-128-CBC with X9.23 padding round-trips every length; a wrong key does not open', () => {
  const key = randomBytes(16);
  for (const n of [0, 1, 15, 16, 17, 1000]) {
    const data = randomBytes(n);
    const enc = aesEncrypt(key, data);
    assert.equal(enc.length % 16, 0);
    assert.ok(enc.length > n, 'always at least one byte of padding');
    assert.deepEqual(aesDecrypt(key, enc), data);
  }
  const enc = aesEncrypt(key, Buffer.from('pain.001'));
  let opened: string | null = null;
  try {
    opened = aesDecrypt(randomBytes(16), enc).toString();
  } catch {
    // bad padding: the usual outcome of a wrong key
  }
  assert.notEqual(opened, 'pain.001');
});

test('A006 signs with RSASSA-PSS over the order data without CR/LF; another key or changed data fails', () => {
  const data = Buffer.from('<Document>\r\n<A>1</A>\n</Document>');
  const sig = a006Sign(keys.sig!.privateKeyPem, data);
  assert.equal(sig.length, 256);
  assert.ok(a006Verify(keys.sig!.certPem, data, sig));
  assert.ok(
    a006Verify(keys.sig!.certPem, Buffer.from('<Document><A>1</A></Document>'), sig),
    'line ends are not signed',
  );
  assert.ok(!a006Verify(keys.sig!.certPem, Buffer.from('<Document><A>2</A></Document>'), sig));
  assert.ok(!a006Verify(keys.auth!.certPem, data, sig));
});

test('an upload seals, segments and opens on the bank side with the signer named in UserSignatureData', () => {
  const orderData = Buffer.from(`<Document>${'x'.repeat(5000)}${randomBytes(3000).toString('hex')}</Document>`);
  const sealed = sealUpload({
    orderData,
    signer: { ...sub, signaturePrivateKeyPem: keys.sig!.privateKeyPem },
    bankEncryptionCertPem: keys.bankEnc!.certPem,
    transactionKey: randomBytes(16),
    segmentChars: 1024,
  });
  assert.ok(sealed.segments.length > 1);
  assert.equal(sealed.init.numSegments, sealed.segments.length);
  assert.deepEqual(sealed.init.encryptionDigest, certificateHash(keys.bankEnc!.certPem));
  const opened = openUploadSignatures(
    keys.bankEnc!.privateKeyPem,
    sealed.init.transactionKeyWrapped,
    sealed.init.signatureDataB64,
  );
  assert.equal(opened.signatures?.length, 1);
  assert.equal(opened.signatures?.[0]?.userId, 'USER1');
  const file = openSegments(opened.transactionKey, sealed.segments);
  assert.deepEqual(file, orderData);
  assert.ok(a006Verify(keys.sig!.certPem, file, opened.signatures![0]!.value));
  assert.throws(() =>
    openUploadSignatures(keys.enc!.privateKeyPem, sealed.init.transactionKeyWrapped, sealed.init.signatureDataB64),
  );
});

test('the X002 authentication signature verifies, and fails on a changed authenticated element or another key', () => {
  const xml = signAuthenticated(
    initialisationRequest(
      sub,
      fresh(),
      { authentication: randomBytes(32), encryption: randomBytes(32) },
      { adminOrderType: 'BTD', btf: DOWNLOADS.statement },
    ),
    keys.auth!.privateKeyPem,
  );
  assertValid(xml);
  assert.deepEqual(verifyAuthenticated(parseDom(xml)!, keys.auth!.certPem), { ok: true });
  const wrongKey = verifyAuthenticated(parseDom(xml)!, keys.sig!.certPem);
  assert.equal(wrongKey.ok, false);
  const tampered = xml.replace('<UserID>USER1</UserID>', '<UserID>USER2</UserID>');
  assert.deepEqual(verifyAuthenticated(parseDom(tampered)!, keys.auth!.certPem), {
    ok: false,
    reason: 'the authenticated elements do not match their digest',
  });
  const unsigned = xml.replace(/<AuthSignature>.*<\/AuthSignature>/, '');
  assert.equal(verifyAuthenticated(parseDom(unsigned)!, keys.auth!.certPem).ok, false);
});

test('every request validates against the official H005 schemas and reads back', { skip: ebicsXsdMissing }, () => {
  const b64 = (s: string) => deflateSync(Buffer.from(s)).toString('base64');
  const ini = signaturePubKeyOrderData(sub, keys.sig!.certPem);
  const hia = hiaRequestOrderData(sub, keys.auth!.certPem, keys.enc!.certPem);
  assertValid(ini);
  assertValid(hia);
  const iniParsed = parseKeyOrderData(ini);
  assert.ok(
    iniParsed.ok &&
      iniParsed.certs.signature &&
      certificateHash(iniParsed.certs.signature).equals(certificateHash(keys.sig!.certPem)),
  );
  const hiaParsed = parseKeyOrderData(hia);
  assert.ok(hiaParsed.ok && hiaParsed.versions['encryption'] === 'E002');

  const digests = {
    authentication: certificateHash(keys.bankAuth!.certPem),
    encryption: certificateHash(keys.bankEnc!.certPem),
  };
  const sealed = sealUpload({
    orderData: Buffer.from('<Document/>'),
    signer: { ...sub, signaturePrivateKeyPem: keys.sig!.privateKeyPem },
    bankEncryptionCertPem: keys.bankEnc!.certPem,
    transactionKey: randomBytes(16),
  });
  const txId = randomBytes(16).toString('hex').toUpperCase();
  const messages = [
    hevRequest(sub.hostId),
    unsecuredRequest(sub, 'INI', b64(ini)),
    unsecuredRequest(sub, 'HIA', b64(hia)),
    signAuthenticated(hpbRequest(sub, fresh()), keys.auth!.privateKeyPem),
    signAuthenticated(
      initialisationRequest(
        sub,
        fresh(),
        digests,
        { adminOrderType: 'BTU', btf: sctUpload('09'), fileName: 'payops-1.xml' },
        sealed.init,
      ),
      keys.auth!.privateKeyPem,
    ),
    signAuthenticated(
      transferRequest(sub.hostId, txId, { number: 1, last: true }, sealed.segments[0]),
      keys.auth!.privateKeyPem,
    ),
    signAuthenticated(
      initialisationRequest(sub, fresh(), digests, { adminOrderType: 'HAC' }),
      keys.auth!.privateKeyPem,
    ),
    signAuthenticated(transferRequest(sub.hostId, txId, { number: 2, last: false }), keys.auth!.privateKeyPem),
    signAuthenticated(receiptRequest(sub.hostId, txId, 0), keys.auth!.privateKeyPem),
  ];
  for (const m of messages) assertValid(m);
  const kinds = messages.map((m) => parseRequest(m)?.kind);
  assert.deepEqual(kinds, [
    'hev',
    'unsecured',
    'unsecured',
    'hpb',
    'initialisation',
    'transfer',
    'initialisation',
    'transfer',
    'receipt',
  ]);
  const btu = parseRequest(messages[4]!);
  assert.ok(btu?.kind === 'initialisation');
  assert.equal(btu.orderType, 'BTU');
  assert.equal(btu.fileName, 'payops-1.xml');
  assert.deepEqual([btu.btf?.serviceName, btu.btf?.messageName, btu.btf?.messageVersion], ['SCT', 'pain.001', '09']);
  assert.ok(btu.bankDigests.encryption.equals(digests.encryption));
  assert.equal(btu.upload?.signatureDataB64, sealed.init.signatureDataB64);
});

test('every response validates against the official schemas and reads back', { skip: ebicsXsdMissing }, () => {
  const hev = hevResponse(returnCode('EBICS_OK'), [{ protocol: 'H005', version: '03.00' }]);
  assertValid(hev);
  assert.deepEqual(parseHevResponse(hev)?.versions, [{ protocol: 'H005', version: '03.00' }]);

  const hpbData = hpbResponseOrderData(sub.hostId, keys.bankAuth!.certPem, keys.bankEnc!.certPem);
  assertValid(hpbData);
  const sealed = sealFor(keys.enc!.certPem, randomBytes(16), Buffer.from(hpbData));
  const hpb = keyManagementResponse(returnCode('EBICS_OK'), '000000', {
    payload: {
      encryptionDigest: sealed.encryptionDigest,
      transactionKeyWrapped: sealed.transactionKeyWrapped,
      orderDataB64: sealed.segments[0]!,
    },
  });
  assertValid(hpb);
  const parsed = parseResponse(hpb);
  assert.equal(parsed?.kind, 'keyManagement');
  const opened = openFor(keys.enc!.privateKeyPem, parsed!.encryption!.transactionKeyWrapped, [parsed!.orderDataB64!]);
  const bank = parseHpbOrderData(opened.toString('utf8'));
  assert.ok(bank && certificateHash(bank.authenticationCertPem).equals(certificateHash(keys.bankAuth!.certPem)));

  const refused = keyManagementResponse(returnCode('EBICS_INVALID_USER_OR_USER_STATE'), '091002');
  assertValid(refused);
  assert.equal(parseResponse(refused)?.technical.code, '091002');

  const txId = randomBytes(16).toString('hex').toUpperCase();
  const download = signAuthenticated(
    transactionResponse({
      phase: 'Initialisation',
      technical: returnCode('EBICS_OK'),
      business: '000000',
      transactionId: txId,
      numSegments: 2,
      segment: { number: 1, last: false },
      download: {
        info: { encryptionDigest: sealed.encryptionDigest, transactionKeyWrapped: sealed.transactionKeyWrapped },
        orderDataB64: 'AAAA',
      },
    }),
    keys.bankAuth!.privateKeyPem,
  );
  assertValid(download);
  const d = parseResponse(download)!;
  assert.deepEqual([d.transactionId, d.numSegments, d.segment?.last, d.phase], [txId, 2, false, 'Initialisation']);
  assert.deepEqual(verifyAuthenticated(d.doc, keys.bankAuth!.certPem), { ok: true });
  const receipt = signAuthenticated(
    transactionResponse({
      phase: 'Receipt',
      technical: returnCode('EBICS_DOWNLOAD_POSTPROCESS_DONE'),
      business: '000000',
      transactionId: txId,
    }),
    keys.bankAuth!.privateKeyPem,
  );
  assertValid(receipt);
  assert.equal(parseResponse(receipt)?.technical.code, '011000');
});

test('return codes: known ones by their class, unknown ones by their range', () => {
  assert.equal(returnCodeInfo('091008').name, 'EBICS_BANK_PUBKEY_UPDATE_REQUIRED');
  assert.equal(returnCodeInfo('061099').class, 'retryable');
  assert.equal(returnCodeInfo('091002').class, 'permanent');
  assert.equal(returnCodeInfo('090005').class, 'ok');
  assert.equal(returnCodeInfo('069999').class, 'retryable');
  assert.equal(returnCodeInfo('099999').class, 'permanent');
});

test('the initialisation letter prints each certificate hash in hex pairs; typed hashes parse in any spacing', () => {
  const html = initialisationLetter({
    ...sub,
    companyName: 'Example <GmbH>',
    bankName: 'Deutsche Bank',
    createdAt: '2026-12-02T07:00:00.000Z',
    certificates: { signature: keys.sig!.certPem, authentication: keys.auth!.certPem, encryption: keys.enc!.certPem },
  });
  for (const k of ['sig', 'auth', 'enc']) {
    for (const line of formatHash(certificateHash(keys[k]!.certPem)))
      assert.ok(html.includes(line), `${k} hash in the letter`);
  }
  assert.ok(html.includes('Example &lt;GmbH&gt;'));
  assert.ok(!/<script/i.test(html));
  const hash = certificateHash(keys.sig!.certPem);
  assert.deepEqual(parseHashInput(formatHash(hash).join('\n')), hash);
  assert.deepEqual(parseHashInput(hash.toString('hex').match(/../g)!.join(':')), hash);
  assert.equal(parseHashInput('abc'), null);
});
