import {
  constants,
  createCipheriv,
  createDecipheriv,
  createHash,
  privateDecrypt,
  publicEncrypt,
  sign,
  verify,
} from 'node:crypto';
import { deflateSync, inflateSync } from 'node:zlib';
import { certificateOf, privateKeyOf } from './key-cache.ts';

/**
 * The order-data cryptography of EBICS 3.0 (Implementation Guide ch. 11, Annex 1/2), on node:crypto and
 * node:zlib (docs/adr/0063): nothing here draws randomness; the transaction key is handed in.
 *
 * - E002: AES-128-CBC with an all-zero IV and ANSI X9.23 padding (always at least one byte; the last
 *   byte says how many), the 128-bit transaction key encrypted RSAES-PKCS1-v1_5 with the recipient's
 *   encryption certificate.
 * - A006: RSASSA-PSS (SHA-256, MGF1 with SHA-256, 32-byte salt) over the SHA-256 of the order data
 *   with CR, LF and Ctrl-Z removed, as the ES annex prescribes for every A00x hash.
 * - Compression: zlib (RFC 1950) before encryption; segments of at most 1 MiB of base64.
 * - Key hashes: SHA-256 over the certificate's DER, which H005 uses in BankPubKeyDigests,
 *   EncryptionPubKeyDigest and the initialisation letter.
 */
export const ALGORITHMS = {
  c14n: 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315',
  rsaSha256: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
  sha256: 'http://www.w3.org/2001/04/xmlenc#sha256',
} as const;

export const VERSIONS = { signature: 'A006', authentication: 'X002', encryption: 'E002' } as const;

/** The largest segment of base64 order data a message carries (1 MiB, a multiple of 4). */
export const SEGMENT_CHARS = 1024 * 1024;

/** The DER bytes of a PEM (or base64 DER) certificate. */
export function certificateDer(cert: string): Buffer {
  if (cert.includes('-----BEGIN')) return certificateOf(cert).raw;
  return Buffer.from(cert.replace(/\s+/g, ''), 'base64');
}

/** SHA-256 of a certificate's DER, as the bytes H005 carries (base64 in messages). */
export function certificateHash(cert: string): Buffer {
  return createHash('sha256').update(certificateDer(cert)).digest();
}

/** The hash as banks print it in letters: upper-case hex in pairs, 16 pairs a line. */
export function formatHash(hash: Buffer): string[] {
  const pairs = hash.toString('hex').toUpperCase().match(/../g) ?? [];
  const lines: string[] = [];
  for (let i = 0; i < pairs.length; i += 16) lines.push(pairs.slice(i, i + 16).join(' '));
  return lines;
}

/** A hash as typed by an admin (hex, any case, spaces or colons between pairs) in bytes; null if not 32 bytes of hex. */
export function parseHashInput(text: string): Buffer | null {
  const hex = text.replace(/[\s:]/g, '');
  return /^[0-9a-fA-F]{64}$/.test(hex) ? Buffer.from(hex, 'hex') : null;
}

function x923Pad(data: Buffer): Buffer {
  const n = 16 - (data.length % 16);
  const pad = Buffer.alloc(n);
  pad[n - 1] = n;
  return Buffer.concat([data, pad]);
}

function x923Unpad(data: Buffer): Buffer {
  const n = data.length === 0 ? 0 : data[data.length - 1]!;
  if (data.length % 16 !== 0 || n < 1 || n > 16 || n > data.length) throw new Error('bad E002 padding');
  return data.subarray(0, data.length - n);
}

const ZERO_IV = Buffer.alloc(16);

/** E002 symmetric part: AES-128-CBC, zero IV, X9.23 padding. */
export function aesEncrypt(transactionKey: Buffer, data: Buffer): Buffer {
  if (transactionKey.length !== 16) throw new Error('an E002 transaction key has 16 bytes');
  const cipher = createCipheriv('aes-128-cbc', transactionKey, ZERO_IV).setAutoPadding(false);
  return Buffer.concat([cipher.update(x923Pad(data)), cipher.final()]);
}

