import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { certificateHash } from '../../domain/ebics/crypto.ts';
import { issueCertificate, newCertificateAuthority, newKeyPair, newSelfSignedKey } from '../../platform/x509.ts';
import { type BankContext, type Fault, finishAnswer, handleRequest } from './bank.ts';
import { type BankFile, type EbicsBankState, loadState, type Subscriber, stateStore, type Upload } from './state.ts';

/**
 * A simulated EBICS 3.0 bank (DESIGN.md, EBICS 3.0): the bank side of H005 over real HTTPS, product
 * code like the web-services simulators. A sandbox deployment runs one per EBICS bank and points its
 * test-environment connections at it; the tests talk to it as the service talks to a bank. Its TLS
 * certificate comes from its own CA (`caPem` is what a client trusts); its EBICS keys (X002, E002) are
 * self-signed certificates, as EBICS 3.0 banks publish them.
 */
export type EbicsBankSimulatorOptions = {
  bankKey: string;
  hostId: string;
  host?: string;
  port?: number;
  stateFile?: string;
  now?: () => Date;
  /** Schema check of every request (the tests pass the official XSDs through xmllint). */
  validate?: (xml: string) => string[];
  /** The sandbox bank accepts the initialisation letter by itself this long after HIA. */
  acceptLetterAfterMs?: number;
  /** Accepted difference between a request's timestamp and the bank's clock (15 minutes by default). */
  timestampWindowMs?: number;
};

export type EbicsBankSimulator = {
  bankKey: string;
  hostId: string;
  url: string;
  caPem: string;
  /** SHA-256 of the bank's certificates, as its letter to the customer prints them. */
  bankKeyHashes(): { authentication: string; encryption: string };
  /** A subscriber the bank set up for a customer (state `new`). */
  addSubscriber(ids: { partnerId: string; userId: string }): void;
  subscriber(ids: { partnerId: string; userId: string }): Subscriber | undefined;
  /** The bank compared the letter with the keys received: the subscriber becomes ready. */
  acceptLetter(ids: { partnerId: string; userId: string }): void;
  suspend(ids: { partnerId: string; userId: string }): void;
  /** New bank keys (a key change): requests with the old digests get EBICS_BANK_PUBKEY_UPDATE_REQUIRED. */
  changeBankKeys(): Promise<void>;
  injectFault(fault: Fault): void;
  files(ids: { partnerId: string; userId: string }): BankFile[];
  uploads(ids: { partnerId: string; userId: string }): Upload[];
  close(): Promise<void>;
};

const DAY_MS = 86_400_000;
const BODY_LIMIT = 16 * 1024 * 1024;
export const EBICS_PATH = '/ebicsweb/ebicsweb';

async function bankKeys(bankKey: string, now: Date) {
  const notBefore = new Date(now.getTime() - DAY_MS);
  const notAfter = new Date(now.getTime() + 5 * 365 * DAY_MS);
  const subject = (role: string) => `CN=${bankKey} EBICS ${role}, O=payops bank simulator, C=DE`;
  return {
    authentication: await newSelfSignedKey({ subject: subject('X002'), notBefore, notAfter, usage: 'authentication' }),
    encryption: await newSelfSignedKey({ subject: subject('E002'), notBefore, notAfter, usage: 'encryption' }),
  };
}

