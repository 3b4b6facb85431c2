/**
 * The normalised shapes every inbound parser produces (contract: ../shared/spec/interface.md,
 * "Normalised statement" and "Normalised payment status report"). Amounts are exact decimal strings;
 * a field a file does not carry is `null`, never absent, so every object of a kind has one shape.
 */

export type Direction = 'credit' | 'debit';

export type Balance = {
  /** ISO code (OPBD, CLBD, PRCD, ITBD, CLAV, ...) or the MT940 tag name (60F, 62M, 64, 65, ...). */
  type: string;
  amount: string;
  currency: string;
  direction: Direction;
  date: string | null;
  creditLineIncluded: boolean;
  creditLineAmount: string | null;
};

export type EntrySummary = {
  totalCount: number;
  /** Sum of the absolute entry amounts. */
  totalSum: string;
  /** Net amount (credits - debits), as an absolute value, with its direction. */
  totalNet: string;
  totalDirection: Direction;
  creditCount: number;
  creditSum: string;
  debitCount: number;
  debitSum: string;
  /** `file` when taken from TxsSummry / :90C:/:90D:, `computed` when summed from the entries. */
  source: 'file' | 'computed';
};

export type ReferredDocument = { type: string | null; number: string | null; date: string | null };

export type StatementTransaction = {
  /** Position of the booked entry (Ntry / :61:) in its statement; transactions split from one batch share it. */
  entryIndex: number;
  /** Bank reference of the entry: AcctSvcrRef in camt, the `//` bank reference of :61: in MT940. */
  bankRef: string | null;
  /** AcctSvcrRef of the transaction itself when the bank gives one per TxDtls. */
  acctSvcrRef: string | null;
  entryRef: string | null;
  endToEndId: string | null;
  instructionId: string | null;
  transactionId: string | null;
  paymentInfoId: string | null;
  mandateId: string | null;
  amount: string | null;
  currency: string;
  /**
   * What this transaction did to the account: camt TxDtls/CdtDbtInd when the detail has one, else the
   * entry's. A batch that nets credits and debits (returns, sweeps) has transactions of both directions
   * in one entry; matching a payment needs each one's own. The entry's is `entryDirection`.
   */
  direction: Direction;
  /** Entry amount (for a batch, the batch total) in `entryCurrency`; the transaction's own share is `amount`. */
  entryAmount: string;
  entryCurrency: string;
  /** Direction of the entry (Ntry/CdtDbtInd, :61: mark) the transaction belongs to: the one balances add up with. */
  entryDirection: Direction;
  batch: { messageId: string | null; paymentInfoId: string | null; count: number | null; total: string | null } | null;
  reversal: boolean;
  /** booked, pending, info (camt Sts) - MT940 entries are booked, MT942 entries pending. */
  status: string;
  bookingDate: string | null;
  valueDate: string | null;
  counterpartyName: string | null;
  counterpartyIban: string | null;
  counterpartyAccount: string | null;
  counterpartyBic: string | null;
  counterpartyCountry: string | null;
  counterpartyAddress: string | null;
  remittance: string | null;
  creditorReference: string | null;
  creditorReferenceType: string | null;
  referredDocuments: ReferredDocument[];
  txCodeDomain: string | null;
  txCodeFamily: string | null;
  txCodeSubFamily: string | null;
  txCodeProprietary: string | null;
  originalCurrency: string | null;
  originalAmount: string | null;
  exchangeRate: string | null;
  chargeAmount: string | null;
  chargeCurrency: string | null;
  returnReason: string | null;
  additionalInfo: string | null;
  /** MT940 only: customer reference of :61: (NONREF when none). */
  customerRef: string | null;
  /** MT940 :86: dialect that was recognised (german, swift-tags, polish, free-text); null for camt. */
  detailsDialect: string | null;
  /** MT940 :61: SWIFT transaction type (NTRF, NMSC, N541 ...); null for camt. */
  swiftTypeCode: string | null;
};

export type NormalisedStatement = {
  messageId: string | null;
  statementId: string | null;
  createdAt: string | null;
  sequenceNumber: string | null;
  legalSequenceNumber: string | null;
  /** camt.053.001.02, camt.052.001.08, MT940, MT942 ... */
  sourceFormat: string;
  accountIban: string | null;
  accountOther: string | null;
  accountCurrency: string | null;
  accountOwner: string | null;
  accountServicerBic: string | null;
  fromDate: string | null;
  toDate: string | null;
  /** CODU / COPY / DUPL (camt CpyDplctInd): a copy must be de-duplicated, not booked twice. */
  copyDuplicate: string | null;
  pagination: { page: string | null; last: boolean | null } | null;
  entryCount: number;
  entrySummary: EntrySummary;
  balances: Balance[];
  openingBalance: Balance | null;
  closingBalance: Balance | null;
  transactions: StatementTransaction[];
  /** Currencies of entries that are not the account currency (kept, but flagged for the journal). */
  droppedCurrencies: string[];
  /** Statement-level free text: camt AddtlStmtInf/AddtlRptInf/AddtlNtfctnInf, MT940 statement-level :86:. */
  additionalInfo: string | null;
};

