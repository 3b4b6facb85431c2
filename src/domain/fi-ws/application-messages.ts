import { APPLICATION_NAMESPACE } from './families.ts';
import { el, list, obj, parseXml, text } from './xml.ts';

/**
 * The file service's ApplicationRequest and ApplicationResponse documents (namespace
 * http://bxd.fi/xmldata/, Finance Finland WS spec v1.10): built unsigned here, signed by the channel
 * (enveloped XML-DSig) and carried base64-encoded in the SOAP body. Element order follows the schema.
 */
export type WsCommand = 'UploadFile' | 'DownloadFileList' | 'DownloadFile' | 'GetUserInfo';
export type WsEnvironment = 'PRODUCTION' | 'TEST';
export type FileStatusFilter = 'NEW' | 'DOWNLOADED' | 'ALL';

export type ApplicationRequest = {
  customerId: string;
  command: WsCommand;
  timestamp: string;
  status?: FileStatusFilter | undefined;
  environment: WsEnvironment;
  fileReferences?: string[] | undefined;
  userFilename?: string | undefined;
  targetId?: string | undefined;
  /** GZIP when the content is compressed. */
  compressionMethod?: 'GZIP' | undefined;
  softwareId: string;
  fileType?: string | undefined;
  /** Base64 of the (possibly compressed) file. */
  content?: string | undefined;
};

export function applicationRequestXml(r: ApplicationRequest): string {
  const refs = r.fileReferences?.length
    ? `<FileReferences>${r.fileReferences.map((f) => el('FileReference', f)).join('')}</FileReferences>`
    : '';
  return (
    `<?xml version="1.0" encoding="UTF-8"?>` +
    `<ApplicationRequest xmlns="${APPLICATION_NAMESPACE}">` +
    el('CustomerId', r.customerId) +
    el('Command', r.command) +
    el('Timestamp', r.timestamp) +
    el('Status', r.status) +
    el('Environment', r.environment) +
    refs +
    el('UserFilename', r.userFilename) +
    el('TargetId', r.targetId) +
    (r.compressionMethod ? `${el('Compression', 'true')}${el('CompressionMethod', r.compressionMethod)}` : '') +
    el('SoftwareId', r.softwareId) +
    el('FileType', r.fileType) +
    el('Content', r.content) +
    `</ApplicationRequest>`
  );
}

/** Reads an ApplicationRequest (the bank side); null when it is not one or misses a required field. */
export function parseApplicationRequest(xml: string): ApplicationRequest | null {
  const root = obj(parseXml(xml)?.['ApplicationRequest']);
  const customerId = text(root['CustomerId']);
  const command = text(root['Command']);
  const timestamp = text(root['Timestamp']);
  const environment = text(root['Environment']);
  const softwareId = text(root['SoftwareId']);
  if (!customerId || !command || !timestamp || !environment || !softwareId) return null;
  if (!['UploadFile', 'DownloadFileList', 'DownloadFile', 'GetUserInfo'].includes(command)) return null;
  if (environment !== 'PRODUCTION' && environment !== 'TEST') return null;
  const status = text(root['Status']);
  const compressed = text(root['Compression']) === 'true';
  return {
    customerId,
    command: command as WsCommand,
    timestamp,
    status: status === 'NEW' || status === 'DOWNLOADED' || status === 'ALL' ? status : undefined,
    environment,
    fileReferences: list(obj(root['FileReferences'])['FileReference'])
      .map(text)
      .filter((v): v is string => !!v),
    userFilename: text(root['UserFilename']) ?? undefined,
    targetId: text(root['TargetId']) ?? undefined,
    compressionMethod: compressed && text(root['CompressionMethod']) === 'GZIP' ? 'GZIP' : undefined,
    softwareId,
    fileType: text(root['FileType']) ?? undefined,
    content: text(root['Content']) ?? undefined,
  };
}

