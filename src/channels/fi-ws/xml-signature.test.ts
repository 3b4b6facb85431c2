import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { applicationResponseXml, parseApplicationResponse } from '../../domain/fi-ws/application-messages.ts';
import { FAMILY_PROTOCOLS } from '../../domain/fi-ws/families.ts';
import { issueCertificate, newCertificateAuthority, newKeyPair } from '../../platform/x509.ts';
import { type Signer, signEnveloped, verifyEnveloped } from './xml-signature.ts';

/** Verification against a pinned certificate refuses everything but an intact, single, family-conform signature. */
let bank: Signer;
let other: Signer;
const A = FAMILY_PROTOCOLS.A.signature;
const B = FAMILY_PROTOCOLS.B.signature;
const response = applicationResponseXml({
  customerId: '1234567890',
  timestamp: '2026-11-26T10:00:00Z',
  responseCode: '00',
  responseText: 'OK',
  fileDescriptors: [],
  userFileTypes: [],
  content: 'UEFZ',
});

before(async () => {
  const now = new Date();
  const ca = await newCertificateAuthority({
    subject: 'CN=Test bank CA',
    notBefore: now,
    notAfter: new Date(now.getTime() + 86_400_000),
  });
  const make = async (cn: string): Promise<Signer> => {
    const keys = await newKeyPair();
    const certPem = await issueCertificate(ca, {
      subject: `CN=${cn}`,
      publicKeyPem: keys.publicKeyPem,
      notBefore: now,
      notAfter: new Date(now.getTime() + 86_400_000),
    });
    return { privateKeyPem: keys.privateKeyPem, certPem, algorithms: A };
  };
  bank = await make('bank signing');
  other = await make('someone else');
});

test('an intact answer verifies and only its signed content is read', () => {
  const result = verifyEnveloped(signEnveloped(response, bank), bank.certPem, A);
  assert.ok(result.ok);
  assert.equal(parseApplicationResponse(result.signedXml[0]!)?.content, 'UEFZ');
});

test('tampered content, another signer, another family’s algorithms, no or two signatures: refused', () => {
  const signed = signEnveloped(response, bank);
  assert.deepEqual(verifyEnveloped(signed.replace('UEFZ', 'UEFA'), bank.certPem, A), {
    ok: false,
    reason: 'a signed reference does not match its digest',
  });
  assert.equal(verifyEnveloped(signEnveloped(response, other), bank.certPem, A).ok, false);
  assert.match(
    (verifyEnveloped(signEnveloped(response, { ...bank, algorithms: B }), bank.certPem, A) as { reason: string })
      .reason,
    /canonicalization/,
  );
  assert.deepEqual(verifyEnveloped(response, bank.certPem, A), { ok: false, reason: 'the message is not signed' });
  const twice = signEnveloped(signed, bank);
  assert.deepEqual(verifyEnveloped(twice, bank.certPem, A), { ok: false, reason: 'more than one signature' });
  assert.equal(verifyEnveloped('<!DOCTYPE a [<!ENTITY x "y">]><a/>', bank.certPem, A).ok, false);
});

test('an element slipped into a signed document (a second Content) breaks its signature', () => {
  // The enveloped reference covers the whole document: nothing can be added beside the signed content.
  const signed = signEnveloped(response, bank);
  const wrapped = signed.replace('</ApplicationResponse>', '<Content>ATTACK</Content></ApplicationResponse>');
  assert.equal(verifyEnveloped(wrapped, bank.certPem, A).ok, false);
});
