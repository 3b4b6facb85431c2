import { authSignaturePlaceholder } from './auth-signature.ts';
import { ALGORITHMS, VERSIONS } from './crypto.ts';
import { PROTOCOL } from './requests.ts';
import { at, child, esc, NS, parseDom, textOf } from './xml.ts';

/**
 * EBICS 3.0 responses (Annex 2): built by the bank simulator, read by the client. Business-level
 * responses (ebicsResponse) carry an AuthSignature of the bank's X002 key; key-management responses
 * (ebicsKeyManagementResponse) are unsigned, their trust coming from the hashes the admin confirms.
 */
const DECL = '<?xml version="1.0" encoding="UTF-8"?>';
const ROOT_ATTRS = `xmlns="${NS.h005}" xmlns:ds="${NS.ds}" Version="${PROTOCOL.version}" Revision="${PROTOCOL.revision}"`;

export type ReturnPair = { code: string; text: string };

export function hevResponse(ret: ReturnPair, versions: Array<{ protocol: string; version: string }>): string {
  return (
    `${DECL}<ebicsHEVResponse xmlns="${NS.h000}"><SystemReturnCode><ReturnCode>${ret.code}</ReturnCode><ReportText>${esc(ret.text)}</ReportText></SystemReturnCode>` +
    versions.map((v) => `<VersionNumber ProtocolVersion="${v.protocol}">${v.version}</VersionNumber>`).join('') +
    '</ebicsHEVResponse>'
  );
}

export type EncryptedPayload = { encryptionDigest: Buffer; transactionKeyWrapped: Buffer; orderDataB64: string };

function dataEncryptionInfo(p: EncryptedPayload): string {
  return (
    `<DataEncryptionInfo authenticate="true"><EncryptionPubKeyDigest Version="${VERSIONS.encryption}" Algorithm="${ALGORITHMS.sha256}">${p.encryptionDigest.toString('base64')}</EncryptionPubKeyDigest>` +
    `<TransactionKey>${p.transactionKeyWrapped.toString('base64')}</TransactionKey></DataEncryptionInfo>`
  );
}

/** A key-management response (INI, HIA, HPB); HPB's carries the bank's keys encrypted for the subscriber. */
export function keyManagementResponse(
  technical: ReturnPair,
  business: string,
  options: { orderId?: string; payload?: EncryptedPayload } = {},
): string {
  return (
    `${DECL}<ebicsKeyManagementResponse ${ROOT_ATTRS}><header authenticate="true"><static/><mutable>` +
    (options.orderId ? `<OrderID>${options.orderId}</OrderID>` : '') +
    `<ReturnCode>${technical.code}</ReturnCode><ReportText>${esc(technical.text)}</ReportText></mutable></header><body>` +
    (options.payload
      ? `<DataTransfer>${dataEncryptionInfo(options.payload)}<OrderData>${options.payload.orderDataB64}</OrderData></DataTransfer>`
      : '') +
    `<ReturnCode authenticate="true">${business}</ReturnCode></body></ebicsKeyManagementResponse>`
  );
}

export type TransactionResponse = {
  phase: 'Initialisation' | 'Transfer' | 'Receipt';
  technical: ReturnPair;
  business: string;
  transactionId?: string | undefined;
  numSegments?: number | undefined;
  segment?: { number: number; last: boolean } | undefined;
  orderId?: string | undefined;
  /** A download segment: the first carries the encryption info, the others the order data only. */
  download?: { info?: Omit<EncryptedPayload, 'orderDataB64'> | undefined; orderDataB64: string } | undefined;
};

