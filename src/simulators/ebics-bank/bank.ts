import { randomBytes, X509Certificate } from 'node:crypto';
import { inflateSync } from 'node:zlib';
import { strToU8, zipSync } from 'fflate';
import { signAuthenticatedAsync, verifyAuthenticated } from '../../domain/ebics/auth-signature.ts';
import { DOWNLOADS } from '../../domain/ebics/btf.ts';
import { a006Verify, certificateHash, VERSIONS } from '../../domain/ebics/crypto.ts';
import { openSegments, openUploadSignatures, sealFor } from '../../domain/ebics/order.ts';
import { hpbResponseOrderData, parseKeyOrderData } from '../../domain/ebics/order-data.ts';
import { type ParsedRequest, parseRequest } from '../../domain/ebics/parse-request.ts';
import { PROTOCOL } from '../../domain/ebics/requests.ts';
import {
  hevResponse,
  keyManagementResponse,
  type ReturnPair,
  type TransactionResponse,
  transactionResponse,
} from '../../domain/ebics/responses.ts';
import { returnCode } from '../../domain/ebics/return-codes.ts';
import { filesForUpload, statementsDue } from './bank-files.ts';
import type { BankFileKind, StateStore, Subscriber } from './state.ts';

/**
 * The bank side of EBICS 3.0 (H005) for one host: every request is checked against the schemas (when
 * a validator is given), the host id, the subscriber and its state, the X002 signature with the
 * subscriber's certificate, nonce and timestamp (replay), the bank key digests the client holds, and
 * the A006 signature of an upload; each failure answers the EBICS return code a bank would.
 */
export type Fault =
  /** The nth transfer request of the next upload (1 = its first segment) breaks the connection. */
  | { kind: 'drop-upload-segment'; segment: number }
  /** The next receipt is processed by nobody: the connection breaks before the bank reads it. */
  | { kind: 'drop-receipt' }
  /** The next signed answer is signed with a key that is not the bank's. */
  | { kind: 'sign-with-other-key' }
  /** The next signed answer is changed after signing. */
  | { kind: 'tamper-response' };

export type BankContext = {
  store: StateStore;
  now: () => Date;
  faults: Fault[];
  validate?: ((xml: string) => string[]) | undefined;
  /** How long after HIA the bank accepts the letter by itself (the sandbox); never when undefined. */
  acceptLetterAfterMs?: number | undefined;
  /** Accepted clock difference of a request's timestamp, either way. */
  timestampWindowMs: number;
  /** Open transactions (memory only). */
  transactions: Map<string, Transaction>;
  /** The nonces of `state.nonces` as a set (memory only, made from them on first use). */
  seenNonces?: Set<string>;
};

type Upload = {
  kind: 'upload';
  partnerId: string;
  userId: string;
  transactionKey: Buffer;
  signatureValue: Buffer;
  numSegments: number;
  segments: string[];
  fileName: string | null;
  orderId: string;
  transferCount: number;
};
type Download = { kind: 'download'; partnerId: string; userId: string; fileIds: string[]; segments: string[] };
type Transaction = Upload | Download;

/**
 * What the bank answers: a message, a broken connection, or a transaction response to be signed with
 * `signWith` (the server signs it off the event loop, signAuthenticatedAsync; docs/adr/0074), then
 * changed after signing when `tamper` (the fault). Every change to the bank's state is made before.
 */
export type Answer = { xml: string } | { drop: true } | { unsigned: string; signWith: string; tamper: boolean };

const KINDS: Record<string, BankFileKind> = {
  [DOWNLOADS.statement.messageName]: 'statement',
  [DOWNLOADS.report.messageName]: 'report',
  [DOWNLOADS.notification.messageName]: 'notification',
  [DOWNLOADS.status.messageName]: 'status',
};

/** A download's container holds at most this many files; the rest come with the next one. */
const MAX_FILES_PER_DOWNLOAD = 500;

const hex = (n: number) => randomBytes(n).toString('hex').toUpperCase();

