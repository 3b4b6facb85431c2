import { BASE64_ENCODING, SOAP_NAMESPACE, WSSE_NAMESPACE, WSU_NAMESPACE, X509_TOKEN_TYPE } from './families.ts';
import { el, obj, parseXml, text, type XmlObject } from './xml.ts';

/**
 * SOAP 1.1 envelopes of the web services (domain.md §1.1): the operation element (`uploadFilein`,
 * `getCertificatein` ... and their `...out` answers) with its RequestHeader or ResponseHeader and the
 * base64 ApplicationRequest/-Response, under a WS-Security header that carries the sender's
 * certificate (BinarySecurityToken) and a Timestamp. The signature over Body and Timestamp is added by
 * the channel (src/channels/fi-ws); the ids it references are fixed here.
 */
export const SECURITY_IDS = { body: 'Body', timestamp: 'Timestamp', token: 'SenderCertificate' } as const;

export type SoapOperation = 'uploadFile' | 'downloadFileList' | 'downloadFile' | 'getUserInfo' | 'getCertificate';

export type RequestHeader = {
  senderId: string;
  requestId: string;
  timestamp: string;
  language?: string | undefined;
  userAgent?: string | undefined;
  receiverId?: string | undefined;
};

export type ResponseHeader = {
  senderId: string;
  requestId: string;
  timestamp: string;
  responseCode: string;
  responseText: string;
  receiverId?: string | undefined;
};

/** WS-Security header contents: the sender's certificate and the message's validity window. */
export type SecurityHeader = { certificateBase64: string; created: string; expires: string };

function securityXml(s: SecurityHeader): string {
  return (
    `<wsse:Security xmlns:wsse="${WSSE_NAMESPACE}" xmlns:wsu="${WSU_NAMESPACE}" soapenv:mustUnderstand="1">` +
    `<wsse:BinarySecurityToken EncodingType="${BASE64_ENCODING}" ValueType="${X509_TOKEN_TYPE}" wsu:Id="${SECURITY_IDS.token}">` +
    `${s.certificateBase64}</wsse:BinarySecurityToken>` +
    `<wsu:Timestamp wsu:Id="${SECURITY_IDS.timestamp}">${el('wsu:Created', s.created)}${el('wsu:Expires', s.expires)}</wsu:Timestamp>` +
    `</wsse:Security>`
  );
}

function envelope(security: SecurityHeader | undefined, body: string): string {
  return (
    `<?xml version="1.0" encoding="UTF-8"?>` +
    `<soapenv:Envelope xmlns:soapenv="${SOAP_NAMESPACE}">` +
    `<soapenv:Header>${security ? securityXml(security) : ''}</soapenv:Header>` +
    `<soapenv:Body xmlns:wsu="${WSU_NAMESPACE}" wsu:Id="${SECURITY_IDS.body}">${body}</soapenv:Body>` +
    `</soapenv:Envelope>`
  );
}

export function soapRequestXml(input: {
  namespace: string;
  operation: SoapOperation;
  header: RequestHeader;
  applicationRequestBase64: string;
  security?: SecurityHeader | undefined;
}): string {
  const h = input.header;
  const header =
    `<op:RequestHeader>${el('op:SenderId', h.senderId)}${el('op:RequestId', h.requestId)}${el('op:Timestamp', h.timestamp)}` +
    `${el('op:Language', h.language)}${el('op:UserAgent', h.userAgent)}${el('op:ReceiverId', h.receiverId)}</op:RequestHeader>`;
  return envelope(
    input.security,
    `<op:${input.operation}in xmlns:op="${input.namespace}">${header}` +
      `${el('op:ApplicationRequest', input.applicationRequestBase64)}</op:${input.operation}in>`,
  );
}

export function soapResponseXml(input: {
  namespace: string;
  operation: SoapOperation;
  header: ResponseHeader;
  applicationResponseBase64?: string | undefined;
  security?: SecurityHeader | undefined;
}): string {
  const h = input.header;
  const header =
    `<op:ResponseHeader>${el('op:SenderId', h.senderId)}${el('op:RequestId', h.requestId)}${el('op:Timestamp', h.timestamp)}` +
    `${el('op:ResponseCode', h.responseCode)}${el('op:ResponseText', h.responseText)}${el('op:ReceiverId', h.receiverId)}</op:ResponseHeader>`;
  return envelope(
    input.security,
    `<op:${input.operation}out xmlns:op="${input.namespace}">${header}` +
      `${el('op:ApplicationResponse', input.applicationResponseBase64)}</op:${input.operation}out>`,
  );
}

/** A SOAP 1.1 fault: how a service answers a message it could not read at all. */
export function soapFaultXml(faultCode: 'soapenv:Client' | 'soapenv:Server', message: string): string {
  return envelope(
    undefined,
    `<soapenv:Fault>${el('faultcode', faultCode)}${el('faultstring', message)}</soapenv:Fault>`,
  );
}

export type ParsedSoap =
  | { kind: 'fault'; code: string; message: string }
  | {
      kind: 'message';
      /** The body element's local name: `uploadFilein`, `getCertificateout` ... */
      element: string;
      header: XmlObject;
      /** Base64 ApplicationRequest or ApplicationResponse, when present. */
      application: string | null;
      /** The BinarySecurityToken (base64 DER), when the message carries one. */
      senderCertificate: string | null;
    };

export function parseSoap(xml: string): ParsedSoap | null {
  const root = obj(parseXml(xml)?.['Envelope']);
  const body = obj(root['Body']);
  const fault = body['Fault'];
  if (fault !== undefined) {
    const f = obj(fault);
    return { kind: 'fault', code: text(f['faultcode']) ?? '', message: text(f['faultstring']) ?? '' };
  }
  const element = Object.keys(body).find((k) => !k.startsWith('@') && k !== '#text');
  if (!element) return null;
  const operation = obj(body[element]);
  const header = obj(operation['RequestHeader'] ?? operation['ResponseHeader']);
  const token = text(obj(obj(root['Header'])['Security'])['BinarySecurityToken']);
  return {
    kind: 'message',
    element,
    header,
    application: text(operation['ApplicationRequest'] ?? operation['ApplicationResponse']),
    senderCertificate: token ? token.replace(/\s+/g, '') : null,
  };
}

export function responseHeaderOf(header: XmlObject): ResponseHeader {
  return {
    senderId: text(header['SenderId']) ?? '',
    requestId: text(header['RequestId']) ?? '',
    timestamp: text(header['Timestamp']) ?? '',
    responseCode: text(header['ResponseCode']) ?? '',
    responseText: text(header['ResponseText']) ?? '',
    receiverId: text(header['ReceiverId']) ?? undefined,
  };
}

export function requestHeaderOf(header: XmlObject): RequestHeader {
  return {
    senderId: text(header['SenderId']) ?? '',
    requestId: text(header['RequestId']) ?? '',
    timestamp: text(header['Timestamp']) ?? '',
    receiverId: text(header['ReceiverId']) ?? undefined,
  };
}
