import type { DeliveredFile } from '../../domain/demo-bank/index.ts';
import {
  type StateStore as GenericStore,
  loadState as loadStateFile,
  stateStore as stateFileStore,
} from '../state-file.ts';

/**
 * What the simulated EBICS bank remembers across restarts (written to its state file after every
 * change when it has one): its keys, its subscribers with their certificates and state, their files,
 * and the nonces it has seen. Open transactions live in memory only: a restart aborts them, as a
 * bank's would after its timeout.
 */
export type KeyWithCert = { privateKeyPem: string; certPem: string };

/**
 * A subscriber's state at the bank (Implementation Guide 4.4): `new` until INI and HIA arrive,
 * `initialised` once both are in (the letter is awaited), `ready` once the bank accepted the letter,
 * `suspended` when the bank locked it.
 */
export type SubscriberState = 'new' | 'ini-received' | 'hia-received' | 'initialised' | 'ready' | 'suspended';

export type Subscriber = {
  partnerId: string;
  userId: string;
  state: SubscriberState;
  certs: { signature: string | null; authentication: string | null; encryption: string | null };
  /** When INI and HIA were both in: the sandbox accepts the letter by itself some seconds later. */
  initialisedAt: string | null;
};

export type BankFileKind = 'statement' | 'report' | 'notification' | 'status' | 'hac';

export type BankFile = {
  id: string;
  partnerId: string;
  userId: string;
  kind: BankFileKind;
  content: string;
  createdAt: string;
  /** Set by a positive receipt: the file is not offered again. */
  deliveredAt: string | null;
  downloads: number;
};

export type Upload = {
  orderId: string;
  partnerId: string;
  userId: string;
  fileName: string | null;
  content: string;
  receivedAt: string;
};

/** Transactions the bank booked and has not yet reported in a statement (bank-files.ts, statementsDue). */
export type Booking = { partnerId: string; userId: string; orderId: string; delivered: DeliveredFile; at: string };

export type EbicsBankState = {
  hostId: string;
  tls: KeyWithCert & { caPem: string };
  bank: { authentication: KeyWithCert; encryption: KeyWithCert };
  /** The keys before the last change: the key-change refusal is signed with them. */
  previousBank?: { authentication: KeyWithCert; encryption: KeyWithCert } | undefined;
  /** A key pair that is not the bank's (the `sign-with-other-key` fault). */
  impostor: KeyWithCert;
  subscribers: Subscriber[];
  files: BankFile[];
  uploads: Upload[];
  /** Absent in a state file written before bookings were kept apart from statements. */
  bookings?: Booking[] | undefined;
  /** Nonces inside the replay window, with their timestamps. */
  nonces: Array<{ nonce: string; at: string }>;
  sequence: number;
};

export type StateStore = GenericStore<EbicsBankState>;

export const loadState = (file: string | undefined) => loadStateFile<EbicsBankState>(file);
export const stateStore = (state: EbicsBankState, file: string | undefined): StateStore => stateFileStore(state, file);
