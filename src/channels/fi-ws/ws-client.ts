import { createHmac, randomUUID, X509Certificate } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import {
  type ApplicationRequest,
  applicationRequestXml,
  type FileDescriptor,
  type FileStatusFilter,
  parseApplicationResponse,
  type UserFileType,
  type WsEnvironment,
} from '../../domain/fi-ws/application-messages.ts';
import { certApplicationRequestXml, parseCertApplicationResponse } from '../../domain/fi-ws/cert-messages.ts';
import {
  FAMILY_PROTOCOLS,
  FILE_SERVICE_NAMESPACE,
  RESPONSE_CODES,
  type SignatureAlgorithms,
  type WsFamily,
} from '../../domain/fi-ws/families.ts';
import { parseSoap, responseHeaderOf, type SoapOperation, soapRequestXml } from '../../domain/fi-ws/soap.ts';
import { certificateBase64, certificatePem, issuedBy } from '../../platform/x509.ts';
import { WsChannelError } from './errors.ts';
import type { SoapTransport } from './soap-transport.ts';
import { type Signer, signEnveloped, signSoapEnvelope, verifyEnveloped } from './xml-signature.ts';

/**
 * A client of one bank agreement over Finnish web services (domain.md §1.1): the file service
 * (upload, list, download, user info) and the certificate service (enrolment and renewal). Every
 * ApplicationRequest is signed with the connection's own certificate (enveloped XML-DSig, the
 * family's algorithms) inside a WS-Security envelope; every ApplicationResponse is verified against the
 * bank certificate pinned for the connection, and nothing of an answer that fails is used.
 */
export type WsClientConfig = {
  family: WsFamily;
  customerId: string;
  senderId?: string | undefined;
  targetId?: string | undefined;
  environment: WsEnvironment;
  fileServiceUrl: string;
  certServiceUrl: string;
  softwareId: string;
  signature: SignatureAlgorithms;
  compression: 'GZIP' | 'NONE';
  /** The connection's own certificate and private key; absent before activation. */
  own?: { certPem: string; privateKeyPem: string } | undefined;
  /** The bank's response-signing certificate pinned for the connection. */
  bankCertPem?: string | undefined;
  transport: SoapTransport;
  now?: () => Date;
};

export type UploadResult = { fileReference: string; status: string };
export type Enrolment = { clientCertPem: string; bankCertPem: string; rootCertPem: string | null };

const MAX_MESSAGE_AGE_MS = 5 * 60_000;

export function createWsClient(config: WsClientConfig) {
  const c: WsContext = {
    config,
    now: config.now ?? (() => new Date()),
    senderId: config.senderId ?? config.customerId,
  };
  return {
    /** Uploads one file (pain.001); the bank answers with its file reference. `userFilename` makes retries recognisable. */
    async uploadFile(input: { content: string; fileType: string; userFilename: string }): Promise<UploadResult> {
      const bytes = Buffer.from(input.content, 'utf8');
      const gzip = config.compression === 'GZIP';
      const response = await fileService(c, 'UploadFile', 'uploadFile', {
        fileType: input.fileType,
        userFilename: input.userFilename,
        compressionMethod: gzip ? 'GZIP' : undefined,
        content: (gzip ? gzipSync(bytes) : bytes).toString('base64'),
      });
      const descriptor = response.fileDescriptors[0];
      if (!descriptor) throw new WsChannelError('bad_response', 'uploadFile: the bank gave no file reference', false);
      return { fileReference: descriptor.fileReference, status: descriptor.status };
    },

    async listFiles(input: { status: FileStatusFilter; fileType?: string }): Promise<FileDescriptor[]> {
      const response = await fileService(c, 'DownloadFileList', 'downloadFileList', {
        status: input.status,
        fileType: input.fileType,
      });
      return response.fileDescriptors;
    },

    async downloadFile(input: { fileReference: string; fileType: string }): Promise<Uint8Array> {
      const response = await fileService(c, 'DownloadFile', 'downloadFile', {
        fileReferences: [input.fileReference],
        fileType: input.fileType,
      });
      if (response.content === undefined)
        throw new WsChannelError('bad_response', `downloadFile: ${input.fileReference} came without content`, false);
      const raw = Buffer.from(response.content, 'base64');
      try {
        return new Uint8Array(response.compressionMethod === 'GZIP' ? gunzipSync(raw) : raw);
      } catch {
        throw new WsChannelError('bad_response', `downloadFile: ${input.fileReference} is not valid GZIP`, false);
      }
    },

    async userInfo(): Promise<UserFileType[]> {
      return (await fileService(c, 'GetUserInfo', 'getUserInfo', {})).userFileTypes;
    },

    /**
     * Enrols (or renews) the certificate of `csrDer`. A first enrolment is authenticated by the transfer
     * key (family A) or the HMAC of the CSR keyed by the activation code (family B); a renewal is signed
     * with the current certificate. The answer must carry our certificate (for our key, issued by the
     * bank's CA) and the bank's signing certificate; it is verified against the pinned bank certificate,
     * or on a first enrolment against the bank certificate it carries, which must chain to that CA.
     */
    async getCertificate(input: {
      csrDer: Uint8Array;
      publicKeyPem: string;
      transferKey?: string;
      activationCode?: string;
      renewal?: boolean;
    }): Promise<Enrolment> {
      return getCertificate(c, input);
    },
  };
}

