import { FAMILY_PROTOCOLS, type SignatureAlgorithms, type WsFamily } from '../fi-ws/families.ts';
import { BANK_PROFILES } from './profiles.ts';
import { type SettingsField, SFTP_SETTINGS_FIELDS } from './sftp-settings.ts';
import type { ChannelKind } from './types.ts';

/**
 * Connectivity metadata per bank for GET /connectivity/profiles (domain.md §1): the channel, its endpoints,
 * how a connection is activated, and the questions an SFTP or EBICS set-up wizard asks. Data only; the
 * channels themselves live in src/channels.
 */
type WizardField = { name: string; label: string; required: boolean; pattern?: string };

export type ConnectivityProfile = {
  bankKey: string;
  bankName: string;
  channel: ChannelKind;
  environments: Array<'test' | 'production'>;
  endpoint?: { production?: string; test?: string; targetId?: string };
  activation?: { kind: 'TRANSFER_KEY' | 'SMS_ACTIVATION_CODE' | 'PIN' | 'INI_HIA_LETTERS' | 'NONE'; fields: string[] };
  crypto?: { sigAlg: 'RSA_SHA256'; keyBits: number; encryptionRequired: boolean; compression?: 'GZIP' };
  fileTypes?: {
    paymentUpload: string;
    statusDownload: string;
    statementDownload: string;
    notificationDownload?: string;
  };
  /**
   * The settings route's own fields (`PUT /connections/{id}/settings`, `sftp`), and the folders
   * banks commonly use as suggestions for `inboundDir` and `outboundDir`.
   */
  sftpWizard?: { defaultPort: number; fields: readonly SettingsField[]; uploadDir: string; downloadDir: string };
  ebics?: { version: 'H004' | 'H005'; orderTypes: Record<string, string>; fields: WizardField[] };
  /** Finnish web services (FI_WS): what the channel and the activation routes use, as data. */
  webServices?: WebServicesProfile;
};

export type WebServicesProfile = {
  family: WsFamily;
  /** The activation route of the family: POST /connections/{id}/activate-op or activate-nordea. */
  activationRoute: 'activate-op' | 'activate-nordea';
  fileService: { production?: string; test?: string };
  certService: { production?: string; test?: string };
  /** ApplicationRequest TargetId (Nordea: the agreement's folder, e.g. 11111111A1 in test); absent when not used. */
  targetId?: string;
  signature: SignatureAlgorithms;
  compression: 'GZIP' | 'NONE';
  /** How often the download worker lists the bank's files, per environment. */
  download: { productionEveryMinutes: number; testEveryMinutes: number };
  certificateValidityDays: number;
  renewBeforeDays: number;
  /** Limits of the activation fields (contract, Limits). */
  fieldRules: Record<string, { pattern: string; description: string }>;
};

function webServices(
  family: WsFamily,
  endpoints: Pick<WebServicesProfile, 'fileService' | 'certService' | 'targetId'>,
): WebServicesProfile {
  const protocol = FAMILY_PROTOCOLS[family];
  return {
    family,
    activationRoute: family === 'A' ? 'activate-op' : 'activate-nordea',
    ...endpoints,
    signature: protocol.signature,
    compression: protocol.compression,
    download: { productionEveryMinutes: 15, testEveryMinutes: 1 },
    certificateValidityDays: protocol.certificateValidityDays,
    renewBeforeDays: protocol.renewBeforeDays,
    fieldRules:
      family === 'A'
        ? {
            userId: { pattern: '^[0-9]{10}$', description: 'the 10-digit web-services user id of the agreement' },
            pin: { pattern: '^[0-9]{16}$', description: 'the 16-digit one-time transfer key' },
          }
        : {
            holderName: { pattern: '^.{1,64}$', description: 'the company or user name as in the agreement' },
            signerId: { pattern: '^[0-9A-Za-z]{1,16}$', description: 'the signer (user) id of the agreement' },
            country: { pattern: '^[A-Z]{2}$', description: 'two capital letters: FI, EE, LT or LV' },
            activationCode: { pattern: '^[0-9]{10}$', description: 'the 10-digit activation code sent by SMS' },
            senderId: { pattern: '^[0-9A-Za-z]{1,16}$', description: 'optional sender id (service bureau)' },
          },
  };
}

const EBICS_FIELDS: WizardField[] = [
  { name: 'hostId', label: 'EBICS host id', required: true },
  { name: 'partnerId', label: 'Partner (customer) id', required: true },
  { name: 'userId', label: 'User id', required: true },
  { name: 'systemId', label: 'System id', required: false },
];

const EBICS_ORDER_TYPES = { payment: 'CCT', urgent: 'CCU', statement: 'C53', intraday: 'C52', status: 'CRZ' };

