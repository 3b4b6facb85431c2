import { certificateInfo } from '../../platform/x509.ts';
import type { BankChannel, InboundFile, InboundFileRef } from '../channel.ts';
import type { WsClient } from './ws-client.ts';

export type FiWsFileTypes = {
  paymentUpload: string;
  statusDownload: string;
  statementDownload: string;
  notificationDownload?: string | undefined;
};

/**
 * The FI_WS bank channel: delivery is an uploadFile of the pain.001 (signed, compressed as the bank
 * expects), named by the document's stable file name so a retried upload is recognised by the bank;
 * inbound files are listed by reference and downloaded one by one (pain.002, camt.053/054).
 */
export function createFiWsChannel(
  client: WsClient,
  options: { fileTypes: FiWsFileTypes; signature: string; ownCertPem: string | undefined },
): BankChannel {
  const downloadTypes = new Set(
    [
      options.fileTypes.statusDownload,
      options.fileTypes.statementDownload,
      options.fileTypes.notificationDownload,
    ].filter((t): t is string => t !== undefined),
  );
  const signedWith = options.ownCertPem ? certificateInfo(options.ownCertPem) : undefined;

  async function listInbound(): Promise<InboundFileRef[]> {
    const files = await client.listFiles({ status: 'ALL' });
    return files
      .filter((f) => downloadTypes.has(f.fileType))
      .map((f) => ({ reference: f.fileReference, fileType: f.fileType, createdAt: f.fileTimestamp || null }))
      .sort((a, b) => (a.createdAt ?? '').localeCompare(b.createdAt ?? '') || a.reference.localeCompare(b.reference));
  }

  async function download(ref: InboundFileRef): Promise<InboundFile> {
    return {
      name: ref.reference,
      content: await client.downloadFile({ fileReference: ref.reference, fileType: ref.fileType }),
    };
  }

  return {
    kind: 'fi-ws',
    async deliver(file) {
      const upload = await client.uploadFile({
        content: file.content,
        fileType: options.fileTypes.paymentUpload,
        userFilename: file.fileName,
      });
      return {
        channel: 'fi-ws',
        reference: upload.fileReference,
        alreadyDelivered: false,
        evidence: {
          fileReference: upload.fileReference,
          bankStatus: upload.status,
          fileType: options.fileTypes.paymentUpload,
          signatureAlgorithm: options.signature,
          ...(signedWith
            ? {
                signedWith: {
                  subject: signedWith.subject,
                  serialNumber: signedWith.serialNumber,
                  fingerprint256: signedWith.fingerprint256,
                },
              }
            : {}),
          responseSignature: 'verified against the pinned bank certificate',
        },
      };
    },
    listInbound,
    download,
    // Without a record of what was taken, the NEW files are the ones to fetch; the pickup uses listInbound.
    async fetchInbound() {
      const files = await client.listFiles({ status: 'NEW' });
      const out: InboundFile[] = [];
      for (const f of files.filter((d) => downloadTypes.has(d.fileType))) {
        out.push(await download({ reference: f.fileReference, fileType: f.fileType, createdAt: f.fileTimestamp }));
      }
      return out;
    },
    acknowledge: async () => {},
    close: async () => {},
  };
}
