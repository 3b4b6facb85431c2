import type { BankCertificates } from '../../channels/ebics/client.ts';
import { certificateHash } from '../../domain/ebics/crypto.ts';

/** The SHA-256 hashes of a pair of bank certificates, as the bank publishes them (upper-case hex). */
export function bankKeyHashes(certs: BankCertificates) {
  const hex = (pem: string) => certificateHash(pem).toString('hex').toUpperCase();
  return { authentication: hex(certs.authenticationCertPem), encryption: hex(certs.encryptionCertPem) };
}
