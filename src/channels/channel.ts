/**
 * A bank delivery channel (DESIGN.md, src/channels): how a file reaches the bank and how the bank's
 * files (pain.002, statements) come back. Every channel is idempotent on `fileName`: delivering the
 * same file twice (a retried job) must not give the bank two payments.
 */
export type OutboundFile = {
  /** Unique per document: retries reuse it, so the bank side can recognise a repeat. */
  fileName: string;
  content: string;
  documentId: string;
  messageId: string | null;
};

export type DeliveryReceipt = {
  channel: string;
  reference: string;
  alreadyDelivered: boolean;
  /** What the channel can show about the delivery (how it was signed, the bank's status ...). */
  evidence?: Record<string, unknown>;
};

export type InboundFile = { name: string; content: Uint8Array };

/** A file the bank lists by its own reference (web services). */
export type InboundFileRef = { reference: string; fileType: string; createdAt: string | null };

export interface BankChannel {
  readonly kind: string;
  /** Sends one file; throws on failure (the delivery job retries with backoff). */
  deliver(file: OutboundFile): Promise<DeliveryReceipt>;
  /**
   * How many `deliver` calls of one session may be under way at once, each a different file: 1 when
   * absent (one file after another). A bank that takes parallel orders on one connection (EBICS:
   * each upload is a transaction of its own) sets more (docs/adr/0074).
   */
  readonly deliveriesInFlight?: number;
  /**
   * Sends several files at once where the bank takes a batch (the demo bank: one commit for them
   * all): a receipt per file, in order; throws when none was taken (the batch is retried whole,
   * each file recognised by its name).
   */
  deliverMany?(files: OutboundFile[]): Promise<DeliveryReceipt[]>;
  /** Files the bank has written for us since the last acknowledged pickup. */
  fetchInbound(): Promise<InboundFile[]>;
  /** Marks a fetched file as processed so it is not picked up again. */
  acknowledge(file: InboundFile): Promise<void>;
  /** The same for several files at once, where the bank takes them together (the demo bank: one commit). */
  acknowledgeMany?(files: InboundFile[]): Promise<void>;
  close(): Promise<void>;
  /**
   * Connects once as a delivery would (the bank's key or certificate, our credentials) and throws
   * the ChannelError a delivery would meet: what saving a connection's settings tries.
   */
  check?(): Promise<void>;
  /**
   * Channels whose bank keeps its files listed by reference (web services): the pickup lists them,
   * skips the references it has taken before, and downloads the rest one at a time.
   */
  listInbound?(): Promise<InboundFileRef[]>;
  download?(ref: InboundFileRef): Promise<InboundFile>;
}