function orderIdOf(sequence: number): string {
  // OrderIDType: a letter and three letters or digits.
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  let n = sequence % (26 * 36 ** 3);
  let out = '';
  for (let i = 0; i < 3; i++) {
    out = alphabet[n % 36] + out;
    n = Math.floor(n / 36);
  }
  return `${alphabet[n % 26]}${out}`;
}

export function handleRequest(bank: BankContext, xml: string): Answer {
  const state = bank.store.state;
  const parsed = parseRequest(xml);
  const errors = bank.validate?.(xml) ?? [];
  if (!parsed || errors.length > 0) return keyMgmt(returnCode('EBICS_INVALID_XML'));
  if (parsed.kind === 'hev') {
    return { xml: hevResponse(returnCode('EBICS_OK'), [{ protocol: PROTOCOL.version, version: PROTOCOL.hevVersion }]) };
  }
  if (parsed.hostId !== state.hostId) return refuse(bank, parsed, returnCode('EBICS_INVALID_HOST_ID'));
  switch (parsed.kind) {
    case 'unsecured':
      return keyOrder(bank, parsed);
    case 'hpb':
      return hpb(bank, parsed);
    case 'initialisation':
      return initialisation(bank, parsed);
    case 'transfer':
      return transfer(bank, parsed);
    case 'receipt':
      return receipt(bank, parsed);
  }
}

function keyMgmt(
  technical: ReturnPair,
  business = '000000',
  options: Parameters<typeof keyManagementResponse>[2] = {},
): Answer {
  return { xml: keyManagementResponse(technical, business, options) };
}

/** A refusal in the shape of the request's response type. */
function refuse(bank: BankContext, req: ParsedRequest, code: ReturnPair, business = '000000'): Answer {
  if (req.kind === 'unsecured' || req.kind === 'hpb') return keyMgmt(code, business);
  const phase = req.kind === 'transfer' ? 'Transfer' : req.kind === 'receipt' ? 'Receipt' : 'Initialisation';
  return signed(bank, {
    phase,
    technical: code,
    business,
    transactionId: 'transactionId' in req ? req.transactionId : undefined,
  });
}

function signed(bank: BankContext, r: TransactionResponse, signWith?: { privateKeyPem: string }): Answer {
  const fault = takeFault(bank, (f) => f.kind === 'sign-with-other-key' || f.kind === 'tamper-response');
  const state = bank.store.state;
  const key = fault?.kind === 'sign-with-other-key' ? state.impostor : (signWith ?? state.bank.authentication);
  return { unsigned: transactionResponse(r), signWith: key.privateKeyPem, tamper: fault?.kind === 'tamper-response' };
}

/** The answer as sent: a transaction response signed (the RSA operation on the thread pool) and tampered with when the fault says so. */
export async function finishAnswer(answer: Answer): Promise<{ xml: string } | { drop: true }> {
  if (!('unsigned' in answer)) return answer;
  const xml = await signAuthenticatedAsync(answer.unsigned, answer.signWith);
  return { xml: answer.tamper ? xml.replace('</ReportText>', ' (changed)</ReportText>') : xml };
}

function takeFault(bank: BankContext, match: (f: Fault) => boolean): Fault | undefined {
  const i = bank.faults.findIndex(match);
  return i < 0 ? undefined : bank.faults.splice(i, 1)[0];
}

function subscriberOf(bank: BankContext, partnerId: string, userId: string): Subscriber | undefined {
  const sub = bank.store.state.subscribers.find((s) => s.partnerId === partnerId && s.userId === userId);
  // The sandbox bank accepts the letter by itself a while after HIA.
  if (
    sub?.state === 'initialised' &&
    bank.acceptLetterAfterMs !== undefined &&
    sub.initialisedAt &&
    bank.now().getTime() - Date.parse(sub.initialisedAt) >= bank.acceptLetterAfterMs
  ) {
    sub.state = 'ready';
    bank.store.save();
  }
  return sub;
}

function keyBitsOk(certPem: string | null): boolean {
  if (!certPem) return false;
  try {
    const key = new X509Certificate(certPem).publicKey;
    return key.asymmetricKeyType === 'rsa' && (key.asymmetricKeyDetails?.modulusLength ?? 0) >= 2048;
  } catch {
    return false;
  }
}

