import { gunzipSync, gzipSync } from 'node:zlib';
import { verifyEnveloped, verifySoapEnvelope } from '../../channels/fi-ws/xml-signature.ts';
import { deliveredFileFromPain001, demoCamt053, demoPain002 } from '../../domain/demo-bank/index.ts';
import {
  type ApplicationResponse,
  applicationResponseXml,
  type FileDescriptor,
  parseApplicationRequest,
} from '../../domain/fi-ws/application-messages.ts';
import { FILE_SERVICE_NAMESPACE, RESPONSE_CODES } from '../../domain/fi-ws/families.ts';
import { type ParsedSoap, requestHeaderOf, type SoapOperation } from '../../domain/fi-ws/soap.ts';
import { certificatePem, issuedBy } from '../../platform/x509.ts';
import { nextReference, refusal, type SimulatorContext, signedAnswer } from './respond.ts';
import type { BankFile } from './state.ts';

const OPERATIONS: Record<string, { operation: SoapOperation; command: string }> = {
  uploadFilein: { operation: 'uploadFile', command: 'UploadFile' },
  downloadFileListin: { operation: 'downloadFileList', command: 'DownloadFileList' },
  downloadFilein: { operation: 'downloadFile', command: 'DownloadFile' },
  getUserInfoin: { operation: 'getUserInfo', command: 'GetUserInfo' },
};

function descriptor(f: BankFile): FileDescriptor {
  return {
    fileReference: f.fileReference,
    targetId: null,
    userFilename: f.userFilename,
    fileType: f.fileType,
    fileTimestamp: f.timestamp,
    status: f.status,
  };
}

/**
 * The bank's file service: verifies the customer's WS-Security and ApplicationRequest signatures with
 * the certificate the simulator issued to that customer (family algorithms only), then uploads, lists,
 * downloads or tells the user's file types. An uploaded pain.001 is answered at once, like the demo
 * bank, with a pain.002 and a camt.053 the customer can download (REJECT:<code> in a remittance
 * rejects that line).
 */