/** A check that did not hold; the statement is still returned, the warning travels with it. */
export type IntegrityWarning = {
  code:
    | 'balance_mismatch'
    | 'summary_mismatch'
    | 'sequence_gap'
    | 'sequence_duplicate'
    | 'amount_precision'
    | 'batch_amount_mismatch'
    | 'invalid_date'
    | 'no_namespace'
    | 'mixed_content'
    | 'missing_balance'
    | 'currency_mismatch'
    /** A non-essential field (MT940 :64:/:65:) was unreadable and left out. */
    | 'ignored_field'
    /** The file named no encoding and is not UTF-8: its code page was guessed from its bytes. */
    | 'guessed_encoding'
    /** A value of a layout kept only as text was placed by a guess (docs/bank-file-dialects.md §7). */
    | 'guessed_field';
  message: string;
};

export type StatementBlock =
  | { index: number; ok: true; account: string | null; statement: NormalisedStatement; warnings: IntegrityWarning[] }
  | { index: number; ok: false; account: string | null; message: string };

export type FileAlert = {
  kind: 'incomplete_file' | 'sequence' | 'format';
  message: string;
  reason: string;
  account: string | null;
  unclosedBlockCount: number;
  survivingStatementCount: number;
};

export type StatusReason = {
  code: string | null;
  proprietary: string | null;
  description: string | null;
  additionalInfo: string[];
};

export type StatusTransaction = {
  endToEndId: string | null;
  instructionId: string | null;
  transactionId: string | null;
  originalAmount: string | null;
  currency: string | null;
  status: string | null;
  statusCode: string | null;
  reasons: StatusReason[];
  bankRef: string | null;
};

export type PaymentGroupStatus = {
  paymentInfoId: string | null;
  status: string | null;
  statusCode: string | null;
  originalTxCount: number | null;
  reasons: StatusReason[];
  transactions: StatusTransaction[];
};

export type NormalisedStatusReport = {
  messageId: string | null;
  createdAt: string | null;
  originalMessageId: string | null;
  originalMessageType: string | null;
  sourceFormat: string;
  /** Lifecycle word for groupStatusCode (accepted, rejected, pending, ...), null when the group has no status. */
  groupStatus: string | null;
  groupStatusCode: string | null;
  groupReasons: StatusReason[];
  originalTxCount: number | null;
  originalControlSum: string | null;
  paymentGroups: PaymentGroupStatus[];
  rejectedTransactions: StatusTransaction[];
  acceptedTransactions: StatusTransaction[];
  /** Transactions neither accepted nor rejected yet (PDNG, RCVD, ACSP ...). */
  pendingTransactions: StatusTransaction[];
};

/**
 * Streaming consumer of statement transactions: each one is handed over, fully normalised, as soon as it
 * is read, with the index of its statement block, and is then not kept in `statement.transactions`
 * (which stays empty; `entryCount` and all checks still cover every entry). A block reported failed in
 * the result may already have handed over some transactions: the consumer drops them.
 */
export type TransactionSink = (transaction: StatementTransaction, blockIndex: number) => void;

export type ParseErrorCode =
  /** Zero bytes or only whitespace. */
  | 'empty'
  /** Not a camt.052/053/054, pain.002, MT940 or MT942 file, or a version/namespace we do not accept. */
  | 'unrecognised_format'
  /** Recognised, but broken: XML not well-formed, refused DTD/entity, no statement could be read. */
  | 'unparseable_file'
  /** Larger than `maxBytes`. */
  | 'too_large';

export type ParseError = { code: ParseErrorCode; message: string };

export type EncodingName =
  | 'utf-8'
  | 'utf-16le'
  | 'utf-16be'
  | 'windows-1250'
  | 'windows-1252'
  | 'iso-8859-2'
  /** DOS Latin-2 (IBM 852): Polish, Czech and Hungarian banking software still exports it. */
  | 'cp852'
  | 'iso-646-se';

type StatementFileFormat = 'camt.052' | 'camt.053' | 'camt.054' | 'mt940' | 'mt942';

export type StatementFileResult = {
  ok: true;
  kind: 'statement';
  format: StatementFileFormat;
  /** Exact version: camt.053.001.08, MT940, ... */
  sourceFormat: string;
  encoding: EncodingName;
  blocks: StatementBlock[];
  alerts: FileAlert[];
};

export type StatusReportResult = {
  ok: true;
  kind: 'status-report';
  format: 'pain.002';
  sourceFormat: string;
  encoding: EncodingName;
  report: NormalisedStatusReport;
  warnings: IntegrityWarning[];
};

export type ParseBankFileResult = StatementFileResult | StatusReportResult | { ok: false; error: ParseError };