function keyOrder(bank: BankContext, req: Extract<ParsedRequest, { kind: 'unsecured' }>): Answer {
  const sub = subscriberOf(bank, req.partnerId, req.userId);
  if (!sub) return keyMgmt(returnCode('EBICS_INVALID_USER_OR_USER_STATE'));
  if (req.orderType !== 'INI' && req.orderType !== 'HIA') return keyMgmt(returnCode('EBICS_INVALID_ORDER_IDENTIFIER'));
  const allowed = req.orderType === 'INI' ? ['new', 'hia-received'] : ['new', 'ini-received'];
  if (!allowed.includes(sub.state)) return keyMgmt(returnCode('EBICS_INVALID_USER_OR_USER_STATE'));
  let orderXml: string;
  try {
    orderXml = inflateSync(Buffer.from(req.orderDataB64, 'base64'), { maxOutputLength: 1024 * 1024 }).toString('utf8');
  } catch {
    return keyMgmt(returnCode('EBICS_INVALID_ORDER_DATA_FORMAT'));
  }
  if ((bank.validate?.(orderXml) ?? []).length > 0) return keyMgmt(returnCode('EBICS_INVALID_ORDER_DATA_FORMAT'));
  const order = parseKeyOrderData(orderXml);
  if (!order.ok || order.partnerId !== sub.partnerId || order.userId !== sub.userId) {
    return keyMgmt(returnCode('EBICS_INVALID_ORDER_DATA_FORMAT'));
  }
  if (req.orderType === 'INI') {
    if (order.versions['signature'] !== VERSIONS.signature || !keyBitsOk(order.certs.signature)) {
      return keyMgmt(returnCode('EBICS_CERTIFICATES_VALIDATION_ERROR'));
    }
    sub.certs.signature = order.certs.signature;
    sub.state = sub.state === 'hia-received' ? 'initialised' : 'ini-received';
  } else {
    if (
      order.versions['authentication'] !== VERSIONS.authentication ||
      order.versions['encryption'] !== VERSIONS.encryption ||
      !keyBitsOk(order.certs.authentication) ||
      !keyBitsOk(order.certs.encryption)
    ) {
      return keyMgmt(returnCode('EBICS_CERTIFICATES_VALIDATION_ERROR'));
    }
    sub.certs.authentication = order.certs.authentication;
    sub.certs.encryption = order.certs.encryption;
    sub.state = sub.state === 'ini-received' ? 'initialised' : 'hia-received';
  }
  if (sub.state === 'initialised') sub.initialisedAt = bank.now().toISOString();
  const orderId = orderIdOf(++bank.store.state.sequence);
  bank.store.save();
  return keyMgmt(returnCode('EBICS_OK'), '000000', { orderId });
}

/** Authentication, state and replay checks of a signed request; a refusal, or the subscriber. */
function authenticate(
  bank: BankContext,
  req: Extract<ParsedRequest, { kind: 'hpb' | 'initialisation' }>,
): { sub: Subscriber } | { refusal: Answer } {
  const sub = subscriberOf(bank, req.partnerId, req.userId);
  if (sub?.state !== 'ready' || !sub.certs.authentication) {
    return { refusal: refuse(bank, req, returnCode('EBICS_INVALID_USER_OR_USER_STATE')) };
  }
  if (!verifyAuthenticated(req.doc, sub.certs.authentication).ok) {
    return { refusal: refuse(bank, req, returnCode('EBICS_AUTHENTICATION_FAILED')) };
  }
  const replay = checkReplay(bank, req.nonce, req.timestamp);
  if (replay) return { refusal: refuse(bank, req, replay) };
  return { sub };
}

