import { createPrivateKey, type KeyObject, X509Certificate } from 'node:crypto';

/**
 * Keys and certificates read once from their PEM and kept (docs/adr/0074): every EBICS message is
 * signed with one of a few private keys and verified against one of a few certificates, and reading
 * the PEM (base64, ASN.1, for a private key its CRT parameters) on every call cost as much CPU as a
 * good part of the signing. Bounded: the oldest entry goes when a cache is full (a sandbox with many
 * subscribers reads a key again, nothing else changes).
 */
const LIMIT = 256;

function bounded<T>(read: (pem: string) => T): (pem: string) => T {
  const kept = new Map<string, T>();
  return (pem) => {
    const hit = kept.get(pem);
    if (hit !== undefined) return hit;
    const value = read(pem);
    if (kept.size >= LIMIT) kept.delete(kept.keys().next().value!);
    kept.set(pem, value);
    return value;
  };
}

/** The private key of a PEM (PKCS#8 or PKCS#1). */
export const privateKeyOf: (pem: string) => KeyObject = bounded((pem) => createPrivateKey(pem));

/** A certificate's public key and DER bytes. */
export const certificateOf: (pem: string) => { publicKey: KeyObject; raw: Buffer } = bounded((pem) => {
  const cert = new X509Certificate(pem);
  return { publicKey: cert.publicKey, raw: Buffer.from(cert.raw) };
});