/** What every call of one client shares. */
type WsContext = { config: WsClientConfig; now: () => Date; senderId: string };

type CertificateInput = {
  csrDer: Uint8Array;
  publicKeyPem: string;
  transferKey?: string;
  activationCode?: string;
  renewal?: boolean;
};

function signer(config: WsClientConfig): Signer {
  if (!config.own)
    throw new WsChannelError('not_activated', 'the connection has no certificate yet; activate it first', false);
  return { privateKeyPem: config.own.privateKeyPem, certPem: config.own.certPem, algorithms: config.signature };
}

/** Signs the application document, wraps and signs the envelope, posts it, and reads the answer's header. */
async function call(
  c: WsContext,
  url: string,
  namespace: string,
  operation: SoapOperation,
  application: string,
  sign: Signer | null,
) {
  const at = c.now();
  const signedApplication = sign ? signEnveloped(application, sign) : application;
  const envelope = soapRequestXml({
    namespace,
    operation,
    header: {
      senderId: c.senderId,
      requestId: randomUUID().replaceAll('-', '').slice(0, 32),
      timestamp: at.toISOString(),
      language: 'EN',
      userAgent: c.config.softwareId,
      receiverId: c.config.targetId,
    },
    applicationRequestBase64: Buffer.from(signedApplication, 'utf8').toString('base64'),
    security: sign
      ? {
          certificateBase64: certificateBase64(sign.certPem),
          created: at.toISOString(),
          expires: new Date(at.getTime() + MAX_MESSAGE_AGE_MS).toISOString(),
        }
      : undefined,
  });
  const body = sign ? signSoapEnvelope(envelope, sign) : envelope;
  const res = await c.config.transport.post(url, body);
  const soap = parseSoap(res.body);
  if (!soap) {
    throw new WsChannelError(
      'bad_response',
      `${operation}: the bank answered HTTP ${res.status} without a SOAP message`,
      res.status >= 500,
    );
  }
  if (soap.kind === 'fault') {
    throw new WsChannelError(
      'bank_refused',
      `${operation} refused: ${soap.message}`,
      res.status >= 500 && soap.code.endsWith('Server'),
      {
        bank: { code: soap.code, text: soap.message },
      },
    );
  }
  const header = responseHeaderOf(soap.header);
  if (header.responseCode !== RESPONSE_CODES.ok) {
    throw new WsChannelError(
      'bank_refused',
      `${operation} refused by the bank: ${header.responseCode} ${header.responseText}`,
      header.responseCode === RESPONSE_CODES.technicalError,
      { bank: { code: header.responseCode, text: header.responseText } },
    );
  }
  if (!soap.application)
    throw new WsChannelError('bad_response', `${operation}: the answer carries no ApplicationResponse`, false);
  return Buffer.from(soap.application, 'base64').toString('utf8');
}

/** Verifies an ApplicationResponse against the pinned bank certificate; answers only signed content. */
function verified(config: WsClientConfig, operation: string, responseXml: string, bankCertPem: string): string {
  const result = verifyEnveloped(responseXml, bankCertPem, config.signature);
  if (!result.ok || result.signedXml.length !== 1) {
    throw new WsChannelError(
      'signature_invalid',
      `${operation}: the bank's answer fails signature verification against the pinned certificate (${result.ok ? 'unexpected references' : result.reason}); refused`,
      false,
    );
  }
  return result.signedXml[0]!;
}