function checkReplay(bank: BankContext, nonce: string, timestamp: string): ReturnPair | null {
  const now = bank.now().getTime();
  const at = Date.parse(timestamp);
  const state = bank.store.state;
  // Nonces are kept in the order they came: those out of the window go from the front, and a set
  // beside them answers "seen" without a scan (the check was a pass over every nonce per request).
  bank.seenNonces ??= new Set(state.nonces.map((n) => n.nonce));
  let expired = 0;
  while (expired < state.nonces.length && now - Date.parse(state.nonces[expired]!.at) > bank.timestampWindowMs) {
    bank.seenNonces.delete(state.nonces[expired]!.nonce);
    expired++;
  }
  if (expired > 0) state.nonces.splice(0, expired);
  if (!Number.isFinite(at) || Math.abs(now - at) > bank.timestampWindowMs) return returnCode('EBICS_TX_MESSAGE_REPLAY');
  if (bank.seenNonces.has(nonce)) return returnCode('EBICS_TX_MESSAGE_REPLAY');
  state.nonces.push({ nonce, at: timestamp });
  bank.seenNonces.add(nonce);
  return null;
}

function hpb(bank: BankContext, req: Extract<ParsedRequest, { kind: 'hpb' }>): Answer {
  const auth = authenticate(bank, req);
  if ('refusal' in auth) return auth.refusal;
  const state = bank.store.state;
  const data = hpbResponseOrderData(state.hostId, state.bank.authentication.certPem, state.bank.encryption.certPem);
  const sealed = sealFor(auth.sub.certs.encryption ?? '', randomBytes(16), Buffer.from(data), Number.MAX_SAFE_INTEGER);
  bank.store.save();
  return keyMgmt(returnCode('EBICS_OK'), '000000', {
    payload: {
      encryptionDigest: sealed.encryptionDigest,
      transactionKeyWrapped: sealed.transactionKeyWrapped,
      orderDataB64: sealed.segments[0] ?? '',
    },
  });
}

function bankDigestsCurrent(bank: BankContext, d: { authentication: Buffer; encryption: Buffer }): boolean {
  const keys = bank.store.state.bank;
  return (
    d.authentication.equals(certificateHash(keys.authentication.certPem)) &&
    d.encryption.equals(certificateHash(keys.encryption.certPem))
  );
}

