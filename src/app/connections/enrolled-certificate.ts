import type { ConnectionPatch } from '../../db/repositories/connections.ts';
import { type CertificateInfo, certificateInfo } from '../../platform/x509.ts';
import type { AppContext } from '../context.ts';

/**
 * What an enrolment (activation or renewal) writes on the connection: our certificate and its private
 * key sealed at rest, and the bank's signing certificate from the verified answer, pinned.
 */
export function enrolledCertificate(
  ctx: AppContext,
  enrolment: { clientCertPem: string; bankCertPem: string },
  privateKeyPem: string,
): { client: CertificateInfo; bank: CertificateInfo; patch: ConnectionPatch } {
  const client = certificateInfo(enrolment.clientCertPem);
  const bank = certificateInfo(enrolment.bankCertPem);
  return {
    client,
    bank,
    patch: {
      clientCertPem: enrolment.clientCertPem,
      clientKeySealed: ctx.encryptor.encrypt(privateKeyPem),
      clientCertSubject: client.subject,
      clientCertExpiry: client.notAfter,
      signingCertSealed: ctx.encryptor.encrypt(enrolment.bankCertPem),
      signingCertSubject: bank.subject,
      signingCertExpiry: bank.notAfter,
    },
  };
}
