import { newSelfSignedKey } from '../../platform/x509.ts';
import type { SubscriberKeys } from './client.ts';

/** How long the subscriber's self-signed certificates are valid: banks take up to five years. */
export const SUBSCRIBER_CERT_YEARS = 3;

/**
 * The subscriber's three key pairs with self-signed X.509 certificates, as EBICS 3.0 requires: A006
 * (electronic signature), X002 (authentication), E002 (encryption), RSA 2048 each, named for the
 * user and partner so a bank's operator can tell them apart.
 */
export async function newSubscriberKeys(input: {
  userId: string;
  partnerId: string;
  companyName: string;
  now: Date;
}): Promise<SubscriberKeys> {
  const notBefore = new Date(input.now.getTime() - 60_000);
  const notAfter = new Date(input.now);
  notAfter.setUTCFullYear(notAfter.getUTCFullYear() + SUBSCRIBER_CERT_YEARS);
  const org =
    input.companyName
      .replace(/[,=+<>#;"\\]/g, ' ')
      .trim()
      .slice(0, 64) || 'payops';
  const subject = (role: string) => `CN=${input.userId} ${role}, OU=${input.partnerId}, O=${org}`;
  const [signature, authentication, encryption] = await Promise.all([
    newSelfSignedKey({ subject: subject('A006'), notBefore, notAfter, usage: 'signature' }),
    newSelfSignedKey({ subject: subject('X002'), notBefore, notAfter, usage: 'authentication' }),
    newSelfSignedKey({ subject: subject('E002'), notBefore, notAfter, usage: 'encryption' }),
  ]);
  return { signature, authentication, encryption };
}
