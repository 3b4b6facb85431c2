import { authSignaturePlaceholder } from './auth-signature.ts';
import { type Btf, serviceXml } from './btf.ts';
import { ALGORITHMS, VERSIONS } from './crypto.ts';
import { esc, NS } from './xml.ts';

/**
 * EBICS 3.0 requests as the client sends them (Annex 2, ebics_H005.xsd), unsigned: the caller signs
 * those with an AuthSignature (signAuthenticated). Element order follows the schema's sequences.
 */
export const PROTOCOL = { version: 'H005', revision: '1', hevVersion: '03.00' } as const;
const ROOT_ATTRS = `xmlns="${NS.h005}" xmlns:ds="${NS.ds}" Version="${PROTOCOL.version}" Revision="${PROTOCOL.revision}"`;
const DECL = '<?xml version="1.0" encoding="UTF-8"?>';

export type Subscriber = { hostId: string; partnerId: string; userId: string };
/** What makes a signed request unique (replay protection): 16 random bytes in hex, and the time. */
export type Freshness = { nonce: string; timestamp: string };
export type BankDigests = { authentication: Buffer; encryption: Buffer };

const PRODUCT = '<Product Language="en">payops</Product>';

export function hevRequest(hostId: string): string {
  return `${DECL}<ebicsHEVRequest xmlns="${NS.h000}"><HostID>${esc(hostId)}</HostID></ebicsHEVRequest>`;
}

/** INI (signature certificate) or HIA (authentication and encryption certificates): unsecured, order data compressed only. */
export function unsecuredRequest(sub: Subscriber, orderType: 'INI' | 'HIA', orderDataB64: string): string {
  return (
    `${DECL}<ebicsUnsecuredRequest ${ROOT_ATTRS}><header authenticate="true"><static>` +
    `<HostID>${esc(sub.hostId)}</HostID><PartnerID>${esc(sub.partnerId)}</PartnerID><UserID>${esc(sub.userId)}</UserID>` +
    `${PRODUCT}<OrderDetails><AdminOrderType>${orderType}</AdminOrderType></OrderDetails><SecurityMedium>0000</SecurityMedium>` +
    `</static><mutable/></header><body><DataTransfer><OrderData>${orderDataB64}</OrderData></DataTransfer></body></ebicsUnsecuredRequest>`
  );
}

/** HPB: the bank's certificates, asked before the client knows their digests (signed with X002). */
export function hpbRequest(sub: Subscriber, fresh: Freshness): string {
  return (
    `${DECL}<ebicsNoPubKeyDigestsRequest ${ROOT_ATTRS}><header authenticate="true"><static>` +
    `<HostID>${esc(sub.hostId)}</HostID><Nonce>${fresh.nonce}</Nonce><Timestamp>${fresh.timestamp}</Timestamp>` +
    `<PartnerID>${esc(sub.partnerId)}</PartnerID><UserID>${esc(sub.userId)}</UserID>${PRODUCT}` +
    `<OrderDetails><AdminOrderType>HPB</AdminOrderType></OrderDetails><SecurityMedium>0000</SecurityMedium>` +
    `</static><mutable/></header>${authSignaturePlaceholder()}<body/></ebicsNoPubKeyDigestsRequest>`
  );
}

function bankDigests(d: BankDigests): string {
  return (
    `<BankPubKeyDigests><Authentication Version="${VERSIONS.authentication}" Algorithm="${ALGORITHMS.sha256}">${d.authentication.toString('base64')}</Authentication>` +
    `<Encryption Version="${VERSIONS.encryption}" Algorithm="${ALGORITHMS.sha256}">${d.encryption.toString('base64')}</Encryption></BankPubKeyDigests>`
  );
}

export type OrderParams =
  | { adminOrderType: 'BTU'; btf: Btf; fileName: string }
  | { adminOrderType: 'BTD'; btf: Btf }
  | { adminOrderType: 'HAC' };

