import { randomInt } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { FAMILY_PROTOCOLS, type WsFamily } from '../../domain/fi-ws/families.ts';
import { parseSoap, soapFaultXml } from '../../domain/fi-ws/soap.ts';
import { issueCertificate, newCertificateAuthority, newKeyPair } from '../../platform/x509.ts';
import { handleCertificateRequest } from './cert-service.ts';
import { handleFileRequest } from './file-service.ts';
import type { SimulatorContext, SimulatorFault } from './respond.ts';
import { type Activation, type BankFile, loadState, type SimulatorState, stateStore } from './state.ts';

/**
 * A simulated Finnish web-services bank (DESIGN.md, Bank connectivity): the bank side of the protocol
 * over real HTTPS, for one family. Product code, not a test double: a sandbox deployment runs one per
 * family and points its test-environment `op` and `nordea-fi` connections at them, and the tests talk
 * to them exactly as the service talks to a bank.
 *
 * - Certificate service with its own CA: enrols a customer with the one-time transfer key (family A) or
 *   the SMS activation code (family B) it issued, and renews with a valid certificate.
 * - File service: verifies the customer's signatures, takes pain.001 uploads and answers each with a
 *   pain.002 and a camt.053 (the demo bank's rules, REJECT:<code> included), lists and serves files,
 *   and signs every answer with the bank's signing certificate.
 * - Its TLS certificate comes from the same CA (`caPem` is what a client trusts).
 */
export type WsBankSimulatorOptions = {
  family: WsFamily;
  bankKey: string;
  fileTypes: { paymentUpload: string; statusDownload: string; statementDownload: string };
  host?: string;
  port?: number;
  /** Where the simulator keeps its CA, keys, activations and files across restarts; memory only without. */
  stateFile?: string;
  now?: () => Date;
};

export type WsBankSimulator = {
  family: WsFamily;
  bankKey: string;
  fileServiceUrl: string;
  certServiceUrl: string;
  /** The CA that issued the TLS, bank-signing and customer certificates. */
  caPem: string;
  bankCertPem: string;
  /** Family A: a one-time 16-digit transfer key for a 10-digit user id. */
  issueTransferKey(userId: string, options?: { validDays?: number }): { userId: string; pin: string };
  /** Family B: a 10-digit activation code (valid 7 days unless told) for a signer of the agreement. */
  issueActivationCode(input: { signerId: string; holderName: string; country: string; validDays?: number }): {
    holderName: string;
    signerId: string;
    country: string;
    activationCode: string;
  };
  injectFault(fault: SimulatorFault): void;
  /** What the bank holds for a customer (uploads and files written for it), for inspection. */
  files(customerId: string): BankFile[];
  close(): Promise<void>;
};

const DAY_MS = 86_400_000;
const BODY_LIMIT = 16 * 1024 * 1024;

function digits(n: number): string {
  let out = '';
  for (let i = 0; i < n; i++) out += String(randomInt(10));
  return out;
}

