import { randomBytes } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { signAuthenticatedAsync, verifyAuthenticated } from '../../domain/ebics/auth-signature.ts';
import type { Btf } from '../../domain/ebics/btf.ts';
import { a006SignAsync, certificateHash } from '../../domain/ebics/crypto.ts';
import { openFor, sealUpload } from '../../domain/ebics/order.ts';
import {
  type BankKeys,
  hiaRequestOrderData,
  parseHpbOrderData,
  signaturePubKeyOrderData,
} from '../../domain/ebics/order-data.ts';
import {
  hevRequest,
  hpbRequest,
  initialisationRequest,
  type OrderParams,
  PROTOCOL,
  receiptRequest,
  type Subscriber,
  transferRequest,
  unsecuredRequest,
} from '../../domain/ebics/requests.ts';
import { type ParsedResponse, parseHevResponse, parseResponse } from '../../domain/ebics/responses.ts';
import { returnCodeInfo } from '../../domain/ebics/return-codes.ts';
import { ChannelError } from '../errors.ts';
import type { SoapTransport } from '../fi-ws/soap-transport.ts';
import { EbicsChannelError, returnCodeError } from './errors.ts';

/**
 * An EBICS 3.0 (H005) subscriber talking to its bank: key management (HEV, INI, HIA, HPB) and
 * transactions (BTU uploads, BTD and HAC downloads with their receipts). Every request is signed with
 * the subscriber's X002 key (INI and HIA excepted, as the protocol has it); every ebicsResponse's
 * AuthSignature is verified against the bank certificate the admin confirmed before anything in it is
 * read, and refused (permanent `signature_invalid`) otherwise. Return codes become channel errors.
 */
export type KeyWithCert = { privateKeyPem: string; certPem: string };
export type SubscriberKeys = { signature: KeyWithCert; authentication: KeyWithCert; encryption: KeyWithCert };
export type BankCertificates = { authenticationCertPem: string; encryptionCertPem: string };

export type EbicsClientOptions = {
  url: string;
  subscriber: Subscriber;
  keys: SubscriberKeys;
  /** The bank's confirmed certificates (absent before HPB and the admin's confirmation). */
  bank?: BankCertificates | undefined;
  transport: SoapTransport;
  now: () => Date;
  /** Tries of one segment after a broken connection before the upload is given up (3 by default). */
  segmentTries?: number;
};

export type EbicsClient = ReturnType<typeof createEbicsClient>;

const ok = (code: string) => returnCodeInfo(code).class === 'ok';

export function createEbicsClient(options: EbicsClientOptions) {
  return {
    /** HEV: the protocol versions the bank speaks (an H005 answer is what this client needs). */
    async hev(): Promise<Array<{ protocol: string; version: string }>> {
      const answer = parseHevResponse(await post(options, 'HEV', hevRequest(options.subscriber.hostId)));
      if (!answer) throw new EbicsChannelError('bad_response', 'HEV: the answer is not an EBICS HEV response', true);
      if (!ok(answer.code)) throw returnCodeError('HEV', answer.code, answer.text);
      return answer.versions;
    },

    async ini(): Promise<{ orderId: string | null }> {
      const data = signaturePubKeyOrderData(options.subscriber, options.keys.signature.certPem);
      const parsed = await keyManagement(
        options,
        'INI',
        unsecuredRequest(options.subscriber, 'INI', deflateSync(data).toString('base64')),
      );
      return { orderId: parsed.orderId };
    },

    async hia(): Promise<{ orderId: string | null }> {
      const data = hiaRequestOrderData(
        options.subscriber,
        options.keys.authentication.certPem,
        options.keys.encryption.certPem,
      );
      const parsed = await keyManagement(
        options,
        'HIA',
        unsecuredRequest(options.subscriber, 'HIA', deflateSync(data).toString('base64')),
      );
      return { orderId: parsed.orderId };
    },

    /** HPB: the bank's certificates, to be confirmed by an admin against what the bank published. */
    async hpb(): Promise<BankKeys> {
      return hpbKeys(options);
    },

    /** BTU: one file, signed (A006), compressed, encrypted under a fresh key and sent in segments. */
    async upload(
      content: Buffer,
      btf: Btf,
      fileName: string,
    ): Promise<{ orderId: string | null; transactionId: string; segments: number }> {
      return uploadFile(options, content, btf, fileName);
    },

    /**
     * BTD (or HAC): the bank's next data of a format, all segments, decrypted; null when it has none.
     * The transaction stays open at the bank until `receipt`.
     */
    async download(what: Btf | 'HAC'): Promise<{ transactionId: string; data: Buffer } | null> {
      return downloadData(options, what);
    },

    /** The receipt phase: 0 once the data is committed (the bank will not offer it again), 1 to have it offered again. */
    async receipt(transactionId: string, code: 0 | 1): Promise<void> {
      await signedCall(options, 'receipt', receiptRequest(options.subscriber.hostId, transactionId, code));
    },

    protocol: PROTOCOL.version,
  };
}

