import 'reflect-metadata';
import { createPrivateKey, randomBytes, webcrypto, X509Certificate } from 'node:crypto';
import * as x509 from '@peculiar/x509';

/**
 * Keys, certificate requests and certificates for bank web services (docs/adr/0018): @peculiar/x509
 * on node's WebCrypto. The service makes a connection's key pair and PKCS#10 request; the bank
 * simulators run a small CA that issues certificates from such requests. RSA 2048 with SHA-256,
 * what OP and Nordea ask for (domain.md §1.1).
 *
 * @peculiar/x509 resolves its providers through tsyringe, which needs `reflect-metadata` loaded
 * first (deps-trial.md §4): hence the first import.
 */
x509.cryptoProvider.set(webcrypto as unknown as Crypto);

const RSA = {
  name: 'RSASSA-PKCS1-v1_5',
  hash: 'SHA-256',
  publicExponent: new Uint8Array([1, 0, 1]),
  modulusLength: 2048,
} as const;

export type KeyPairPem = { privateKeyPem: string; publicKeyPem: string };

export type CertificateInfo = {
  subject: string;
  issuer: string;
  serialNumber: string;
  notBefore: Date;
  notAfter: Date;
  fingerprint256: string;
};

function pem(label: string, der: ArrayBuffer | Uint8Array): string {
  const b64 = Buffer.from(der instanceof Uint8Array ? der : new Uint8Array(der)).toString('base64');
  return `-----BEGIN ${label}-----\n${b64.match(/.{1,64}/g)?.join('\n') ?? ''}\n-----END ${label}-----\n`;
}

async function generate(): Promise<CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(RSA, true, ['sign', 'verify'])) as CryptoKeyPair;
}

async function exportPair(keys: CryptoKeyPair): Promise<KeyPairPem> {
  return {
    privateKeyPem: pem('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)),
    publicKeyPem: pem('PUBLIC KEY', await webcrypto.subtle.exportKey('spki', keys.publicKey)),
  };
}

async function importPrivate(privateKeyPem: string): Promise<CryptoKey> {
  const der = createPrivateKey(privateKeyPem).export({ format: 'der', type: 'pkcs8' });
  return (await webcrypto.subtle.importKey('pkcs8', der, RSA, true, ['sign'])) as unknown as CryptoKey;
}

async function importPublic(publicKeyPem: string): Promise<CryptoKey> {
  const body = publicKeyPem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');
  return (await webcrypto.subtle.importKey('spki', Buffer.from(body, 'base64'), RSA, true, [
    'verify',
  ])) as unknown as CryptoKey;
}

/** The subject fields the banks ask for: common name, country and (Nordea) the signer id as serialNumber. */
export type SubjectFields = { commonName: string; country: string; serialNumber?: string | undefined };

const OID = { commonName: '2.5.4.3', serialNumber: '2.5.4.5', country: '2.5.4.6' } as const;

function jsonName(subject: SubjectFields): x509.JsonName {
  const name: x509.JsonName = [{ [OID.commonName]: [subject.commonName] }];
  if (subject.serialNumber !== undefined) name.push({ [OID.serialNumber]: [subject.serialNumber] });
  name.push({ [OID.country]: [subject.country] });
  return name;
}

function fieldsOf(name: x509.Name): SubjectFields {
  const serialNumber = name.getField(OID.serialNumber)[0];
  return {
    commonName: name.getField(OID.commonName)[0] ?? '',
    country: name.getField(OID.country)[0] ?? '',
    ...(serialNumber === undefined ? {} : { serialNumber }),
  };
}

/** A fresh key pair and a PKCS#10 request for `subject`, signed with that key (SHA-256 with RSA). */
export async function newKeyAndCsr(
  subject: SubjectFields,
): Promise<KeyPairPem & { csrDer: Uint8Array; csrPem: string }> {
  const keys = await generate();
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: jsonName(subject),
    keys,
    signingAlgorithm: RSA,
  });
  return { ...(await exportPair(keys)), csrDer: new Uint8Array(csr.rawData), csrPem: csr.toString('pem') };
}

export type ParsedCsr = {
  subject: string;
  fields: SubjectFields;
  publicKeyPem: string;
  signatureValid: boolean;
};

/** Reads a DER PKCS#10 request; `signatureValid` says the requester holds the key (proof of possession). */
export async function parseCsr(der: Uint8Array): Promise<ParsedCsr> {
  const csr = new x509.Pkcs10CertificateRequest(Buffer.from(der));
  return {
    subject: csr.subject,
    fields: fieldsOf(csr.subjectName),
    publicKeyPem: csr.publicKey.toString('pem'),
    signatureValid: await csr.verify(),
  };
}

export type CertificateAuthority = { certPem: string; privateKeyPem: string };