async function freshState(bankKey: string, hostId: string, now: Date): Promise<EbicsBankState> {
  const wall = new Date(Math.max(now.getTime(), Date.now()));
  const notBefore = new Date(Math.min(now.getTime(), Date.now()) - DAY_MS);
  const ca = await newCertificateAuthority({
    subject: `CN=${bankKey} EBICS simulator CA, O=payops bank simulator, C=DE`,
    notBefore,
    notAfter: new Date(wall.getTime() + 20 * 365 * DAY_MS),
  });
  const tls = await newKeyPair();
  const tlsCert = await issueCertificate(ca, {
    subject: 'CN=localhost, O=payops bank simulator, C=DE',
    publicKeyPem: tls.publicKeyPem,
    notBefore,
    notAfter: new Date(wall.getTime() + 10 * 365 * DAY_MS),
    tlsServer: { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1', '::1'] },
  });
  return {
    hostId,
    tls: { privateKeyPem: tls.privateKeyPem, certPem: tlsCert, caPem: ca.certPem },
    bank: await bankKeys(bankKey, notBefore),
    impostor: await newSelfSignedKey({
      subject: `CN=${bankKey} impostor, C=DE`,
      notBefore,
      notAfter: new Date(wall.getTime() + 365 * DAY_MS),
      usage: 'authentication',
    }),
    subscribers: [],
    files: [],
    uploads: [],
    nonces: [],
    sequence: 0,
  };
}

export async function startEbicsBankSimulator(options: EbicsBankSimulatorOptions): Promise<EbicsBankSimulator> {
  const now = options.now ?? (() => new Date());
  const state = loadState(options.stateFile) ?? (await freshState(options.bankKey, options.hostId, now()));
  const store = stateStore(state, options.stateFile);
  store.save();
  const bank: BankContext = {
    store,
    now,
    faults: [],
    validate: options.validate,
    acceptLetterAfterMs: options.acceptLetterAfterMs,
    timestampWindowMs: options.timestampWindowMs ?? 15 * 60_000,
    transactions: new Map(),
  };
  const server: Server = createServer({ key: state.tls.privateKeyPem, cert: state.tls.certPem }, (req, res) => {
    if (req.method !== 'POST' || (req.url ?? '').split('?')[0] !== EBICS_PATH) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not an EBICS endpoint');
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_LIMIT) {
        res.writeHead(413).end();
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => {
      if (res.headersSent) return;
      let answer: ReturnType<typeof handleRequest>;
      try {
        answer = handleRequest(bank, Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(500, { 'content-type': 'text/plain' }).end('internal error');
        return;
      }
      finishAnswer(answer).then(
        (sent) => {
          if ('drop' in sent) {
            req.socket.destroy();
            return;
          }
          res.writeHead(200, { 'content-type': 'text/xml; charset=UTF-8' }).end(sent.xml);
        },
        () => res.writeHead(500, { 'content-type': 'text/plain' }).end('internal error'),
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const base = `https://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
  const find = (ids: { partnerId: string; userId: string }) =>
    state.subscribers.find((s) => s.partnerId === ids.partnerId && s.userId === ids.userId);
  const hash = (pem: string) => certificateHash(pem).toString('hex').toUpperCase();
  const mine = (ids: { partnerId: string; userId: string }) => (f: { partnerId: string; userId: string }) =>
    f.partnerId === ids.partnerId && f.userId === ids.userId;

  return {
    bankKey: options.bankKey,
    hostId: state.hostId,
    url: `${base}${EBICS_PATH}`,
    caPem: state.tls.caPem,
    bankKeyHashes: () => ({
      authentication: hash(state.bank.authentication.certPem),
      encryption: hash(state.bank.encryption.certPem),
    }),
    addSubscriber(ids) {
      if (find(ids)) return;
      state.subscribers.push({
        ...ids,
        state: 'new',
        certs: { signature: null, authentication: null, encryption: null },
        initialisedAt: null,
      });
      store.save();
    },
    subscriber: find,
    acceptLetter(ids) {
      const sub = find(ids);
      if (sub?.state === 'initialised') sub.state = 'ready';
      store.save();
    },
    suspend(ids) {
      const sub = find(ids);
      if (sub) sub.state = 'suspended';
      store.save();
    },
    async changeBankKeys() {
      state.previousBank = state.bank;
      state.bank = await bankKeys(options.bankKey, now());
      store.save();
    },
    injectFault: (fault) => void bank.faults.push(fault),
    files: (ids) => state.files.filter(mine(ids)),
    uploads: (ids) => state.uploads.filter(mine(ids)),
    close: () =>
      new Promise<void>((resolve) => {
        store.flush();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
