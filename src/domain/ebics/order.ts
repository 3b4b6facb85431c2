import {
  a006Sign,
  certificateHash,
  joinSegments,
  openOrderData,
  orderDataDigest,
  SEGMENT_CHARS,
  sealOrderData,
  segment,
  unwrapTransactionKey,
  wrapTransactionKey,
} from './crypto.ts';
import {
  type ParsedUserSignature,
  parseUserSignatureData,
  type SubscriberIds,
  userSignatureData,
} from './order-data.ts';
import type { UploadInit } from './requests.ts';

/**
 * An order's data as it travels (Implementation Guide 6.2 and 11): the A006 signature over the file in
 * UserSignatureData, both compressed and encrypted under one fresh transaction key (handed in), the
 * key encrypted for the recipient, the file's data in base64 segments. Both directions: the client
 * seals uploads and opens downloads; the bank simulator does the reverse.
 */
export type SealedUpload = { init: UploadInit; segments: string[] };

export function sealUpload(input: {
  orderData: Buffer;
  signer: SubscriberIds & { signaturePrivateKeyPem: string };
  bankEncryptionCertPem: string;
  transactionKey: Buffer;
  segmentChars?: number;
  /** The A006 signature value when the caller made it already (a006SignAsync); else it is made here. */
  signature?: Buffer;
}): SealedUpload {
  const signature = input.signature ?? a006Sign(input.signer.signaturePrivateKeyPem, input.orderData);
  const esXml = userSignatureData(input.signer, signature);
  const sealedSignature = sealOrderData(input.transactionKey, Buffer.from(esXml, 'utf8'));
  const segments = segment(sealOrderData(input.transactionKey, input.orderData), input.segmentChars ?? SEGMENT_CHARS);
  return {
    init: {
      encryptionDigest: certificateHash(input.bankEncryptionCertPem),
      transactionKeyWrapped: wrapTransactionKey(input.bankEncryptionCertPem, input.transactionKey),
      signatureDataB64: sealedSignature.toString('base64'),
      dataDigest: orderDataDigest(input.orderData),
      numSegments: segments.length,
    },
    segments,
  };
}

/** The bank's side of an upload: the transaction key, the signatures and (once every segment is in) the file. */
export function openUploadSignatures(
  encryptionPrivateKeyPem: string,
  transactionKeyWrapped: Buffer,
  signatureDataB64: string,
): { transactionKey: Buffer; signatures: ParsedUserSignature[] | null } {
  const transactionKey = unwrapTransactionKey(encryptionPrivateKeyPem, transactionKeyWrapped);
  const xml = openOrderData(transactionKey, Buffer.from(signatureDataB64, 'base64'), 1024 * 1024).toString('utf8');
  return { transactionKey, signatures: parseUserSignatureData(xml) };
}

export function openSegments(transactionKey: Buffer, segments: string[]): Buffer {
  return openOrderData(transactionKey, joinSegments(segments));
}

export type SealedDownload = { encryptionDigest: Buffer; transactionKeyWrapped: Buffer; segments: string[] };

/** Order data for a recipient (a download, or HPB's keys): compressed, encrypted, in segments. */
export function sealFor(
  recipientEncryptionCertPem: string,
  transactionKey: Buffer,
  data: Buffer,
  segmentChars = SEGMENT_CHARS,
): SealedDownload {
  return {
    encryptionDigest: certificateHash(recipientEncryptionCertPem),
    transactionKeyWrapped: wrapTransactionKey(recipientEncryptionCertPem, transactionKey),
    segments: segment(sealOrderData(transactionKey, data), segmentChars),
  };
}

export function openFor(encryptionPrivateKeyPem: string, transactionKeyWrapped: Buffer, segments: string[]): Buffer {
  return openSegments(unwrapTransactionKey(encryptionPrivateKeyPem, transactionKeyWrapped), segments);
}
