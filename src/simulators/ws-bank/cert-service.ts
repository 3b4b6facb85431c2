import { createHmac, timingSafeEqual } from 'node:crypto';
import { verifyEnveloped, verifySoapEnvelope } from '../../channels/fi-ws/xml-signature.ts';
import { certApplicationResponseXml, parseCertApplicationRequest } from '../../domain/fi-ws/cert-messages.ts';
import { RESPONSE_CODES } from '../../domain/fi-ws/families.ts';
import type { ParsedSoap } from '../../domain/fi-ws/soap.ts';
import { requestHeaderOf } from '../../domain/fi-ws/soap.ts';
import { certificateBase64, certificatePem, issueCertificate, issuedBy, parseCsr } from '../../platform/x509.ts';
import { refusal, type SimulatorContext, signedAnswer } from './respond.ts';

const DAY_MS = 86_400_000;

function equalSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The bank's certificate service (getCertificate): a first request is authenticated by the one-time
 * transfer key (family A) or by the HMAC-SHA1 of the CSR keyed with the SMS activation code (family B);
 * a renewal is signed with the customer's still-valid certificate. The CSR must prove possession of its
 * key and name the customer as the bank demands; the certificate comes from the simulator's own CA.
 */
export async function handleCertificateRequest(
  sim: SimulatorContext,
  soap: Extract<ParsedSoap, { kind: 'message' }>,
  rawXml: string,
) {
  const header = requestHeaderOf(soap.header);
  const reply = {
    namespace: sim.protocol.certServiceNamespace,
    operation: 'getCertificate' as const,
    requestId: header.requestId,
    receiverId: header.senderId,
  };
  const refuse = (code: string, text: string) => refusal(sim, reply, code, text);
  if (soap.element !== 'getCertificatein' || !soap.application)
    return refuse(RESPONSE_CODES.unknownOperation, 'Operation is not supported');
  const applicationXml = Buffer.from(soap.application, 'base64').toString('utf8');
  const request = parseCertApplicationRequest(applicationXml);
  if (!request || request.family !== sim.family)
    return refuse(RESPONSE_CODES.schemaInvalid, 'CertApplicationRequest is not valid');
  const now = sim.now();
  const state = sim.store.state;
  const csrDer = Buffer.from(request.content, 'base64');
  let csr: Awaited<ReturnType<typeof parseCsr>>;
  try {
    csr = await parseCsr(csrDer);
  } catch {
    return refuse(RESPONSE_CODES.schemaInvalid, 'Content is not a PKCS#10 certificate request');
  }
  if (!csr.signatureValid)
    return refuse(RESPONSE_CODES.invalidSignature, 'The certificate request is not signed by its key');

  let activation: (typeof state.activations)[number] | undefined;
  if (request.command === 'RenewCertificate') {
    const sender = soap.senderCertificate ? certificatePem(soap.senderCertificate) : null;
    const known = sender
      ? state.clients.find((c) => c.customerId === request.customerId && c.certPem === sender)
      : undefined;
    if (!sender || !known || !issuedBy(sender, state.ca.certPem) || new Date(known.notAfter) <= now) {
      return refuse(
        RESPONSE_CODES.authenticationFailed,
        'Renewal must be signed with a valid certificate of the customer',
      );
    }
    if (
      !verifySoapEnvelope(rawXml, sender, sim.protocol.signature).ok ||
      !verifyEnveloped(applicationXml, sender, sim.protocol.signature).ok
    ) {
      return refuse(RESPONSE_CODES.invalidSignature, 'Signature of the renewal request is not valid');
    }
  } else {
    activation = state.activations.find((a) => a.customerId === request.customerId && a.usedAt === null);
    if (sim.family === 'A') {
      if (!activation || !request.transferKey || !equalSecret(activation.secret, request.transferKey)) {
        return refuse(
          RESPONSE_CODES.authenticationFailed,
          'Transfer key is not valid for this user id or has already been used',
        );
      }
    } else {
      const expected = activation ? createHmac('sha1', activation.secret).update(csrDer).digest('base64') : '';
      if (!activation || !request.hmac || !equalSecret(expected, request.hmac)) {
        return refuse(RESPONSE_CODES.authenticationFailed, 'Activation code is not valid for this signer id');
      }
    }
    if (new Date(activation.expiresAt) <= now) {
      return refuse(
        RESPONSE_CODES.codeExpired,
        sim.family === 'A' ? 'Transfer key has expired' : 'Activation code has expired; order a new one',
      );
    }
  }
  // OP: only C=FI and CN=<user id> (domain.md §1.1). Nordea: the agreement's holder name, the signer id and country.
  const f = csr.fields;
  if (
    sim.family === 'A' &&
    (f.commonName !== request.customerId || f.country !== 'FI' || f.serialNumber !== undefined)
  ) {
    return refuse(
      RESPONSE_CODES.invalidParameters,
      `Certificate request subject must be CN=${request.customerId}, C=FI`,
    );
  }
  if (sim.family === 'B' && activation) {
    if (
      f.commonName !== activation.holderName ||
      f.serialNumber !== request.customerId ||
      f.country !== activation.country
    ) {
      // Nordea: on a name error, fix the name and use the same code again (domain.md §1.1).
      return refuse(
        RESPONSE_CODES.invalidParameters,
        'Name, signer id or country in the certificate request does not match the agreement',
      );
    }
  }

  const notAfter = new Date(now.getTime() + sim.protocol.certificateValidityDays * DAY_MS);
  const certPem = await issueCertificate(state.ca, {
    subject: csr.subject,
    publicKeyPem: csr.publicKeyPem,
    notBefore: new Date(now.getTime() - 60_000),
    notAfter,
  });
  state.clients.push({
    customerId: request.customerId,
    serialNumber: certPem.slice(-40),
    notAfter: notAfter.toISOString(),
    certPem,
  });
  if (activation) activation.usedAt = now.toISOString();
  sim.store.save();

  const response = certApplicationResponseXml({
    family: sim.family,
    customerId: request.customerId,
    timestamp: now.toISOString(),
    responseCode: RESPONSE_CODES.ok,
    responseText: 'OK',
    certificates: [
      { name: 'SIGNING', base64Der: certificateBase64(certPem) },
      { name: 'BANK_SIGNING', base64Der: certificateBase64(state.bankSigning.certPem) },
      { name: 'ROOT', base64Der: certificateBase64(state.ca.certPem) },
    ],
  });
  return signedAnswer(sim, { ...reply, application: response });
}