/** An ebicsResponse with its AuthSignature placeholder (the simulator signs it with its X002 key). */
export function transactionResponse(r: TransactionResponse): string {
  const info = r.download?.info;
  return (
    `${DECL}<ebicsResponse ${ROOT_ATTRS}><header authenticate="true"><static>` +
    (r.transactionId ? `<TransactionID>${r.transactionId}</TransactionID>` : '') +
    (r.numSegments !== undefined ? `<NumSegments>${r.numSegments}</NumSegments>` : '') +
    `</static><mutable><TransactionPhase>${r.phase}</TransactionPhase>` +
    (r.segment ? `<SegmentNumber lastSegment="${r.segment.last}">${r.segment.number}</SegmentNumber>` : '') +
    (r.orderId ? `<OrderID>${r.orderId}</OrderID>` : '') +
    `<ReturnCode>${r.technical.code}</ReturnCode><ReportText>${esc(r.technical.text)}</ReportText></mutable></header>` +
    `${authSignaturePlaceholder()}<body>` +
    (r.download
      ? `<DataTransfer>${info ? dataEncryptionInfo({ ...info, orderDataB64: '' }) : ''}<OrderData>${r.download.orderDataB64}</OrderData></DataTransfer>`
      : '') +
    `<ReturnCode authenticate="true">${r.business}</ReturnCode></body></ebicsResponse>`
  );
}

export type ParsedResponse = {
  kind: 'transaction' | 'keyManagement';
  doc: Document;
  technical: ReturnPair;
  business: string;
  transactionId: string | null;
  numSegments: number | null;
  segment: { number: number; last: boolean } | null;
  orderId: string | null;
  phase: string | null;
  encryption: { digest: Buffer; transactionKeyWrapped: Buffer } | null;
  orderDataB64: string | null;
};

/** Reads an ebicsResponse or ebicsKeyManagementResponse; null when it is neither (or not well-formed). */
export function parseResponse(xml: string): ParsedResponse | null {
  const doc = parseDom(xml);
  const root = doc?.documentElement;
  if (!doc || !root || root.namespaceURI !== NS.h005) return null;
  const kind =
    root.localName === 'ebicsResponse'
      ? 'transaction'
      : root.localName === 'ebicsKeyManagementResponse'
        ? 'keyManagement'
        : null;
  if (!kind) return null;
  const mutable = at(root, ['header', 'mutable']);
  const stat = at(root, ['header', 'static']);
  const body = child(root, 'body');
  const seg = child(mutable, 'SegmentNumber');
  const info = at(body, ['DataTransfer', 'DataEncryptionInfo']);
  const num = textOf(child(stat, 'NumSegments'));
  return {
    kind,
    doc,
    technical: { code: textOf(child(mutable, 'ReturnCode')) ?? '', text: textOf(child(mutable, 'ReportText')) ?? '' },
    business: textOf(child(body, 'ReturnCode')) ?? '',
    transactionId: textOf(child(stat, 'TransactionID')),
    numSegments: num === null ? null : Number(num),
    segment: seg ? { number: Number(textOf(seg)), last: seg.getAttribute('lastSegment') === 'true' } : null,
    orderId: textOf(child(mutable, 'OrderID')),
    phase: textOf(child(mutable, 'TransactionPhase')),
    encryption: info
      ? {
          digest: Buffer.from(textOf(child(info, 'EncryptionPubKeyDigest')) ?? '', 'base64'),
          transactionKeyWrapped: Buffer.from(textOf(child(info, 'TransactionKey')) ?? '', 'base64'),
        }
      : null,
    orderDataB64: textOf(at(body, ['DataTransfer', 'OrderData'])),
  };
}

export type HevAnswer = { code: string; text: string; versions: Array<{ protocol: string; version: string }> };

export function parseHevResponse(xml: string): HevAnswer | null {
  const root = parseDom(xml)?.documentElement;
  if (root?.localName !== 'ebicsHEVResponse' || root.namespaceURI !== NS.h000) return null;
  const sys = child(root, 'SystemReturnCode', NS.h000);
  const versions: HevAnswer['versions'] = [];
  for (let c = root.firstChild; c; c = c.nextSibling) {
    const e = c as Element;
    if (c.nodeType === 1 && e.localName === 'VersionNumber') {
      versions.push({ protocol: e.getAttribute('ProtocolVersion') ?? '', version: textOf(e) ?? '' });
    }
  }
  return {
    code: textOf(child(sys, 'ReturnCode', NS.h000)) ?? '',
    text: textOf(child(sys, 'ReportText', NS.h000)) ?? '',
    versions,
  };
}