async function freshState(family: WsFamily, bankKey: string, now: Date): Promise<SimulatorState> {
  // TLS peers check validity against the wall clock, the simulator's own checks against its clock
  // (a test's): the bank's certificates cover both.
  const notBefore = new Date(Math.min(now.getTime(), Date.now()) - DAY_MS);
  now = new Date(Math.max(now.getTime(), Date.now()));
  const ca = await newCertificateAuthority({
    subject: `CN=${bankKey} simulator CA (family ${family}), O=payops bank simulator, C=FI`,
    notBefore,
    notAfter: new Date(now.getTime() + 20 * 365 * DAY_MS),
  });
  const signing = await newKeyPair();
  const tls = await newKeyPair();
  const impostor = await newKeyPair();
  const until = new Date(now.getTime() + 10 * 365 * DAY_MS);
  return {
    ca,
    bankSigning: {
      ...signing,
      certPem: await issueCertificate(ca, {
        subject: `CN=${bankKey} simulator signing, O=payops bank simulator, C=FI`,
        publicKeyPem: signing.publicKeyPem,
        notBefore,
        notAfter: until,
      }),
    },
    tls: {
      ...tls,
      certPem: await issueCertificate(ca, {
        subject: `CN=localhost, O=payops bank simulator, C=FI`,
        publicKeyPem: tls.publicKeyPem,
        notBefore,
        notAfter: until,
        tlsServer: { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1', '::1'] },
      }),
    },
    impostor: {
      ...impostor,
      certPem: await issueCertificate(ca, {
        subject: `CN=${bankKey} impostor, C=FI`,
        publicKeyPem: impostor.publicKeyPem,
        notBefore,
        notAfter: until,
      }),
    },
    activations: [],
    clients: [],
    files: [],
    sequence: 0,
  };
}

export async function startWsBankSimulator(options: WsBankSimulatorOptions): Promise<WsBankSimulator> {
  const now = options.now ?? (() => new Date());
  const protocol = FAMILY_PROTOCOLS[options.family];
  const state = loadState(options.stateFile) ?? (await freshState(options.family, options.bankKey, now()));
  const store = stateStore(state, options.stateFile);
  store.save();
  const sim: SimulatorContext = {
    family: options.family,
    bankKey: options.bankKey,
    protocol,
    store,
    now,
    fileTypes: options.fileTypes,
    faults: [],
    otherSigner: {
      privateKeyPem: state.impostor.privateKeyPem,
      certPem: state.impostor.certPem,
      algorithms: protocol.signature,
    },
  };
  const certPath = options.family === 'A' ? '/services/OPCertificateService' : '/services/CertificateService';
  const filePath = '/services/CorporateFileService';

  const server: Server = createServer({ key: state.tls.privateKeyPem, cert: state.tls.certPem }, (req, res) => {
    const send = (status: number, xml: string) => {
      res.writeHead(status, { 'content-type': 'text/xml; charset=UTF-8' });
      res.end(xml);
    };
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'POST' || (path !== certPath && path !== filePath)) {
      send(404, soapFaultXml('soapenv:Client', 'No such service'));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_LIMIT) {
        send(413, soapFaultXml('soapenv:Client', 'Message too large'));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => {
      if (res.headersSent) return;
      const xml = Buffer.concat(chunks).toString('utf8');
      const soap = parseSoap(xml);
      if (soap?.kind !== 'message') {
        send(500, soapFaultXml('soapenv:Client', 'The message is not a SOAP 1.1 request'));
        return;
      }
      const answer =
        path === certPath
          ? handleCertificateRequest(sim, soap, xml)
          : Promise.resolve(handleFileRequest(sim, soap, xml));
      answer.then(
        (body) => send(200, body),
        () => send(500, soapFaultXml('soapenv:Server', 'Technical error')),
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const base = `https://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;

  function addActivation(activation: Omit<Activation, 'issuedAt' | 'usedAt'>): void {
    // A new key or code replaces any unused one for the same customer.
    state.activations = state.activations.filter((a) => a.customerId !== activation.customerId || a.usedAt !== null);
    state.activations.push({ ...activation, issuedAt: now().toISOString(), usedAt: null });
    store.save();
  }

  return {
    family: options.family,
    bankKey: options.bankKey,
    fileServiceUrl: `${base}${filePath}`,
    certServiceUrl: `${base}${certPath}`,
    caPem: state.ca.certPem,
    bankCertPem: state.bankSigning.certPem,
    issueTransferKey(userId, opts = {}) {
      const pin = digits(16);
      addActivation({
        customerId: userId,
        secret: pin,
        expiresAt: new Date(now().getTime() + (opts.validDays ?? 90) * DAY_MS).toISOString(),
      });
      return { userId, pin };
    },
    issueActivationCode(input) {
      const activationCode = digits(10);
      addActivation({
        customerId: input.signerId,
        secret: activationCode,
        holderName: input.holderName,
        country: input.country,
        expiresAt: new Date(now().getTime() + (input.validDays ?? 7) * DAY_MS).toISOString(),
      });
      return { holderName: input.holderName, signerId: input.signerId, country: input.country, activationCode };
    },
    injectFault: (fault) => void sim.faults.push(fault),
    files: (customerId) => state.files.filter((f) => f.customerId === customerId),
    close: () =>
      new Promise<void>((resolve) => {
        store.flush();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
