import type { Btf } from './btf.ts';
import { at, child, NS, parseDom, textOf } from './xml.ts';

/**
 * Reads an EBICS 3.0 request as a bank reads it (the simulator's side): which message it is, who
 * sends it, and the order and transfer fields. Schema validity is checked before (the simulator runs
 * the official XSDs); this reads structure only and answers null for what it cannot place.
 */
export type ParsedRequest =
  | { kind: 'hev'; hostId: string }
  | {
      kind: 'unsecured';
      doc: Document;
      hostId: string;
      partnerId: string;
      userId: string;
      orderType: string;
      orderDataB64: string;
    }
  | {
      kind: 'hpb';
      doc: Document;
      hostId: string;
      partnerId: string;
      userId: string;
      nonce: string;
      timestamp: string;
    }
  | {
      kind: 'initialisation';
      doc: Document;
      hostId: string;
      partnerId: string;
      userId: string;
      nonce: string;
      timestamp: string;
      orderType: string;
      btf: Btf | null;
      fileName: string | null;
      bankDigests: { authentication: Buffer; encryption: Buffer };
      numSegments: number | null;
      upload: {
        encryptionDigest: Buffer;
        transactionKeyWrapped: Buffer;
        signatureDataB64: string;
        dataDigest: Buffer;
      } | null;
    }
  | {
      kind: 'transfer';
      doc: Document;
      hostId: string;
      transactionId: string;
      segment: { number: number; last: boolean };
      orderDataB64: string | null;
    }
  | { kind: 'receipt'; doc: Document; hostId: string; transactionId: string; receiptCode: number };

function btfOf(params: Element | null): Btf | null {
  const service = child(params, 'Service');
  if (!service) return null;
  const msg = child(service, 'MsgName');
  return {
    serviceName: textOf(child(service, 'ServiceName')) ?? '',
    scope: textOf(child(service, 'Scope')) ?? undefined,
    serviceOption: textOf(child(service, 'ServiceOption')) ?? undefined,
    messageName: textOf(msg) ?? '',
    messageVersion: msg?.getAttribute('version') || undefined,
  };
}

export function parseRequest(xml: string): ParsedRequest | null {
  const doc = parseDom(xml);
  const root = doc?.documentElement;
  if (!doc || !root) return null;
  if (root.localName === 'ebicsHEVRequest' && root.namespaceURI === NS.h000) {
    return { kind: 'hev', hostId: textOf(child(root, 'HostID', NS.h000)) ?? '' };
  }
  if (root.namespaceURI !== NS.h005) return null;
  const stat = at(root, ['header', 'static']);
  const mutable = at(root, ['header', 'mutable']);
  const ids = {
    hostId: textOf(child(stat, 'HostID')) ?? '',
    partnerId: textOf(child(stat, 'PartnerID')) ?? '',
    userId: textOf(child(stat, 'UserID')) ?? '',
  };
  const fresh = { nonce: textOf(child(stat, 'Nonce')) ?? '', timestamp: textOf(child(stat, 'Timestamp')) ?? '' };
  const orderType = textOf(at(stat, ['OrderDetails', 'AdminOrderType'])) ?? '';
  if (root.localName === 'ebicsUnsecuredRequest') {
    const data = textOf(at(root, ['body', 'DataTransfer', 'OrderData'])) ?? '';
    return { kind: 'unsecured', doc, ...ids, orderType, orderDataB64: data };
  }
  if (root.localName === 'ebicsNoPubKeyDigestsRequest') return { kind: 'hpb', doc, ...ids, ...fresh };
  if (root.localName !== 'ebicsRequest') return null;
  const phase = textOf(child(mutable, 'TransactionPhase'));
  const transactionId = textOf(child(stat, 'TransactionID')) ?? '';
  if (phase === 'Transfer') {
    const seg = child(mutable, 'SegmentNumber');
    return {
      kind: 'transfer',
      doc,
      hostId: ids.hostId,
      transactionId,
      segment: { number: Number(textOf(seg) ?? '0'), last: seg?.getAttribute('lastSegment') === 'true' },
      orderDataB64: textOf(at(root, ['body', 'DataTransfer', 'OrderData'])),
    };
  }
  if (phase === 'Receipt') {
    return {
      kind: 'receipt',
      doc,
      hostId: ids.hostId,
      transactionId,
      receiptCode: Number(textOf(at(root, ['body', 'TransferReceipt', 'ReceiptCode'])) ?? '1'),
    };
  }
  if (phase !== 'Initialisation') return null;
  const details = child(stat, 'OrderDetails');
  const btu = child(details, 'BTUOrderParams');
  const digests = child(stat, 'BankPubKeyDigests');
  const transfer = at(root, ['body', 'DataTransfer']);
  const info = child(transfer, 'DataEncryptionInfo');
  const num = textOf(child(stat, 'NumSegments'));
  const b64 = (e: Element | null) => Buffer.from(textOf(e) ?? '', 'base64');
  return {
    kind: 'initialisation',
    doc,
    ...ids,
    ...fresh,
    orderType,
    btf: btfOf(btu ?? child(details, 'BTDOrderParams')),
    fileName: btu?.getAttribute('fileName') || null,
    bankDigests: {
      authentication: b64(child(digests, 'Authentication')),
      encryption: b64(child(digests, 'Encryption')),
    },
    numSegments: num === null ? null : Number(num),
    upload: info
      ? {
          encryptionDigest: b64(child(info, 'EncryptionPubKeyDigest')),
          transactionKeyWrapped: b64(child(info, 'TransactionKey')),
          signatureDataB64: textOf(child(transfer, 'SignatureData')) ?? '',
          dataDigest: b64(child(transfer, 'DataDigest')),
        }
      : null,
  };
}