/** A self-signed CA certificate (a bank simulator's root). */
export async function newCertificateAuthority(input: {
  subject: string;
  notBefore: Date;
  notAfter: Date;
}): Promise<CertificateAuthority> {
  const keys = await generate();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: input.subject,
    notBefore: input.notBefore,
    notAfter: input.notAfter,
    keys,
    signingAlgorithm: RSA,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
    ],
  });
  return { certPem: normalPem(cert), privateKeyPem: (await exportPair(keys)).privateKeyPem };
}

/**
 * A certificate issued by `ca` for a public key: a signing certificate (digital signature) or a TLS
 * server certificate (`dnsNames`/`ipAddresses` as subject alternative names).
 */
export async function issueCertificate(
  ca: CertificateAuthority,
  input: {
    subject: string;
    publicKeyPem: string;
    notBefore: Date;
    notAfter: Date;
    tlsServer?: { dnsNames: string[]; ipAddresses: string[] };
  },
): Promise<string> {
  const issuer = new x509.X509Certificate(ca.certPem);
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(
      input.tlsServer
        ? x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment
        : x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.nonRepudiation,
      true,
    ),
  ];
  if (input.tlsServer) {
    extensions.push(
      new x509.SubjectAlternativeNameExtension([
        ...input.tlsServer.dnsNames.map((value) => ({ type: 'dns' as const, value })),
        ...input.tlsServer.ipAddresses.map((value) => ({ type: 'ip' as const, value })),
      ]),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
    );
  }
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: input.subject,
    issuer: issuer.subject,
    notBefore: input.notBefore,
    notAfter: input.notAfter,
    publicKey: await importPublic(input.publicKeyPem),
    signingKey: await importPrivate(ca.privateKeyPem),
    signingAlgorithm: RSA,
    extensions,
  });
  return normalPem(cert);
}

/** One PEM form for every certificate we make or read (node's), so stored copies compare as text. */
function normalPem(cert: x509.X509Certificate): string {
  return new X509Certificate(Buffer.from(cert.rawData)).toString();
}

/** A key pair for a server of ours (a simulator's TLS or signing key). */
export async function newKeyPair(): Promise<KeyPairPem> {
  return exportPair(await generate());
}

/** Subject, issuer, validity and fingerprint of a PEM or DER certificate. */
export function certificateInfo(cert: string | Uint8Array): CertificateInfo {
  const parsed = new X509Certificate(typeof cert === 'string' ? cert : Buffer.from(cert));
  return {
    subject: parsed.subject.replaceAll('\n', ', '),
    issuer: parsed.issuer.replaceAll('\n', ', '),
    serialNumber: parsed.serialNumber,
    notBefore: new Date(parsed.validFrom),
    notAfter: new Date(parsed.validTo),
    fingerprint256: parsed.fingerprint256,
  };
}

/** True when `certPem` was signed by the CA certificate `caPem` (its signature, not its dates). */
export function issuedBy(certPem: string, caPem: string): boolean {
  const cert = new X509Certificate(certPem);
  const ca = new X509Certificate(caPem);
  return cert.checkIssued(ca) && cert.verify(ca.publicKey);
}

/** The base64 DER of a PEM certificate (what XML signatures and WS-Security tokens carry). */
export function certificateBase64(certPem: string): string {
  return new X509Certificate(certPem).raw.toString('base64');
}

/** A PEM certificate from base64 DER. */
export function certificatePem(base64Der: string): string {
  return new X509Certificate(Buffer.from(base64Der.replace(/\s+/g, ''), 'base64')).toString();
}

function serial(): string {
  // Positive 16-byte serial: the high bit cleared so DER does not read it as negative.
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] ?? 0) & 0x7f;
  return bytes.toString('hex');
}

/** The subject fields of a certificate (what a renewal request repeats). */
export function certificateSubjectFields(certPem: string): SubjectFields {
  return fieldsOf(new x509.X509Certificate(certPem).subjectName);
}

/**
 * A key pair with its self-signed certificate, as EBICS 3.0 subscribers and banks exchange them
 * (docs/adr/0063): RSA 2048, SHA-256, the key usage of its role (signature and authentication keys
 * sign, the encryption key enciphers keys).
 */
export async function newSelfSignedKey(input: {
  subject: string;
  notBefore: Date;
  notAfter: Date;
  usage: 'signature' | 'authentication' | 'encryption';
}): Promise<{ privateKeyPem: string; certPem: string }> {
  const keys = await generate();
  const flags =
    input.usage === 'encryption'
      ? x509.KeyUsageFlags.keyEncipherment | x509.KeyUsageFlags.dataEncipherment
      : input.usage === 'signature'
        ? x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.nonRepudiation
        : x509.KeyUsageFlags.digitalSignature;
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: input.subject,
    notBefore: input.notBefore,
    notAfter: input.notAfter,
    keys,
    signingAlgorithm: RSA,
    extensions: [new x509.BasicConstraintsExtension(false, undefined, true), new x509.KeyUsagesExtension(flags, true)],
  });
  return { certPem: normalPem(cert), privateKeyPem: (await exportPair(keys)).privateKeyPem };
}