function orderDetails(order: OrderParams): string {
  const params =
    order.adminOrderType === 'BTU'
      ? `<BTUOrderParams fileName="${esc(order.fileName)}">${serviceXml(order.btf)}</BTUOrderParams>`
      : order.adminOrderType === 'BTD'
        ? `<BTDOrderParams>${serviceXml(order.btf)}</BTDOrderParams>`
        : '<StandardOrderParams/>';
  return `<OrderDetails><AdminOrderType>${order.adminOrderType}</AdminOrderType>${params}</OrderDetails>`;
}

export type UploadInit = {
  transactionKeyWrapped: Buffer;
  encryptionDigest: Buffer;
  signatureDataB64: string;
  dataDigest: Buffer;
  numSegments: number;
};

/** The initialisation phase of an upload (BTU) or a download (BTD, HAC). */
export function initialisationRequest(
  sub: Subscriber,
  fresh: Freshness,
  digests: BankDigests,
  order: OrderParams,
  upload?: UploadInit,
): string {
  const body = upload
    ? `<body><DataTransfer><DataEncryptionInfo authenticate="true"><EncryptionPubKeyDigest Version="${VERSIONS.encryption}" Algorithm="${ALGORITHMS.sha256}">${upload.encryptionDigest.toString('base64')}</EncryptionPubKeyDigest>` +
      `<TransactionKey>${upload.transactionKeyWrapped.toString('base64')}</TransactionKey></DataEncryptionInfo>` +
      `<SignatureData authenticate="true">${upload.signatureDataB64}</SignatureData>` +
      `<DataDigest SignatureVersion="${VERSIONS.signature}">${upload.dataDigest.toString('base64')}</DataDigest></DataTransfer></body>`
    : '<body/>';
  return (
    `${DECL}<ebicsRequest ${ROOT_ATTRS}><header authenticate="true"><static>` +
    `<HostID>${esc(sub.hostId)}</HostID><Nonce>${fresh.nonce}</Nonce><Timestamp>${fresh.timestamp}</Timestamp>` +
    `<PartnerID>${esc(sub.partnerId)}</PartnerID><UserID>${esc(sub.userId)}</UserID>${PRODUCT}` +
    `${orderDetails(order)}${bankDigests(digests)}<SecurityMedium>0000</SecurityMedium>` +
    (upload ? `<NumSegments>${upload.numSegments}</NumSegments>` : '') +
    `</static><mutable><TransactionPhase>Initialisation</TransactionPhase></mutable></header>${authSignaturePlaceholder()}${body}</ebicsRequest>`
  );
}

/** A transfer phase: the next upload segment, or the request for the next download segment. */
export function transferRequest(
  hostId: string,
  transactionId: string,
  segment: { number: number; last: boolean },
  orderDataB64?: string,
): string {
  return (
    `${DECL}<ebicsRequest ${ROOT_ATTRS}><header authenticate="true"><static><HostID>${esc(hostId)}</HostID><TransactionID>${transactionId}</TransactionID></static>` +
    `<mutable><TransactionPhase>Transfer</TransactionPhase><SegmentNumber lastSegment="${segment.last}">${segment.number}</SegmentNumber></mutable></header>` +
    `${authSignaturePlaceholder()}<body>${orderDataB64 === undefined ? '' : `<DataTransfer><OrderData>${orderDataB64}</OrderData></DataTransfer>`}</body></ebicsRequest>`
  );
}

/** The receipt phase of a download: 0 the file was taken (committed), 1 it was not. */
export function receiptRequest(hostId: string, transactionId: string, receiptCode: 0 | 1): string {
  return (
    `${DECL}<ebicsRequest ${ROOT_ATTRS}><header authenticate="true"><static><HostID>${esc(hostId)}</HostID><TransactionID>${transactionId}</TransactionID></static>` +
    `<mutable><TransactionPhase>Receipt</TransactionPhase></mutable></header>${authSignaturePlaceholder()}` +
    `<body><TransferReceipt authenticate="true"><ReceiptCode>${receiptCode}</ReceiptCode></TransferReceipt></body></ebicsRequest>`
  );
}