const SPECIFIC: Record<string, Omit<ConnectivityProfile, 'bankKey' | 'bankName' | 'channel'>> = {
  demo: {
    environments: ['test'],
    activation: { kind: 'NONE', fields: [] },
    fileTypes: { paymentUpload: 'pain.001', statusDownload: 'pain.002', statementDownload: 'camt.053' },
  },
  'nordea-fi': {
    environments: ['test', 'production'],
    endpoint: { production: 'https://filetransfer.nordea.com/services/CorporateFileService', targetId: '11111111A1' },
    webServices: webServices('B', {
      fileService: { production: 'https://filetransfer.nordea.com/services/CorporateFileService' },
      certService: { production: 'https://filetransfer.nordea.com/services/CertificateService' },
      targetId: '11111111A1',
    }),
    activation: {
      kind: 'SMS_ACTIVATION_CODE',
      fields: ['holderName', 'signerId', 'country', 'activationCode', 'senderId'],
    },
    crypto: { sigAlg: 'RSA_SHA256', keyBits: 2048, encryptionRequired: false },
    fileTypes: {
      paymentUpload: 'NDCORPAYS',
      statusDownload: 'NDCORPAYL',
      statementDownload: 'NDCAMT53L',
      notificationDownload: 'NDCAMT54L',
    },
  },
  op: {
    environments: ['test', 'production'],
    endpoint: { production: 'https://wsk.op.fi/services/CorporateFileService', targetId: 'MLP' },
    webServices: webServices('A', {
      fileService: { production: 'https://wsk.op.fi/services/CorporateFileService' },
      certService: { production: 'https://wsk.op.fi/services/OPCertificateService' },
      targetId: 'MLP',
    }),
    activation: { kind: 'TRANSFER_KEY', fields: ['userId', 'pin'] },
    crypto: { sigAlg: 'RSA_SHA256', keyBits: 2048, encryptionRequired: false, compression: 'GZIP' },
    fileTypes: {
      paymentUpload: 'pain.001.001.09',
      statusDownload: 'pain.002.001.10',
      statementDownload: 'camt.053.001.02',
      notificationDownload: 'camt.054.001.02',
    },
  },
  'danske-fi': {
    environments: ['test', 'production'],
    endpoint: { production: 'https://businessws.sampopankki.fi/edifileservice/edifileservice.asmx', targetId: '1' },
    activation: { kind: 'PIN', fields: ['customerId', 'pin'] },
    crypto: { sigAlg: 'RSA_SHA256', keyBits: 2048, encryptionRequired: true },
    fileTypes: {
      paymentUpload: 'pain.001.001.03',
      statusDownload: 'pain.002.001.03',
      statementDownload: 'camt.053.001.02',
    },
  },
};

function defaultsFor(channel: ChannelKind): Omit<ConnectivityProfile, 'bankKey' | 'bankName' | 'channel'> {
  switch (channel) {
    case 'SFTP':
      return {
        environments: ['test', 'production'],
        activation: { kind: 'NONE', fields: [] },
        // Host, user and keys differ per agreement: the wizard asks for them rather than guessing.
        sftpWizard: { defaultPort: 22, fields: SFTP_SETTINGS_FIELDS, uploadDir: '/inbound', downloadDir: '/outbound' },
        fileTypes: { paymentUpload: 'pain.001', statusDownload: 'pain.002', statementDownload: 'camt.053' },
      };
    case 'EBICS':
      return {
        environments: ['test', 'production'],
        activation: { kind: 'INI_HIA_LETTERS', fields: ['hostId', 'partnerId', 'userId'] },
        crypto: { sigAlg: 'RSA_SHA256', keyBits: 2048, encryptionRequired: true },
        ebics: { version: 'H005', orderTypes: EBICS_ORDER_TYPES, fields: EBICS_FIELDS },
      };
    case 'FI_WS':
      return {
        environments: ['test', 'production'],
        activation: { kind: 'TRANSFER_KEY', fields: ['userId', 'pin'] },
        crypto: { sigAlg: 'RSA_SHA256', keyBits: 2048, encryptionRequired: false },
      };
    case 'DEMO':
    case 'FILE_UPLOAD':
    case 'API':
    case 'FILEACT':
      return { environments: ['test', 'production'], activation: { kind: 'NONE', fields: [] } };
  }
}

/** The web-services data of a bank, when it connects over Finnish web services of family A or B. */
export function webServicesProfile(bankKey: string): WebServicesProfile | undefined {
  return SPECIFIC[bankKey]?.webServices;
}

/** The file types a bank's channel uploads and downloads. */
export function fileTypesOf(bankKey: string): ConnectivityProfile['fileTypes'] {
  return SPECIFIC[bankKey]?.fileTypes;
}

export function connectivityProfiles(): ConnectivityProfile[] {
  return BANK_PROFILES.map((p) => ({
    bankKey: p.key,
    bankName: p.bankName,
    channel: p.channel,
    ...(SPECIFIC[p.key] ?? defaultsFor(p.channel)),
  }));
}
