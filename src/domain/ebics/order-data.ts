import { certificateDer, VERSIONS } from './crypto.ts';
import { at, child, childElements, NS, parseDom, textOf } from './xml.ts';

/**
 * The order data of the key-management orders and the electronic signature (Annex 2: S002 and H005
 * order schemas): INI's SignaturePubKeyOrderData, HIA's HIARequestOrderData, HPB's
 * HPBResponseOrderData and the UserSignatureData of an upload. EBICS 3.0 carries every key as an
 * X.509 certificate (ds:X509Data/ds:X509Certificate), never as a bare modulus and exponent.
 */
const X509 = (certPem: string) =>
  `<ds:X509Data><ds:X509Certificate>${certificateDer(certPem).toString('base64')}</ds:X509Certificate></ds:X509Data>`;

export type SubscriberIds = { partnerId: string; userId: string };

export function signaturePubKeyOrderData(ids: SubscriberIds, signatureCertPem: string): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>' +
    `<SignaturePubKeyOrderData xmlns="${NS.s002}" xmlns:ds="${NS.ds}"><SignaturePubKeyInfo>${X509(signatureCertPem)}` +
    `<SignatureVersion>${VERSIONS.signature}</SignatureVersion></SignaturePubKeyInfo>` +
    `<PartnerID>${ids.partnerId}</PartnerID><UserID>${ids.userId}</UserID></SignaturePubKeyOrderData>`
  );
}

export function hiaRequestOrderData(ids: SubscriberIds, authCertPem: string, encCertPem: string): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>' +
    `<HIARequestOrderData xmlns="${NS.h005}" xmlns:ds="${NS.ds}">` +
    `<AuthenticationPubKeyInfo>${X509(authCertPem)}<AuthenticationVersion>${VERSIONS.authentication}</AuthenticationVersion></AuthenticationPubKeyInfo>` +
    `<EncryptionPubKeyInfo>${X509(encCertPem)}<EncryptionVersion>${VERSIONS.encryption}</EncryptionVersion></EncryptionPubKeyInfo>` +
    `<PartnerID>${ids.partnerId}</PartnerID><UserID>${ids.userId}</UserID></HIARequestOrderData>`
  );
}

export function hpbResponseOrderData(hostId: string, authCertPem: string, encCertPem: string): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>' +
    `<HPBResponseOrderData xmlns="${NS.h005}" xmlns:ds="${NS.ds}">` +
    `<AuthenticationPubKeyInfo>${X509(authCertPem)}<AuthenticationVersion>${VERSIONS.authentication}</AuthenticationVersion></AuthenticationPubKeyInfo>` +
    `<EncryptionPubKeyInfo>${X509(encCertPem)}<EncryptionVersion>${VERSIONS.encryption}</EncryptionVersion></EncryptionPubKeyInfo>` +
    `<HostID>${hostId}</HostID></HPBResponseOrderData>`
  );
}

export function userSignatureData(ids: SubscriberIds, signatureValue: Buffer): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>' +
    `<UserSignatureData xmlns="${NS.s002}"><OrderSignatureData><SignatureVersion>${VERSIONS.signature}</SignatureVersion>` +
    `<SignatureValue>${signatureValue.toString('base64')}</SignatureValue>` +
    `<PartnerID>${ids.partnerId}</PartnerID><UserID>${ids.userId}</UserID></OrderSignatureData></UserSignatureData>`
  );
}

function pemOf(der: string): string {
  const b64 = der.replace(/\s+/g, '');
  return `-----BEGIN CERTIFICATE-----\n${b64.match(/.{1,64}/g)?.join('\n') ?? ''}\n-----END CERTIFICATE-----\n`;
}

function certIn(info: Element | null): string | null {
  const der = textOf(at(info, ['X509Data', 'X509Certificate'], NS.ds));
  return der ? pemOf(der) : null;
}

export type ParsedKeyOrder =
  | {
      ok: true;
      partnerId: string;
      userId: string;
      certs: Record<'signature' | 'authentication' | 'encryption', string | null>;
      versions: Record<string, string | null>;
    }
  | { ok: false; reason: string };

/** Reads INI or HIA order data (the simulator's side): the subscriber ids, certificates and versions. */
export function parseKeyOrderData(xml: string): ParsedKeyOrder {
  const doc = parseDom(xml);
  const root = doc?.documentElement;
  if (!root) return { ok: false, reason: 'the order data is not well-formed XML' };
  const ns = root.namespaceURI ?? '';
  const ids = {
    partnerId: textOf(child(root, 'PartnerID', ns)) ?? '',
    userId: textOf(child(root, 'UserID', ns)) ?? '',
  };
  if (root.localName === 'SignaturePubKeyOrderData' && ns === NS.s002) {
    const info = child(root, 'SignaturePubKeyInfo', NS.s002);
    return {
      ok: true,
      ...ids,
      certs: { signature: certIn(info), authentication: null, encryption: null },
      versions: { signature: textOf(child(info, 'SignatureVersion', NS.s002)) },
    };
  }
  if (root.localName === 'HIARequestOrderData' && ns === NS.h005) {
    const auth = child(root, 'AuthenticationPubKeyInfo');
    const enc = child(root, 'EncryptionPubKeyInfo');
    return {
      ok: true,
      ...ids,
      certs: { signature: null, authentication: certIn(auth), encryption: certIn(enc) },
      versions: {
        authentication: textOf(child(auth, 'AuthenticationVersion')),
        encryption: textOf(child(enc, 'EncryptionVersion')),
      },
    };
  }
  return { ok: false, reason: `unexpected order data ${root.localName}` };
}

export type BankKeys = { hostId: string; authenticationCertPem: string; encryptionCertPem: string };

/** Reads HPB's answer: the bank's authentication (X002) and encryption (E002) certificates. */
export function parseHpbOrderData(xml: string): BankKeys | null {
  const root = parseDom(xml)?.documentElement;
  if (root?.localName !== 'HPBResponseOrderData' || root.namespaceURI !== NS.h005) return null;
  const auth = child(root, 'AuthenticationPubKeyInfo');
  const enc = child(root, 'EncryptionPubKeyInfo');
  if (textOf(child(auth, 'AuthenticationVersion')) !== VERSIONS.authentication) return null;
  if (textOf(child(enc, 'EncryptionVersion')) !== VERSIONS.encryption) return null;
  const authenticationCertPem = certIn(auth);
  const encryptionCertPem = certIn(enc);
  const hostId = textOf(child(root, 'HostID'));
  return authenticationCertPem && encryptionCertPem && hostId
    ? { hostId, authenticationCertPem, encryptionCertPem }
    : null;
}

export type ParsedUserSignature = { partnerId: string; userId: string; version: string; value: Buffer };

/** Reads UserSignatureData (the simulator's side): one OrderSignatureData per signer. */
export function parseUserSignatureData(xml: string): ParsedUserSignature[] | null {
  const root = parseDom(xml)?.documentElement;
  if (root?.localName !== 'UserSignatureData' || root.namespaceURI !== NS.s002) return null;
  return childElements(root)
    .filter((e) => e.localName === 'OrderSignatureData')
    .map((e) => ({
      partnerId: textOf(child(e, 'PartnerID', NS.s002)) ?? '',
      userId: textOf(child(e, 'UserID', NS.s002)) ?? '',
      version: textOf(child(e, 'SignatureVersion', NS.s002)) ?? '',
      value: Buffer.from(textOf(child(e, 'SignatureValue', NS.s002)) ?? '', 'base64'),
    }));
}
