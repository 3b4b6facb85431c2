import { randomUUID } from 'node:crypto';
import { type Signer, signEnveloped, signSoapEnvelope } from '../../channels/fi-ws/xml-signature.ts';
import type { FamilyProtocol, WsFamily } from '../../domain/fi-ws/families.ts';
import { type SoapOperation, soapResponseXml } from '../../domain/fi-ws/soap.ts';
import { certificateBase64 } from '../../platform/x509.ts';
import type { StateStore } from './state.ts';

/**
 * Faults a client's tests may ask a simulated bank for (like test/support/sftp-server.ts's): the next
 * matching answer is tampered with after signing, or signed with a certificate that is not the bank's
 * pinned one (issued by the same CA, so only pinning can tell).
 */
export type SimulatorFault = { kind: 'tamper-response' | 'sign-with-other-certificate'; operation?: SoapOperation };

export type SimulatorContext = {
  family: WsFamily;
  bankKey: string;
  protocol: FamilyProtocol;
  store: StateStore;
  now: () => Date;
  fileTypes: { paymentUpload: string; statusDownload: string; statementDownload: string };
  faults: SimulatorFault[];
  /** The certificate `sign-with-other-certificate` signs with. */
  otherSigner: Signer;
};

export function bankSigner(sim: SimulatorContext): Signer {
  const s = sim.store.state.bankSigning;
  return { privateKeyPem: s.privateKeyPem, certPem: s.certPem, algorithms: sim.protocol.signature };
}

function takeFault(sim: SimulatorContext, operation: SoapOperation): SimulatorFault | undefined {
  const i = sim.faults.findIndex((f) => f.operation === undefined || f.operation === operation);
  return i < 0 ? undefined : sim.faults.splice(i, 1)[0];
}

/** A successful answer: the application document signed by the bank, in a signed SOAP envelope. */
export function signedAnswer(
  sim: SimulatorContext,
  input: { namespace: string; operation: SoapOperation; requestId: string; receiverId: string; application: string },
): string {
  const fault = takeFault(sim, input.operation);
  const signer = fault?.kind === 'sign-with-other-certificate' ? sim.otherSigner : bankSigner(sim);
  let application = signEnveloped(input.application, signer);
  if (fault?.kind === 'tamper-response') {
    // A changed byte inside the signed content: what a man in the middle would do.
    application = application.replace(
      /<ResponseText>([^<]*)<\/ResponseText>/,
      '<ResponseText>$1 (altered)</ResponseText>',
    );
  }
  const at = sim.now();
  const envelope = soapResponseXml({
    namespace: input.namespace,
    operation: input.operation,
    header: {
      senderId: sim.bankKey,
      requestId: input.requestId,
      timestamp: at.toISOString(),
      responseCode: '00',
      responseText: 'OK',
      receiverId: input.receiverId,
    },
    applicationResponseBase64: Buffer.from(application, 'utf8').toString('base64'),
    security: {
      certificateBase64: certificateBase64(signer.certPem),
      created: at.toISOString(),
      expires: new Date(at.getTime() + 5 * 60_000).toISOString(),
    },
  });
  return signSoapEnvelope(envelope, signer);
}

/** A refusal in the ResponseHeader (no ApplicationResponse): what a bank answers a request it will not serve. */
export function refusal(
  sim: SimulatorContext,
  input: { namespace: string; operation: SoapOperation; requestId: string; receiverId: string },
  code: string,
  text: string,
): string {
  return soapResponseXml({
    namespace: input.namespace,
    operation: input.operation,
    header: {
      senderId: sim.bankKey,
      requestId: input.requestId,
      timestamp: sim.now().toISOString(),
      responseCode: code,
      responseText: text,
      receiverId: input.receiverId,
    },
  });
}

export function nextReference(sim: SimulatorContext): string {
  sim.store.state.sequence++;
  // Under 33 characters (domain.md §1.1).
  return `${sim.family}${sim.store.state.sequence.toString().padStart(8, '0')}${randomUUID().replaceAll('-', '').slice(0, 12)}`;
}