export type FileDescriptor = {
  fileReference: string;
  targetId: string | null;
  userFilename: string | null;
  fileType: string;
  fileTimestamp: string;
  status: 'NEW' | 'DOWNLOADED' | 'WFP' | 'FWD' | 'ACK' | string;
};

export type UserFileType = {
  targetId: string;
  fileType: string;
  fileTypeName: string;
  direction: 'Upload' | 'Download';
};

export type ApplicationResponse = {
  customerId: string;
  timestamp: string;
  responseCode: string;
  responseText: string;
  compressionMethod?: 'GZIP' | undefined;
  fileDescriptors: FileDescriptor[];
  userFileTypes: UserFileType[];
  fileType?: string | undefined;
  content?: string | undefined;
};

export function applicationResponseXml(r: ApplicationResponse): string {
  const descriptors = r.fileDescriptors.length
    ? `<FileDescriptors>${r.fileDescriptors
        .map(
          (d) =>
            `<FileDescriptor>${el('FileReference', d.fileReference)}${el('TargetId', d.targetId)}${el('UserFilename', d.userFilename)}` +
            `${el('FileType', d.fileType)}${el('FileTimestamp', d.fileTimestamp)}${el('Status', d.status)}</FileDescriptor>`,
        )
        .join('')}</FileDescriptors>`
    : '';
  const types = r.userFileTypes.length
    ? `<UserFileTypes>${r.userFileTypes
        .map(
          (t) =>
            `<UserFileType>${el('TargetId', t.targetId)}${el('FileType', t.fileType)}${el('FileTypeName', t.fileTypeName)}` +
            `${el('Direction', t.direction)}</UserFileType>`,
        )
        .join('')}</UserFileTypes>`
    : '';
  return (
    `<?xml version="1.0" encoding="UTF-8"?>` +
    `<ApplicationResponse xmlns="${APPLICATION_NAMESPACE}">` +
    el('CustomerId', r.customerId) +
    el('Timestamp', r.timestamp) +
    el('ResponseCode', r.responseCode) +
    el('ResponseText', r.responseText) +
    (r.compressionMethod ? `${el('Compressed', 'true')}${el('CompressionMethod', r.compressionMethod)}` : '') +
    descriptors +
    types +
    el('FileType', r.fileType) +
    el('Content', r.content) +
    `</ApplicationResponse>`
  );
}

export function parseApplicationResponse(xml: string): ApplicationResponse | null {
  const root = obj(parseXml(xml)?.['ApplicationResponse']);
  const customerId = text(root['CustomerId']);
  const responseCode = text(root['ResponseCode']);
  if (customerId === null || responseCode === null) return null;
  const descriptors = list(obj(root['FileDescriptors'])['FileDescriptor']).map(obj);
  const types = list(obj(root['UserFileTypes'])['UserFileType']).map(obj);
  return {
    customerId,
    timestamp: text(root['Timestamp']) ?? '',
    responseCode,
    responseText: text(root['ResponseText']) ?? '',
    compressionMethod:
      text(root['Compressed']) === 'true' && text(root['CompressionMethod']) === 'GZIP' ? 'GZIP' : undefined,
    fileDescriptors: descriptors
      .map((d) => ({
        fileReference: text(list(d['FileReference'])[0]) ?? '',
        targetId: text(d['TargetId']),
        userFilename: text(d['UserFilename']),
        fileType: text(d['FileType']) ?? '',
        fileTimestamp: text(d['FileTimestamp']) ?? '',
        status: text(d['Status']) ?? '',
      }))
      .filter((d) => d.fileReference !== ''),
    userFileTypes: types.map((t) => ({
      targetId: text(t['TargetId']) ?? '',
      fileType: text(t['FileType']) ?? '',
      fileTypeName: text(t['FileTypeName']) ?? '',
      direction: text(t['Direction']) === 'Upload' ? 'Upload' : 'Download',
    })),
    fileType: text(root['FileType']) ?? undefined,
    content: text(root['Content']) ?? undefined,
  };
}