function initialisation(bank: BankContext, req: Extract<ParsedRequest, { kind: 'initialisation' }>): Answer {
  const auth = authenticate(bank, req);
  if ('refusal' in auth) return auth.refusal;
  const { sub } = auth;
  if (!bankDigestsCurrent(bank, req.bankDigests)) {
    // Answered under the key the client still holds, so it can trust the news; then HPB gives the new ones.
    const previous = bank.store.state.previousBank;
    const held =
      previous && req.bankDigests.authentication.equals(certificateHash(previous.authentication.certPem))
        ? previous.authentication
        : undefined;
    return signed(
      bank,
      { phase: 'Initialisation', technical: returnCode('EBICS_BANK_PUBKEY_UPDATE_REQUIRED'), business: '000000' },
      held,
    );
  }
  const state = bank.store.state;
  const transactionId = hex(16);
  if (req.orderType === 'BTU') {
    if (req.btf?.serviceName !== 'SCT' || req.btf.messageName !== 'pain.001' || !req.upload || !req.numSegments) {
      return refuse(bank, req, returnCode('EBICS_INVALID_ORDER_PARAMS'));
    }
    let opened: ReturnType<typeof openUploadSignatures>;
    try {
      opened = openUploadSignatures(
        state.bank.encryption.privateKeyPem,
        req.upload.transactionKeyWrapped,
        req.upload.signatureDataB64,
      );
    } catch {
      return refuse(bank, req, returnCode('EBICS_INVALID_REQUEST_CONTENT'));
    }
    if (!req.upload.encryptionDigest.equals(certificateHash(state.bank.encryption.certPem))) {
      return refuse(bank, req, returnCode('EBICS_BANK_PUBKEY_UPDATE_REQUIRED'));
    }
    const mine = opened.signatures?.find(
      (s) => s.partnerId === sub.partnerId && s.userId === sub.userId && s.version === VERSIONS.signature,
    );
    if (!mine) return refuse(bank, req, returnCode('EBICS_SIGNATURE_VERIFICATION_FAILED'));
    const orderId = orderIdOf(++state.sequence);
    bank.transactions.set(transactionId, {
      kind: 'upload',
      partnerId: sub.partnerId,
      userId: sub.userId,
      transactionKey: opened.transactionKey,
      signatureValue: mine.value,
      numSegments: req.numSegments,
      segments: [],
      fileName: req.fileName,
      orderId,
      transferCount: 0,
    });
    bank.store.save();
    return signed(bank, {
      phase: 'Initialisation',
      technical: returnCode('EBICS_OK'),
      business: '000000',
      transactionId,
      orderId,
    });
  }
  if (req.orderType !== 'BTD' && req.orderType !== 'HAC')
    return refuse(bank, req, returnCode('EBICS_UNSUPPORTED_ORDER_TYPE'));
  const kind = req.orderType === 'HAC' ? 'hac' : KINDS[req.btf?.messageName ?? ''];
  if (!kind) return refuse(bank, req, returnCode('EBICS_INVALID_ORDER_PARAMS'));
  // A statement download first writes the statements of what was booked since the last one.
  if (kind === 'statement') state.files.push(...statementsDue(state, sub, bank.now().toISOString()));
  // Every file of the kind not yet confirmed: business formats in one ZIP container, HAC as it is.
  const files = state.files.filter(
    (f) => f.partnerId === sub.partnerId && f.userId === sub.userId && f.kind === kind && !f.deliveredAt,
  );
  const taken = kind === 'hac' ? files.slice(0, 1) : files.slice(0, MAX_FILES_PER_DOWNLOAD);
  bank.store.save();
  if (taken.length === 0)
    return signed(bank, { phase: 'Initialisation', technical: returnCode('EBICS_OK'), business: '090005' });
  for (const f of taken) f.downloads += 1;
  const data =
    kind === 'hac'
      ? Buffer.from(taken[0]!.content, 'utf8')
      : Buffer.from(zipSync(Object.fromEntries(taken.map((f) => [`${f.id}.xml`, strToU8(f.content)])), { level: 0 }));
  const sealed = sealFor(sub.certs.encryption ?? '', randomBytes(16), data);
  bank.transactions.set(transactionId, {
    kind: 'download',
    partnerId: sub.partnerId,
    userId: sub.userId,
    fileIds: taken.map((f) => f.id),
    segments: sealed.segments,
  });
  return signed(bank, {
    phase: 'Initialisation',
    technical: returnCode('EBICS_OK'),
    business: '000000',
    transactionId,
    numSegments: sealed.segments.length,
    segment: { number: 1, last: sealed.segments.length === 1 },
    download: {
      info: { encryptionDigest: sealed.encryptionDigest, transactionKeyWrapped: sealed.transactionKeyWrapped },
      orderDataB64: sealed.segments[0] ?? '',
    },
  });
}

/** A transaction's later phases are signed by the subscriber who opened it. */
function transactionOf(
  bank: BankContext,
  req: Extract<ParsedRequest, { kind: 'transfer' | 'receipt' }>,
): { tx: Transaction } | { refusal: Answer } {
  const tx = bank.transactions.get(req.transactionId);
  if (!tx) return { refusal: refuse(bank, req, returnCode('EBICS_TX_UNKNOWN_TXID')) };
  const sub = subscriberOf(bank, tx.partnerId, tx.userId);
  if (!sub?.certs.authentication || sub.state !== 'ready')
    return { refusal: refuse(bank, req, returnCode('EBICS_INVALID_USER_OR_USER_STATE')) };
  if (!verifyAuthenticated(req.doc, sub.certs.authentication).ok)
    return { refusal: refuse(bank, req, returnCode('EBICS_AUTHENTICATION_FAILED')) };
  return { tx };
}

