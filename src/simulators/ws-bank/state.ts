import type { CertificateAuthority, KeyPairPem } from '../../platform/x509.ts';
import {
  type StateStore as GenericStore,
  loadState as loadStateFile,
  stateStore as stateFileStore,
} from '../state-file.ts';

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

export type StateStore = GenericStore<SimulatorState>;

export const loadState = (file: string | undefined) => loadStateFile<SimulatorState>(file);
export const stateStore = (state: SimulatorState, file: string | undefined): StateStore => stateFileStore(state, file);
