import { DOMParser } from '@xmldom/xmldom';
import { SignedXml } from 'xml-crypto';
import { ALGORITHMS, type SignatureAlgorithms, X509_TOKEN_TYPE } from '../../domain/fi-ws/families.ts';
import { SECURITY_IDS } from '../../domain/fi-ws/soap.ts';

/**
 * XML-DSig for the web services (docs/adr/0018): xml-crypto signs and verifies, @xmldom/xmldom parses.
 *
 * - ApplicationRequest / ApplicationResponse / CertApplication*: an enveloped signature over the whole
 *   document (Reference URI=""), with the signer's certificate in KeyInfo.
 * - The SOAP envelope: a WS-Security signature over Body and Timestamp (wsu:Id references), its KeyInfo
 *   pointing at the BinarySecurityToken.
 *
 * Verification never trusts the certificate a message carries: it checks against the certificate the
 * caller pins, refuses any algorithm but the family's, demands exactly one signature whose references
 * are the expected ones, and answers the canonical XML that was actually signed, so the caller reads
 * only signed bytes (no signature-wrapping: a second, unsigned copy of an element is never read).
 */
const DSIG = 'http://www.w3.org/2000/09/xmldsig#';

export type Signer = { privateKeyPem: string; certPem: string; algorithms: SignatureAlgorithms };

/** Signs a whole document with an enveloped signature appended to its root element. */
export function signEnveloped(xml: string, signer: Signer): string {
  const sig = new SignedXml({
    privateKey: signer.privateKeyPem,
    publicCert: signer.certPem,
    signatureAlgorithm: signer.algorithms.signature,
    canonicalizationAlgorithm: signer.algorithms.canonicalization,
  });
  sig.addReference({
    xpath: '/*',
    transforms: [ALGORITHMS.enveloped, signer.algorithms.canonicalization],
    digestAlgorithm: signer.algorithms.digest,
    isEmptyUri: true,
  });
  sig.computeSignature(xml, { location: { reference: '/*', action: 'append' } });
  return sig.getSignedXml();
}

/** Adds the WS-Security signature over Body and Timestamp into the envelope's Security header. */
export function signSoapEnvelope(envelopeXml: string, signer: Signer): string {
  const sig = new SignedXml({
    privateKey: signer.privateKeyPem,
    publicCert: signer.certPem,
    signatureAlgorithm: signer.algorithms.signature,
    canonicalizationAlgorithm: ALGORITHMS.excC14n,
    idMode: 'wssecurity',
    getKeyInfoContent: () =>
      `<wsse:SecurityTokenReference><wsse:Reference URI="#${SECURITY_IDS.token}" ValueType="${X509_TOKEN_TYPE}"/></wsse:SecurityTokenReference>`,
  });
  for (const id of [SECURITY_IDS.body, SECURITY_IDS.timestamp]) {
    sig.addReference({
      xpath: `//*[@*[local-name(.)='Id']='${id}']`,
      transforms: [ALGORITHMS.excC14n],
      digestAlgorithm: signer.algorithms.digest,
    });
  }
  sig.computeSignature(envelopeXml, {
    prefix: 'ds',
    location: { reference: "//*[local-name(.)='Security']", action: 'append' },
  });
  return sig.getSignedXml();
}

export type Verified = { ok: true; signedXml: string[] } | { ok: false; reason: string };

function signatureNodes(xml: string): { nodes: Element[] } | { error: string } {
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) return { error: 'a DOCTYPE is not allowed' };
  let doc: Document;
  try {
    const errors: string[] = [];
    doc = new DOMParser({
      errorHandler: (level: string, message: unknown) => {
        if (level !== 'warning') errors.push(String(message));
      },
    }).parseFromString(xml, 'text/xml') as unknown as Document;
    if (errors.length > 0 || !doc.documentElement) return { error: 'not well-formed XML' };
  } catch {
    return { error: 'not well-formed XML' };
  }
  return { nodes: Array.from(doc.getElementsByTagNameNS(DSIG, 'Signature')) };
}

function check(
  xml: string,
  trustedCertPem: string,
  algorithms: SignatureAlgorithms,
  expectedUris: string[],
  options: { wsSecurity: boolean },
): Verified {
  const found = signatureNodes(xml);
  if ('error' in found) return { ok: false, reason: found.error };
  if (found.nodes.length !== 1) {
    return { ok: false, reason: found.nodes.length === 0 ? 'the message is not signed' : 'more than one signature' };
  }
  const verifier = new SignedXml({
    publicCert: trustedCertPem,
    ...(options.wsSecurity ? { idMode: 'wssecurity' as const } : {}),
  });
  try {
    verifier.loadSignature(found.nodes[0] as unknown as Node);
  } catch (error) {
    return { ok: false, reason: `unreadable signature: ${(error as Error).message}` };
  }
  if (verifier.signatureAlgorithm !== algorithms.signature) {
    return { ok: false, reason: `signature algorithm ${verifier.signatureAlgorithm ?? 'none'} is not accepted` };
  }
  if (!options.wsSecurity && verifier.canonicalizationAlgorithm !== algorithms.canonicalization) {
    return { ok: false, reason: `canonicalization ${verifier.canonicalizationAlgorithm ?? 'none'} is not accepted` };
  }
  const uris = verifier.getReferences().map((r) => r.uri ?? '');
  if (uris.length !== expectedUris.length || expectedUris.some((u) => !uris.includes(u))) {
    return { ok: false, reason: `the signature covers ${JSON.stringify(uris)}, not ${JSON.stringify(expectedUris)}` };
  }
  if (verifier.getReferences().some((r) => r.digestAlgorithm !== algorithms.digest)) {
    return { ok: false, reason: 'digest algorithm is not accepted' };
  }
  try {
    if (!verifier.checkSignature(xml)) return { ok: false, reason: 'a signed reference does not match its digest' };
  } catch (error) {
    const message = (error as Error).message;
    return {
      ok: false,
      reason: message.startsWith('invalid signature') ? 'the signature value does not verify' : message,
    };
  }
  return { ok: true, signedXml: verifier.getSignedReferences() };
}

/**
 * Verifies a whole-document enveloped signature against the pinned certificate; answers the signed
 * document (canonical, signature removed) to read from.
 */
export function verifyEnveloped(xml: string, trustedCertPem: string, algorithms: SignatureAlgorithms): Verified {
  return check(xml, trustedCertPem, algorithms, [''], { wsSecurity: false });
}

/** Verifies a WS-Security envelope signature over Body and Timestamp against a certificate. */
export function verifySoapEnvelope(xml: string, trustedCertPem: string, algorithms: SignatureAlgorithms): Verified {
  return check(xml, trustedCertPem, algorithms, [`#${SECURITY_IDS.body}`, `#${SECURITY_IDS.timestamp}`], {
    wsSecurity: true,
  });
}