async function fileService(
  c: WsContext,
  command: ApplicationRequest['command'],
  operation: SoapOperation,
  extra: Partial<ApplicationRequest>,
) {
  const { config } = c;
  const sign = signer(config);
  if (!config.bankCertPem) {
    throw new WsChannelError(
      'not_activated',
      'no bank certificate is pinned for the connection; refusing to talk unverified',
      false,
    );
  }
  const request = applicationRequestXml({
    customerId: config.customerId,
    command,
    timestamp: c.now().toISOString(),
    environment: config.environment,
    targetId: config.targetId,
    softwareId: config.softwareId,
    ...extra,
  });
  const answer = await call(c, config.fileServiceUrl, FILE_SERVICE_NAMESPACE, operation, request, sign);
  const response = parseApplicationResponse(verified(config, operation, answer, config.bankCertPem));
  if (!response)
    throw new WsChannelError('bad_response', `${operation}: the ApplicationResponse is not readable`, false);
  if (response.customerId !== config.customerId) {
    throw new WsChannelError('bad_response', `${operation}: the answer is for another customer id; refused`, false);
  }
  if (response.responseCode !== RESPONSE_CODES.ok) {
    throw new WsChannelError(
      'bank_refused',
      `${operation} refused by the bank: ${response.responseCode} ${response.responseText}`,
      response.responseCode === RESPONSE_CODES.technicalError,
      { bank: { code: response.responseCode, text: response.responseText } },
    );
  }
  return response;
}

/** The certificate service's answer to a (renewal) request for `input.csrDer`, checked. */
async function getCertificate(c: WsContext, input: CertificateInput): Promise<Enrolment> {
  const { config } = c;
  const request = certApplicationRequestXml({
    family: config.family,
    customerId: config.customerId,
    timestamp: c.now().toISOString(),
    environment: config.environment,
    softwareId: config.softwareId,
    command: input.renewal ? 'RenewCertificate' : 'GetCertificate',
    content: Buffer.from(input.csrDer).toString('base64'),
    transferKey: input.transferKey,
    hmac:
      input.activationCode === undefined
        ? undefined
        : createHmac('sha1', input.activationCode).update(input.csrDer).digest('base64'),
  });
  const answer = await call(
    c,
    config.certServiceUrl,
    FAMILY_PROTOCOLS[config.family].certServiceNamespace,
    'getCertificate',
    request,
    input.renewal ? signer(config) : null,
  );
  const carried = parseCertApplicationResponse(answer, config.family);
  const bankCert = carried?.certificates.find((x) => x.name === 'BANK_SIGNING');
  const root = carried?.certificates.find((x) => x.name === 'ROOT');
  if (!carried || !bankCert)
    throw new WsChannelError('bad_response', 'getCertificate: no bank certificate in the answer', false);
  const bankCertPem = config.bankCertPem ?? certificatePem(bankCert.base64Der);
  const response = parseCertApplicationResponse(verified(config, 'getCertificate', answer, bankCertPem), config.family);
  if (!response) throw new WsChannelError('bad_response', 'getCertificate: the signed answer is not readable', false);
  if (response.responseCode !== RESPONSE_CODES.ok) {
    throw new WsChannelError(
      'bank_refused',
      `getCertificate refused: ${response.responseCode} ${response.responseText}`,
      false,
      {
        bank: { code: response.responseCode, text: response.responseText },
      },
    );
  }
  return enrolmentOf(response, input.publicKeyPem, root);
}

/** Our certificate (for our key) and the bank's, chained to the bank CA when it sent one. */
function enrolmentOf(
  response: NonNullable<ReturnType<typeof parseCertApplicationResponse>>,
  publicKeyPem: string,
  root: { base64Der: string } | undefined,
): Enrolment {
  const mine = response.certificates.find((x) => x.name === 'SIGNING');
  const signedBank = response.certificates.find((x) => x.name === 'BANK_SIGNING');
  const signedRoot = response.certificates.find((x) => x.name === 'ROOT');
  if (!mine || !signedBank)
    throw new WsChannelError('bad_response', 'getCertificate: the answer lacks a certificate', false);
  const clientCertPem = certificatePem(mine.base64Der);
  const newBankPem = certificatePem(signedBank.base64Der);
  if (!samePublicKey(clientCertPem, publicKeyPem)) {
    throw new WsChannelError(
      'bad_response',
      'getCertificate: the issued certificate is not for our key; refused',
      false,
    );
  }
  const rootPem = signedRoot ? certificatePem(signedRoot.base64Der) : root ? certificatePem(root.base64Der) : null;
  if (rootPem && (!issuedBy(clientCertPem, rootPem) || !issuedBy(newBankPem, rootPem))) {
    throw new WsChannelError(
      'bad_response',
      'getCertificate: the certificates do not chain to the bank CA; refused',
      false,
    );
  }
  return { clientCertPem, bankCertPem: newBankPem, rootCertPem: rootPem };
}

export type WsClient = ReturnType<typeof createWsClient>;

/** True when the certificate certifies exactly this public key (SPKI). */
function samePublicKey(certPem: string, publicKeyPem: string): boolean {
  const strip = (s: string) => s.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');
  const spki = new X509Certificate(certPem).publicKey.export({ format: 'pem', type: 'spki' }).toString();
  return strip(spki) === strip(publicKeyPem);
}