export function handleFileRequest(
  sim: SimulatorContext,
  soap: Extract<ParsedSoap, { kind: 'message' }>,
  rawXml: string,
) {
  const header = requestHeaderOf(soap.header);
  const op = OPERATIONS[soap.element];
  const reply = {
    namespace: FILE_SERVICE_NAMESPACE,
    operation: op?.operation ?? 'uploadFile',
    requestId: header.requestId,
    receiverId: header.senderId,
  };
  const refuse = (code: string, text: string) => refusal(sim, reply, code, text);
  if (!op || !soap.application) return refuse(RESPONSE_CODES.unknownOperation, 'Operation is not supported');
  const state = sim.store.state;
  const now = sim.now();

  const sender = soap.senderCertificate ? safePem(soap.senderCertificate) : null;
  if (!sender) return refuse(RESPONSE_CODES.authenticationFailed, 'The message carries no certificate');
  const client = state.clients.find((c) => c.certPem === sender);
  if (!client || !issuedBy(sender, state.ca.certPem))
    return refuse(RESPONSE_CODES.authenticationFailed, 'Certificate is not known to the bank');
  if (new Date(client.notAfter) <= now) return refuse(RESPONSE_CODES.authenticationFailed, 'Certificate has expired');
  if (!verifySoapEnvelope(rawXml, sender, sim.protocol.signature).ok) {
    return refuse(RESPONSE_CODES.invalidSignature, 'WS-Security signature is not valid');
  }
  const applicationXml = Buffer.from(soap.application, 'base64').toString('utf8');
  const signed = verifyEnveloped(applicationXml, sender, sim.protocol.signature);
  if (!signed.ok)
    return refuse(RESPONSE_CODES.invalidSignature, `ApplicationRequest signature is not valid: ${signed.reason}`);
  const request = parseApplicationRequest(signed.signedXml[0] ?? '');
  if (!request || request.command !== op.command)
    return refuse(RESPONSE_CODES.schemaInvalid, 'ApplicationRequest is not valid');
  if (request.customerId !== client.customerId)
    return refuse(RESPONSE_CODES.authenticationFailed, 'Certificate does not belong to this customer id');

  const answer = (fields: Partial<ApplicationResponse>) =>
    signedAnswer(sim, {
      ...reply,
      application: applicationResponseXml({
        customerId: request.customerId,
        timestamp: now.toISOString(),
        responseCode: RESPONSE_CODES.ok,
        responseText: 'OK',
        fileDescriptors: [],
        userFileTypes: [],
        ...fields,
      }),
    });
  const fail = (code: string, text: string) => answer({ responseCode: code, responseText: text });
  const compressed = sim.protocol.compression === 'GZIP';

  switch (request.command) {
    case 'UploadFile': {
      if (request.fileType !== sim.fileTypes.paymentUpload)
        return fail(RESPONSE_CODES.invalidParameters, `FileType must be ${sim.fileTypes.paymentUpload}`);
      if (compressed && request.compressionMethod !== 'GZIP')
        return fail(RESPONSE_CODES.schemaInvalid, 'Content must be GZIP compressed');
      let content: string;
      try {
        const raw = Buffer.from(request.content ?? '', 'base64');
        content = (request.compressionMethod === 'GZIP' ? gunzipSync(raw) : raw).toString('utf8');
      } catch {
        return fail(RESPONSE_CODES.schemaInvalid, 'Content is not valid GZIP');
      }
      const repeat = request.userFilename
        ? state.files.find(
            (f) =>
              f.customerId === request.customerId &&
              f.direction === 'upload' &&
              f.userFilename === request.userFilename,
          )
        : undefined;
      if (repeat) return answer({ fileDescriptors: [descriptor(repeat)] });
      const delivered = deliveredFileFromPain001(content);
      if (!delivered) return fail(RESPONSE_CODES.schemaInvalid, 'Content is not a pain.001 credit transfer initiation');
      const upload: BankFile = {
        fileReference: nextReference(sim),
        customerId: request.customerId,
        direction: 'upload',
        fileType: request.fileType,
        userFilename: request.userFilename ?? null,
        timestamp: now.toISOString(),
        status: 'ACK',
        content,
        downloads: 0,
      };
      state.files.push(upload);
      // The bank's answers, ready to download: status report first, then the statement.
      const at = now.toISOString();
      const sequence = state.sequence;
      state.files.push(
        bankFile(
          sim,
          request.customerId,
          sim.fileTypes.statusDownload,
          demoPain002(delivered, `STS-${upload.fileReference}`, at),
          at,
        ),
        bankFile(
          sim,
          request.customerId,
          sim.fileTypes.statementDownload,
          demoCamt053(
            delivered,
            { messageId: `STM-${upload.fileReference}`, statementId: `STM-${upload.fileReference}`, sequence },
            at,
          ),
          at,
        ),
      );
      sim.store.save();
      return answer({ fileDescriptors: [descriptor(upload)] });
    }
    case 'DownloadFileList': {
      const files = state.files.filter(
        (f) =>
          f.customerId === request.customerId &&
          f.direction === 'download' &&
          (request.status === undefined || request.status === 'ALL' || f.status === request.status) &&
          (request.fileType === undefined || f.fileType === request.fileType),
      );
      return answer({ fileDescriptors: files.map(descriptor) });
    }
    case 'DownloadFile': {
      const ref = request.fileReferences?.[0];
      const file = state.files.find(
        (f) => f.customerId === request.customerId && f.direction === 'download' && f.fileReference === ref,
      );
      if (!file) return fail(RESPONSE_CODES.noSuchFile, `No file ${ref ?? ''} for this customer`);
      file.status = 'DOWNLOADED';
      file.downloads++;
      sim.store.save();
      const bytes = Buffer.from(file.content, 'utf8');
      return answer({
        fileDescriptors: [descriptor(file)],
        fileType: file.fileType,
        compressionMethod: compressed ? 'GZIP' : undefined,
        content: (compressed ? gzipSync(bytes) : bytes).toString('base64'),
      });
    }
    case 'GetUserInfo':
      return answer({
        userFileTypes: [
          {
            targetId: request.targetId ?? '',
            fileType: sim.fileTypes.paymentUpload,
            fileTypeName: 'Payments (pain.001)',
            direction: 'Upload',
          },
          {
            targetId: request.targetId ?? '',
            fileType: sim.fileTypes.statusDownload,
            fileTypeName: 'Payment status (pain.002)',
            direction: 'Download',
          },
          {
            targetId: request.targetId ?? '',
            fileType: sim.fileTypes.statementDownload,
            fileTypeName: 'Account statement (camt.053)',
            direction: 'Download',
          },
        ],
      });
  }
}

function bankFile(sim: SimulatorContext, customerId: string, fileType: string, content: string, at: string): BankFile {
  return {
    fileReference: nextReference(sim),
    customerId,
    direction: 'download',
    fileType,
    userFilename: null,
    timestamp: at,
    status: 'NEW',
    content,
    downloads: 0,
  };
}

function safePem(base64Der: string): string | null {
  try {
    return certificatePem(base64Der);
  } catch {
    return null;
  }
}
