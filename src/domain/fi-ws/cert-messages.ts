import type { WsEnvironment } from './application-messages.ts';
import { FAMILY_PROTOCOLS, type WsFamily } from './families.ts';
import { el, list, namespaceOf, obj, parseXml, text } from './xml.ts';

/**
 * The certificate service's CertApplicationRequest and CertApplicationResponse (domain.md §1.1).
 * Family A (OP): authenticated by the one-time `TransferKey`; family B (Nordea): by `HMAC`, the
 * base64 HMAC-SHA1 of the DER CSR keyed with the SMS activation code. A renewal carries neither and
 * is signed with the still-valid certificate instead.
 */
export type CertApplicationRequest = {
  family: WsFamily;
  customerId: string;
  timestamp: string;
  environment: WsEnvironment;
  softwareId: string;
  command: 'GetCertificate' | 'RenewCertificate';
  /** Base64 of the DER PKCS#10 request. */
  content: string;
  transferKey?: string | undefined;
  hmac?: string | undefined;
};

export function certApplicationRequestXml(r: CertApplicationRequest): string {
  const protocol = FAMILY_PROTOCOLS[r.family];
  const head = `<?xml version="1.0" encoding="UTF-8"?><CertApplicationRequest xmlns="${protocol.certDataNamespace}">`;
  const common = el('CustomerId', r.customerId) + el('Timestamp', r.timestamp) + el('Environment', r.environment);
  if (r.family === 'A') {
    return (
      head +
      common +
      el('SoftwareId', r.softwareId) +
      el('Command', r.command) +
      el('Compression', 'false') +
      el('Service', protocol.certService) +
      el('Content', r.content) +
      el('TransferKey', r.transferKey) +
      `</CertApplicationRequest>`
    );
  }
  return (
    head +
    common +
    el('SoftwareId', r.softwareId) +
    el('Command', r.command) +
    el('Service', protocol.certService) +
    el('Content', r.content) +
    el('HMAC', r.hmac) +
    `</CertApplicationRequest>`
  );
}

/** Reads a CertApplicationRequest of either family (by its namespace); null when malformed. */
export function parseCertApplicationRequest(xml: string): CertApplicationRequest | null {
  const root = obj(parseXml(xml)?.['CertApplicationRequest']);
  const ns = namespaceOf(xml, 'CertApplicationRequest');
  const family = (Object.keys(FAMILY_PROTOCOLS) as WsFamily[]).find(
    (f) => FAMILY_PROTOCOLS[f].certDataNamespace === ns,
  );
  const customerId = text(root['CustomerId']);
  const timestamp = text(root['Timestamp']);
  const environment = text(root['Environment']);
  const softwareId = text(root['SoftwareId']);
  const command = text(root['Command']);
  const content = text(root['Content']);
  if (!family || !customerId || !timestamp || !softwareId || !content) return null;
  if (environment !== 'PRODUCTION' && environment !== 'TEST') return null;
  return {
    family,
    customerId,
    timestamp,
    environment,
    softwareId,
    command: command === 'RenewCertificate' ? 'RenewCertificate' : 'GetCertificate',
    content,
    transferKey: text(root['TransferKey']) ?? undefined,
    hmac: text(root['HMAC']) ?? undefined,
  };
}

/** An issued certificate: the client's own (`SIGNING`) or the bank's response-signing certificate (`BANK_SIGNING`). */
export type IssuedCertificate = { name: 'SIGNING' | 'BANK_SIGNING' | 'ROOT'; base64Der: string };

export type CertApplicationResponse = {
  family: WsFamily;
  customerId: string;
  timestamp: string;
  responseCode: string;
  responseText: string;
  certificates: IssuedCertificate[];
};

export function certApplicationResponseXml(r: CertApplicationResponse): string {
  const protocol = FAMILY_PROTOCOLS[r.family];
  const certs = r.certificates.length
    ? `<Certificates>${r.certificates
        .map(
          (c) =>
            `<Certificate>${el('Name', c.name)}${el('Certificate', c.base64Der)}${el('CertificateFormat', 'X509')}</Certificate>`,
        )
        .join('')}</Certificates>`
    : '';
  return (
    `<?xml version="1.0" encoding="UTF-8"?><CertApplicationResponse xmlns="${protocol.certDataNamespace}">` +
    el('CustomerId', r.customerId) +
    el('Timestamp', r.timestamp) +
    el('ResponseCode', r.responseCode) +
    el('ResponseText', r.responseText) +
    certs +
    `</CertApplicationResponse>`
  );
}

export function parseCertApplicationResponse(xml: string, family: WsFamily): CertApplicationResponse | null {
  const root = obj(parseXml(xml)?.['CertApplicationResponse']);
  if (namespaceOf(xml, 'CertApplicationResponse') !== FAMILY_PROTOCOLS[family].certDataNamespace) return null;
  const responseCode = text(root['ResponseCode']);
  if (responseCode === null) return null;
  const certificates = list(obj(root['Certificates'])['Certificate'])
    .map(obj)
    // The inner <Certificate> (the DER) shares its name with the list item, so it is read as a list too.
    .map((c) => ({ name: text(c['Name']), base64Der: text(list(c['Certificate'])[0]) }))
    .filter(
      (c): c is IssuedCertificate =>
        (c.name === 'SIGNING' || c.name === 'BANK_SIGNING' || c.name === 'ROOT') && !!c.base64Der,
    );
  return {
    family,
    customerId: text(root['CustomerId']) ?? '',
    timestamp: text(root['Timestamp']) ?? '',
    responseCode,
    responseText: text(root['ResponseText']) ?? '',
    certificates,
  };
}