function transfer(bank: BankContext, req: Extract<ParsedRequest, { kind: 'transfer' }>): Answer {
  const found = transactionOf(bank, req);
  if ('refusal' in found) return found.refusal;
  const { tx } = found;
  const n = req.segment.number;
  const base = { phase: 'Transfer' as const, transactionId: req.transactionId, segment: req.segment };
  if (tx.kind === 'download') {
    const data = tx.segments[n - 1];
    if (data === undefined || n < 2) return refuse(bank, req, returnCode('EBICS_TX_SEGMENT_NUMBER_EXCEEDED'));
    return signed(bank, {
      ...base,
      technical: returnCode('EBICS_OK'),
      business: '000000',
      segment: { number: n, last: n === tx.segments.length },
      download: { orderDataB64: data },
    });
  }
  tx.transferCount += 1;
  const drop = takeFault(bank, (f) => f.kind === 'drop-upload-segment' && f.segment === tx.transferCount);
  if (drop) return { drop: true };
  // Recovery: a segment may come again (the client did not see our answer), never one ahead.
  if (
    n < 1 ||
    n > tx.numSegments ||
    n > tx.segments.length + 1 ||
    req.segment.last !== (n === tx.numSegments) ||
    req.orderDataB64 === null
  ) {
    return refuse(
      bank,
      req,
      returnCode(n > tx.numSegments ? 'EBICS_TX_SEGMENT_NUMBER_EXCEEDED' : 'EBICS_INVALID_REQUEST_CONTENT'),
    );
  }
  tx.segments[n - 1] = req.orderDataB64;
  tx.segments.length = n;
  if (!req.segment.last)
    return signed(bank, { ...base, technical: returnCode('EBICS_OK'), business: '000000', orderId: tx.orderId });
  bank.transactions.delete(req.transactionId);
  let content: Buffer;
  try {
    content = openSegments(tx.transactionKey, tx.segments);
  } catch {
    return signed(bank, {
      ...base,
      technical: returnCode('EBICS_OK'),
      business: returnCode('EBICS_INVALID_ORDER_DATA_FORMAT').code,
    });
  }
  const sub = subscriberOf(bank, tx.partnerId, tx.userId);
  if (!sub?.certs.signature || !a006Verify(sub.certs.signature, content, tx.signatureValue)) {
    return signed(bank, {
      ...base,
      technical: returnCode('EBICS_OK'),
      business: returnCode('EBICS_SIGNATURE_VERIFICATION_FAILED').code,
    });
  }
  const state = bank.store.state;
  // The same file name again is the same order (a retried delivery): nothing is booked twice.
  const repeat = tx.fileName
    ? state.uploads.find((u) => u.partnerId === tx.partnerId && u.userId === tx.userId && u.fileName === tx.fileName)
    : undefined;
  if (repeat)
    return signed(bank, { ...base, technical: returnCode('EBICS_OK'), business: '000000', orderId: repeat.orderId });
  const at = bank.now().toISOString();
  const upload = {
    orderId: tx.orderId,
    partnerId: tx.partnerId,
    userId: tx.userId,
    fileName: tx.fileName,
    content: content.toString('utf8'),
    receivedAt: at,
  };
  const { delivered, files } = filesForUpload(state, upload, at);
  state.uploads.push(upload);
  state.files.push(...files);
  bank.store.save();
  if (!delivered) {
    return signed(bank, {
      ...base,
      technical: returnCode('EBICS_OK'),
      business: returnCode('EBICS_INVALID_ORDER_DATA_FORMAT').code,
      orderId: tx.orderId,
    });
  }
  return signed(bank, { ...base, technical: returnCode('EBICS_OK'), business: '000000', orderId: tx.orderId });
}

function receipt(bank: BankContext, req: Extract<ParsedRequest, { kind: 'receipt' }>): Answer {
  if (takeFault(bank, (f) => f.kind === 'drop-receipt')) return { drop: true };
  const found = transactionOf(bank, req);
  if ('refusal' in found) return found.refusal;
  const { tx } = found;
  if (tx.kind !== 'download') return refuse(bank, req, returnCode('EBICS_TX_UNKNOWN_TXID'));
  bank.transactions.delete(req.transactionId);
  const base = { phase: 'Receipt' as const, transactionId: req.transactionId, business: '000000' };
  if (req.receiptCode !== 0)
    return signed(bank, { ...base, technical: returnCode('EBICS_DOWNLOAD_POSTPROCESS_SKIPPED') });
  const at = bank.now().toISOString();
  const confirmed = new Set(tx.fileIds);
  for (const file of bank.store.state.files) if (confirmed.has(file.id)) file.deliveredAt = at;
  bank.store.save();
  return signed(bank, { ...base, technical: returnCode('EBICS_DOWNLOAD_POSTPROCESS_DONE') });
}
