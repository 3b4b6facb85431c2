/**
 * The Finnish web-services families (domain.md §1.1): what differs between OP-style banks (family A:
 * OP and the Samlink banks) and Nordea (family B), as data. The channel, the activation use cases,
 * the bank simulators and GET /connectivity/profiles all read it from here.
 */
export type WsFamily = 'A' | 'B';

/** XML-DSig algorithm identifiers. */
export const ALGORITHMS = {
  rsaSha256: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
  sha256: 'http://www.w3.org/2001/04/xmlenc#sha256',
  c14n: 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315',
  excC14n: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  enveloped: 'http://www.w3.org/2000/09/xmldsig#enveloped-signature',
} as const;

export type SignatureAlgorithms = { signature: string; digest: string; canonicalization: string };

export type FamilyProtocol = {
  family: WsFamily;
  /** Namespace of the CertApplicationRequest/-Response documents. */
  certDataNamespace: string;
  /** Namespace of the certificate service's SOAP operations (getCertificatein ...). */
  certServiceNamespace: string;
  /** `Service` element of a CertApplicationRequest. */
  certService: string;
  /** ApplicationRequest signature; the bank refuses anything else (OP closed SHA-1 on 31 Aug 2025). */
  signature: SignatureAlgorithms;
  /** How the ApplicationRequest Content travels: OP requires GZIP, Nordea takes it as is. */
  compression: 'GZIP' | 'NONE';
  /** What authenticates the first certificate request: a one-time transfer key, or an HMAC keyed by the SMS code. */
  activation: 'TRANSFER_KEY' | 'SMS_ACTIVATION_CODE';
  /** Validity of an issued certificate and when the service renews it (Nordea, Samlink: 2 years; Samlink: last 60 days). */
  certificateValidityDays: number;
  renewBeforeDays: number;
};

/** The file service's SOAP namespace and ApplicationRequest/-Response namespace (common to both families). */
export const FILE_SERVICE_NAMESPACE = 'http://model.bxd.fi';
export const APPLICATION_NAMESPACE = 'http://bxd.fi/xmldata/';
export const SOAP_NAMESPACE = 'http://schemas.xmlsoap.org/soap/envelope/';
export const WSSE_NAMESPACE = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd';
export const WSU_NAMESPACE = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd';
export const X509_TOKEN_TYPE = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-x509-token-profile-1.0#X509v3';
export const BASE64_ENCODING =
  'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-soap-message-security-1.0#Base64Binary';

export const FAMILY_PROTOCOLS: Record<WsFamily, FamilyProtocol> = {
  A: {
    family: 'A',
    certDataNamespace: 'http://op.fi/mlp/xmldata/',
    certServiceNamespace: 'http://mlp.op.fi/OPCertificateService',
    certService: 'MATU',
    signature: { signature: ALGORITHMS.rsaSha256, digest: ALGORITHMS.sha256, canonicalization: ALGORITHMS.excC14n },
    compression: 'GZIP',
    activation: 'TRANSFER_KEY',
    certificateValidityDays: 730,
    renewBeforeDays: 60,
  },
  B: {
    family: 'B',
    certDataNamespace: 'http://filetransfer.nordea.com/xmldata/',
    certServiceNamespace: 'http://bxd.fi/CertificateService',
    certService: 'service',
    signature: { signature: ALGORITHMS.rsaSha256, digest: ALGORITHMS.sha256, canonicalization: ALGORITHMS.c14n },
    compression: 'NONE',
    activation: 'SMS_ACTIVATION_CODE',
    certificateValidityDays: 730,
    renewBeforeDays: 60,
  },
};

/** Response codes of the web-services spec that the service and the simulators use. */
export const RESPONSE_CODES = {
  ok: '00',
  unknownOperation: '05',
  invalidSignature: '08',
  schemaInvalid: '12',
  noSuchFile: '24',
  technicalError: '26',
  invalidParameters: '29',
  authenticationFailed: '30',
  codeExpired: '31',
} as const;
