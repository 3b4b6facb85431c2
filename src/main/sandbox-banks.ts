import { randomInt } from 'node:crypto';
import path from 'node:path';
import type { SandboxActivation, SandboxBanks } from '../app/sandbox/sandbox-banks.ts';
import { fileTypesOf, webServicesProfile } from '../domain/banks/connectivity.ts';
import type { Logger } from '../platform/logger.ts';
import { type EbicsBankSimulator, startEbicsBankSimulator } from '../simulators/ebics-bank/server.ts';
import { startWsBankSimulator, type WsBankSimulator } from '../simulators/ws-bank/server.ts';
import type { SimulatorEndpoints } from './channels.ts';

/** The banks a sandbox deployment simulates: one of each web-services family, and the EBICS banks. */
const SIMULATED = ['op', 'nordea-fi'] as const;
const EBICS_SIMULATED: Record<string, string> = { 'deutsche-bank-de': 'DEUTDEFFSIM', 'commerzbank-de': 'COBADEFFSIM' };
/** The sandbox's EBICS bank accepts the initialisation letter by itself this long after HIA. */
const LETTER_ACCEPTED_AFTER_MS = 3_000;

export type RunningSandboxBanks = SandboxBanks & {
  /** Resolves once every simulator listens. */
  ready(): Promise<void>;
  endpoints(bankKey: string): SimulatorEndpoints | undefined;
  simulator(bankKey: string): WsBankSimulator | undefined;
  ebics(bankKey: string): { url: string; caPem: string } | undefined;
  ebicsSimulator(bankKey: string): EbicsBankSimulator | undefined;
  close(): Promise<void>;
};

function digits(n: number): string {
  let out = String(1 + randomInt(9));
  while (out.length < n) out += String(randomInt(10));
  return out;
}

/** Nordea wants the agreement's name as written there: capitals, at most 64 characters, no legal-form suffix. */
function holderNameOf(companyName: string): string {
  const name = companyName
    .toUpperCase()
    .replace(/\b(OY|OYJ|AB|AS|LTD|GMBH)\b\.?/g, '')
    .replace(/[^A-Z0-9ÅÄÖ &.-]/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 64);
  return name || 'SANDBOX COMPANY';
}

/**
 * Starts the sandbox's bank simulators (SANDBOX=true): OP (family A) and Nordea (family B) over HTTPS
 * on loopback, each on a free port, their CA, keys, issued activations and files kept under
 * `stateDir` so a restart keeps every enrolled certificate valid and every pinned bank certificate
 * the same. Test-environment `op` and `nordea-fi` connections are pointed at them, and those of the
 * EBICS banks (`deutsche-bank-de`, `commerzbank-de`) at an EBICS 3.0 simulator each, which accepts the
 * initialisation letter by itself a few seconds after HIA.
 *
 * They start beside the service, not before it: a first start makes their CAs and keys (eight RSA
 * keys), which must not delay /health. Until they are up, issuing an activation waits for them and a
 * channel call finds no simulator (a retryable error: the delivery job tries again).
 */
export function startSandboxBanks(options: {
  stateDir?: string | undefined;
  now?: () => Date;
  logger: Logger;
}): RunningSandboxBanks {
  const running = new Map<string, WsBankSimulator>();
  const ebics = new Map<string, EbicsBankSimulator>();
  const started = (async () => {
    for (const [bankKey, hostId] of Object.entries(EBICS_SIMULATED)) {
      ebics.set(
        bankKey,
        await startEbicsBankSimulator({
          bankKey,
          hostId,
          acceptLetterAfterMs: LETTER_ACCEPTED_AFTER_MS,
          ...(options.stateDir ? { stateFile: path.join(options.stateDir, `ebics-${bankKey}.json`) } : {}),
          ...(options.now ? { now: options.now } : {}),
        }),
      );
    }
    for (const bankKey of SIMULATED) {
      const ws = webServicesProfile(bankKey);
      const fileTypes = fileTypesOf(bankKey);
      if (!ws || !fileTypes) continue;
      const sim = await startWsBankSimulator({
        family: ws.family,
        bankKey,
        fileTypes,
        ...(options.stateDir ? { stateFile: path.join(options.stateDir, `${bankKey}.json`) } : {}),
        ...(options.now ? { now: options.now } : {}),
      });
      running.set(bankKey, sim);
    }
    options.logger.info(
      { simulators: [...running.values()].map((s) => ({ bankKey: s.bankKey, fileService: s.fileServiceUrl })) },
      'sandbox bank simulators started',
    );
  })();
  started.catch((err: unknown) => options.logger.error({ err }, 'sandbox bank simulators failed to start'));

  return {
    ready: () => started,
    simulates: (bankKey) => (SIMULATED as readonly string[]).includes(bankKey) || bankKey in EBICS_SIMULATED,
    simulator: (bankKey) => running.get(bankKey),
    ebicsSimulator: (bankKey) => ebics.get(bankKey),
    ebics(bankKey) {
      const sim = ebics.get(bankKey);
      return sim ? { url: sim.url, caPem: sim.caPem } : undefined;
    },
    publishedBankKeys: (bankKey) => ebics.get(bankKey)?.bankKeyHashes(),
    endpoints(bankKey) {
      const sim = running.get(bankKey);
      return sim
        ? { fileServiceUrl: sim.fileServiceUrl, certServiceUrl: sim.certServiceUrl, caPem: sim.caPem }
        : undefined;
    },
    async issueActivation(bankKey, company): Promise<SandboxActivation> {
      await started;
      const bank = ebics.get(bankKey);
      if (bank) {
        // The bank sets up the subscriber of a new EBICS contract and names it in its letter.
        const ids = { partnerId: `P${digits(8)}`, userId: `U${digits(8)}` };
        bank.addSubscriber(ids);
        return { family: 'C', hostId: bank.hostId, ...ids };
      }
      const sim = running.get(bankKey);
      if (!sim) throw new Error(`no ${bankKey} simulator runs here`);
      if (sim.family === 'A') return { family: 'A', ...sim.issueTransferKey(digits(10)) };
      return {
        family: 'B',
        ...sim.issueActivationCode({ signerId: digits(8), holderName: holderNameOf(company.name), country: 'FI' }),
      };
    },
    async close() {
      await started.catch(() => {});
      await Promise.all([...running.values(), ...ebics.values()].map((s) => s.close()));
    },
  };
}