const fresh = (options: EbicsClientOptions) => ({
  nonce: randomBytes(16).toString('hex').toUpperCase(),
  timestamp: options.now().toISOString(),
});

// The RSA operation off the event loop (docs/adr/0074): many uploads are signed at once.
const sign = (options: EbicsClientOptions, xml: string) =>
  signAuthenticatedAsync(xml, options.keys.authentication.privateKeyPem);

async function post(options: EbicsClientOptions, step: string, xml: string): Promise<string> {
  const res = await options.transport.post(options.url, xml);
  if (res.status !== 200) {
    throw new EbicsChannelError('bad_response', `${step}: the bank answered HTTP ${res.status}`, res.status >= 500);
  }
  return res.body;
}

function bankCerts(options: EbicsClientOptions, step: string): BankCertificates {
  if (!options.bank)
    throw new EbicsChannelError('invalid_config', `${step}: the bank's keys are not confirmed yet`, false);
  return options.bank;
}

/** A transaction step: the answer must be an ebicsResponse signed by the confirmed bank key. */
async function signedCall(options: EbicsClientOptions, step: string, xml: string): Promise<ParsedResponse> {
  const bank = bankCerts(options, step);
  const body = await post(options, step, await sign(options, xml));
  const parsed = parseResponse(body);
  if (parsed?.kind !== 'transaction') {
    throw new EbicsChannelError('bad_response', `${step}: the answer is not an EBICS 3.0 response`, true);
  }
  const verified = verifyAuthenticated(parsed.doc, bank.authenticationCertPem);
  if (!verified.ok) {
    throw new EbicsChannelError(
      'signature_invalid',
      `${step}: the bank's authentication signature ${verified.reason}`,
      false,
    );
  }
  if (!ok(parsed.technical.code)) throw returnCodeError(step, parsed.technical.code, parsed.technical.text);
  return parsed;
}

async function keyManagement(options: EbicsClientOptions, step: string, xml: string): Promise<ParsedResponse> {
  const parsed = parseResponse(await post(options, step, xml));
  if (parsed?.kind !== 'keyManagement') {
    throw new EbicsChannelError('bad_response', `${step}: the answer is not an EBICS key-management response`, true);
  }
  if (!ok(parsed.technical.code)) throw returnCodeError(step, parsed.technical.code, parsed.technical.text);
  if (!ok(parsed.business)) throw returnCodeError(step, parsed.business, '');
  return parsed;
}

function digests(options: EbicsClientOptions, step: string) {
  const bank = bankCerts(options, step);
  return {
    authentication: certificateHash(bank.authenticationCertPem),
    encryption: certificateHash(bank.encryptionCertPem),
  };
}

/** A transfer step tried again on a broken connection (same transaction, same segment: the bank takes it once). */
async function withRetries<T>(options: EbicsClientOptions, step: string, call: () => Promise<T>): Promise<T> {
  const tries = options.segmentTries ?? 3;
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      const transportFailure =
        error instanceof ChannelError && !(error instanceof EbicsChannelError) && error.retryable;
      if (!transportFailure || attempt >= tries) throw error;
    }
  }
}

