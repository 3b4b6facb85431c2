import type { DemoBankCustomer } from '../../channels/demo.ts';

/** A file the bank received, as it keeps it. */
export type ReceivedRow = {
  fileName: string;
  documentId: string;
  /** What the bank read of the pain.001 (a DeliveredFile), null when it could not read it. */
  delivered: unknown;
};

/** A received file whose answers are due, as handed out. */
export type DueRow = {
  fileName: string;
  documentId: string;
  replyAt: Date;
  delivered: unknown;
  /** The statement booking the file (fixed the first time it is handed out). */
  issuedAs: string | null;
  /** Handed out before this time (its statement was fixed then). */
  reissued: boolean;
};

/**
 * Where the demo bank keeps what it received and what it answered (the composition root wires it to
 * the database, src/main/demo-bank.ts). Durable: a bank that restarts still answers every file once.
 */
export type DemoBankStore = {
  /**
   * Records received files (by file name: a repeat only counts a receipt) and, for each first
   * receipt, says in the same commit that its answers are due at `replyAt` (the bank's notice to the
   * service that files await pickup). Answers whether each name was new.
   */
  receive(
    customer: DemoBankCustomer,
    rows: ReceivedRow[],
    at: { now: Date; replyAt: Date },
  ): Promise<Map<string, boolean>>;
  /** The due answers nobody holds, leased until `leaseUntil`; `issue` names the statement of each new one. */
  claim(
    customer: DemoBankCustomer,
    at: { now: Date; leaseUntil: Date; limit: number },
    issue: (fresh: Omit<DueRow, 'reissued'>[]) => Map<string, string>,
  ): Promise<DueRow[]>;
  /** Every file a statement books (to write it again byte for byte). */
  issuedAs(customer: DemoBankCustomer, statementIds: string[]): Promise<DueRow[]>;
  /** The answers of these documents' files were collected: their pain.002 and the statement booking them. */
  answered(
    customer: DemoBankCustomer,
    collected: { documentIds: string[]; statements: string[] },
    at: Date,
  ): Promise<void>;
};
