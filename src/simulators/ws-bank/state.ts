import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CertificateAuthority, KeyPairPem } from '../../platform/x509.ts';

/**
 * What a simulated bank remembers: its CA and keys, the activations it issued, the certificates it
 * gave out, and each customer's files. Kept in memory, and written to `file` after every change when
 * the simulator has one (a sandbox deployment keeps it under DATA_DIR so a restart changes nothing).
 */
export type Activation = {
  customerId: string;
  /** Family A: the 16-digit transfer key; family B: the 10-digit SMS activation code. */
  secret: string;
  /** Family B: the names the certificate must carry. */
  holderName?: string;
  country?: string;
  issuedAt: string;
  expiresAt: string;
  usedAt: string | null;
};

export type IssuedClient = { customerId: string; serialNumber: string; notAfter: string; certPem: string };

export type BankFile = {
  fileReference: string;
  customerId: string;
  /** `upload`: a file the customer sent; `download`: one the bank wrote for the customer. */
  direction: 'upload' | 'download';
  fileType: string;
  userFilename: string | null;
  timestamp: string;
  status: 'NEW' | 'DOWNLOADED' | 'ACK';
  content: string;
  downloads: number;
};

export type SimulatorState = {
  ca: CertificateAuthority;
  bankSigning: KeyPairPem & { certPem: string };
  tls: KeyPairPem & { certPem: string };
  /** A certificate of the same CA that is not the bank's signing one (the `sign-with-other-certificate` fault). */
  impostor: KeyPairPem & { certPem: string };
  activations: Activation[];
  clients: IssuedClient[];
  files: BankFile[];
  sequence: number;
};

export type StateStore = {
  state: SimulatorState;
  save(): void;
};

export function loadState(file: string | undefined): SimulatorState | undefined {
  if (!file) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as SimulatorState;
  } catch {
    return undefined;
  }
}

export function stateStore(state: SimulatorState, file: string | undefined): StateStore {
  return {
    state,
    save() {
      if (!file) return;
      mkdirSync(path.dirname(file), { recursive: true });
      const temp = `${file}.${process.pid}.tmp`;
      writeFileSync(temp, JSON.stringify(state), { mode: 0o600 });
      renameSync(temp, file);
    },
  };
}