export function aesDecrypt(transactionKey: Buffer, data: Buffer): Buffer {
  const decipher = createDecipheriv('aes-128-cbc', transactionKey, ZERO_IV).setAutoPadding(false);
  return x923Unpad(Buffer.concat([decipher.update(data), decipher.final()]));
}

/** The transaction key encrypted for the holder of the encryption certificate (RSAES-PKCS1-v1_5). */
export function wrapTransactionKey(encryptionCertPem: string, transactionKey: Buffer): Buffer {
  const key = certificateOf(encryptionCertPem).publicKey;
  return publicEncrypt({ key, padding: constants.RSA_PKCS1_PADDING }, transactionKey);
}

export function unwrapTransactionKey(encryptionPrivateKeyPem: string, wrapped: Buffer): Buffer {
  const key = privateDecrypt(
    { key: privateKeyOf(encryptionPrivateKeyPem), padding: constants.RSA_PKCS1_PADDING },
    wrapped,
  );
  if (key.length !== 16) throw new Error('the transaction key is not 128 bits');
  return key;
}

/** The A006 hash input: the order data without CR, LF and Ctrl-Z. */
function a006Digest(orderData: Buffer): Buffer {
  const kept = orderData.filter((b) => b !== 0x0d && b !== 0x0a && b !== 0x1a);
  return createHash('sha256').update(kept).digest();
}

const PSS = { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 } as const;

/** The A006 electronic signature value over order data. */
export function a006Sign(signaturePrivateKeyPem: string, orderData: Buffer): Buffer {
  return sign('sha256', a006Digest(orderData), { key: privateKeyOf(signaturePrivateKeyPem), ...PSS });
}

/** a006Sign with the RSA operation on libuv's thread pool (docs/adr/0074). */
export function a006SignAsync(signaturePrivateKeyPem: string, orderData: Buffer): Promise<Buffer> {
  const key = privateKeyOf(signaturePrivateKeyPem);
  const digest = a006Digest(orderData);
  return new Promise((resolve, reject) =>
    sign('sha256', digest, { key, ...PSS }, (error, signature) => (error ? reject(error) : resolve(signature))),
  );
}

export function a006Verify(signatureCertPem: string, orderData: Buffer, signature: Buffer): boolean {
  try {
    const key = certificateOf(signatureCertPem).publicKey;
    return verify('sha256', a006Digest(orderData), { key, ...PSS }, signature);
  } catch {
    return false;
  }
}

/** SHA-256 of the order data as DataDigest carries it (A006 input rules). */
export function orderDataDigest(orderData: Buffer): Buffer {
  return a006Digest(orderData);
}

/** Order data as it travels: compressed, then encrypted under the transaction key. */
export function sealOrderData(transactionKey: Buffer, data: Buffer): Buffer {
  return aesEncrypt(transactionKey, deflateSync(data));
}

/** The reverse of sealOrderData; throws on a wrong key, bad padding or data that does not inflate. */
export function openOrderData(transactionKey: Buffer, sealed: Buffer, maxBytes = 256 * 1024 * 1024): Buffer {
  return inflateSync(aesDecrypt(transactionKey, sealed), { maxOutputLength: maxBytes });
}

/** Base64 of the sealed data in segments of at most SEGMENT_CHARS (each itself valid base64). */
export function segment(sealed: Buffer, segmentChars = SEGMENT_CHARS): string[] {
  const b64 = sealed.toString('base64');
  const out: string[] = [];
  for (let i = 0; i < b64.length; i += segmentChars) out.push(b64.slice(i, i + segmentChars));
  return out.length > 0 ? out : [''];
}

export function joinSegments(segments: string[]): Buffer {
  return Buffer.from(segments.join(''), 'base64');
}