/** HPB's answer: the bank's keys, decrypted and checked for this host. */
async function hpbKeys(options: EbicsClientOptions): Promise<BankKeys> {
  const parsed = await keyManagement(
    options,
    'HPB',
    await sign(options, hpbRequest(options.subscriber, fresh(options))),
  );
  if (!parsed.encryption || !parsed.orderDataB64)
    throw new EbicsChannelError('bad_response', 'HPB: the answer carries no keys', true);
  if (!parsed.encryption.digest.equals(certificateHash(options.keys.encryption.certPem))) {
    throw new EbicsChannelError('bad_response', 'HPB: the keys are encrypted for another subscriber key', false);
  }
  let keys: BankKeys | null;
  try {
    keys = parseHpbOrderData(
      openFor(options.keys.encryption.privateKeyPem, parsed.encryption.transactionKeyWrapped, [
        parsed.orderDataB64,
      ]).toString('utf8'),
    );
  } catch {
    keys = null;
  }
  if (!keys) throw new EbicsChannelError('bad_response', 'HPB: the bank keys cannot be read', false);
  if (keys.hostId !== options.subscriber.hostId)
    throw new EbicsChannelError(
      'bad_response',
      `HPB: keys of host ${keys.hostId}, not ${options.subscriber.hostId}`,
      false,
    );
  return keys;
}

/** BTU: the sealed file's initialisation and segments. */
async function uploadFile(
  options: EbicsClientOptions,
  content: Buffer,
  btf: Btf,
  fileName: string,
): Promise<{ orderId: string | null; transactionId: string; segments: number }> {
  const bank = bankCerts(options, 'BTU');
  const sealed = sealUpload({
    orderData: content,
    signer: { ...options.subscriber, signaturePrivateKeyPem: options.keys.signature.privateKeyPem },
    bankEncryptionCertPem: bank.encryptionCertPem,
    transactionKey: randomBytes(16),
    // The electronic signature's RSA operation off the event loop, as the X002 one (docs/adr/0074).
    signature: await a006SignAsync(options.keys.signature.privateKeyPem, content),
  });
  const order: OrderParams = { adminOrderType: 'BTU', btf, fileName };
  const init = await signedCall(
    options,
    'BTU',
    initialisationRequest(options.subscriber, fresh(options), digests(options, 'BTU'), order, sealed.init),
  );
  if (!ok(init.business)) throw returnCodeError('BTU', init.business, '');
  const transactionId = init.transactionId;
  if (!transactionId) throw new EbicsChannelError('bad_response', 'BTU: the bank gave no transaction id', true);
  let orderId = init.orderId;
  for (let i = 0; i < sealed.segments.length; i++) {
    const segment = { number: i + 1, last: i === sealed.segments.length - 1 };
    const step = `BTU segment ${segment.number}/${sealed.segments.length}`;
    const answer = await withRetries(options, step, () =>
      signedCall(options, step, transferRequest(options.subscriber.hostId, transactionId, segment, sealed.segments[i])),
    );
    if (!ok(answer.business)) throw returnCodeError(step, answer.business, '');
    orderId = answer.orderId ?? orderId;
  }
  return { orderId, transactionId, segments: sealed.segments.length };
}

/** BTD or HAC: initialisation, the further segments, decryption. */
async function downloadData(
  options: EbicsClientOptions,
  what: Btf | 'HAC',
): Promise<{ transactionId: string; data: Buffer } | null> {
  const step = what === 'HAC' ? 'HAC' : `BTD ${what.messageName}`;
  const order: OrderParams = what === 'HAC' ? { adminOrderType: 'HAC' } : { adminOrderType: 'BTD', btf: what };
  const init = await signedCall(
    options,
    step,
    initialisationRequest(options.subscriber, fresh(options), digests(options, step), order),
  );
  if (init.business === '090005') return null;
  if (!ok(init.business)) throw returnCodeError(step, init.business, '');
  const transactionId = init.transactionId;
  if (!transactionId || !init.encryption || init.orderDataB64 === null || !init.numSegments) {
    throw new EbicsChannelError('bad_response', `${step}: the answer carries no data`, true);
  }
  if (!init.encryption.digest.equals(certificateHash(options.keys.encryption.certPem))) {
    throw new EbicsChannelError('bad_response', `${step}: the data is encrypted for another subscriber key`, false);
  }
  const segments = [init.orderDataB64];
  for (let n = 2; n <= init.numSegments; n++) {
    const part = await withRetries(options, step, () =>
      signedCall(
        options,
        step,
        transferRequest(options.subscriber.hostId, transactionId, { number: n, last: n === init.numSegments }),
      ),
    );
    segments.push(part.orderDataB64 ?? '');
  }
  try {
    return {
      transactionId,
      data: openFor(options.keys.encryption.privateKeyPem, init.encryption.transactionKeyWrapped, segments),
    };
  } catch (error) {
    throw new EbicsChannelError('bad_response', `${step}: the data cannot be decrypted`, false, { cause: error });
  }
}
