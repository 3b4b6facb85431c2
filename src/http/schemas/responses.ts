import { type TSchema, Type } from 'typebox';

/**
 * Success response schemas of the data-plane and control-plane routes (issue 36): the schema a route
 * declares is the one Fastify serialises its answer with, and the one /openapi.json documents, so the
 * description cannot name a field the answer drops. Every field a view always writes is required;
 * open objects (`additionalProperties`) keep what a view adds beside the named fields, and the
 * serialiser keeps it too. Components (with `$id`) are registered once in the app factory.
 */
const open = { additionalProperties: true } as const;
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Str = Type.String();
const NStr = Nullable(Type.String());
const Int = Type.Integer();
const Bool = Type.Boolean();
const AnyObject = Type.Object({}, open);
const Strings = Type.Array(Type.String());
const Cursor = Nullable(Type.String({ description: 'opaque; null at the end' }));

export const Money = Type.Object({ currency: Str, amount: Type.String({ description: 'exact decimal string' }) });

/** A validation issue (interface: Validation issue). */
export const ValidationIssue = Type.Object(
  {
    code: Str,
    level: Type.String({ description: 'generic, bank or payment-type' }),
    severity: Type.String({ description: 'error or warning' }),
    message: Str,
    path: Type.Optional(Str),
    bank: Type.Optional(Str),
    paymentType: Type.Optional(Str),
  },
  { ...open, $id: 'ValidationIssue' },
);
const Issues = Type.Array(Type.Ref('ValidationIssue'));

/**
 * The canonical payment (interface: Canonical payment), as /openapi.json describes the body of
 * validate, convert and convert-async. The engine checks it (every issue at once), not Fastify.
 */
export const CanonicalPayment = Type.Object(
  {
    schemaVersion: Type.Optional(Str),
    messageId: Str,
    creationDateTime: Type.Optional(Str),
    initiatingParty: Type.Object({ name: Str }, open),
    payments: Type.Array(
      Type.Object(
        {
          paymentId: Type.Optional(Str),
          paymentType: Type.Optional(Str),
          executionDate: Type.Optional(Type.String({ description: 'YYYY-MM-DD' })),
          debtor: Type.Optional(AnyObject),
          transactions: Type.Optional(Type.Array(AnyObject)),
        },
        open,
      ),
    ),
  },
  {
    ...open,
    $id: 'CanonicalPayment',
    description: 'the canonical payment; unknown fields are dropped and named in unknownFieldsDropped',
  },
);

// ---- webhooks ---------------------------------------------------------------------------------

export const WebhookEndpoint = Type.Object(
  {
    id: Type.String({ description: 'wh_...' }),
    companyId: Str,
    url: Type.String({ description: 'the destination, its secret parts masked' }),
    eventTypes: Nullable(Strings),
    enabled: Bool,
    status: Type.Union([Type.Literal('enabled'), Type.Literal('disabled'), Type.Literal('auto-disabled')]),
    transport: Type.String({ description: 'https, slack or email' }),
    emailTo: NStr,
    filterPredicate: Nullable(
      Type.Object({ bankKey: Type.Optional(Str), minAmount: Type.Optional(Type.Number()) }, open),
    ),
    consecutiveFailures: Int,
    createdAt: Str,
  },
  { $id: 'WebhookEndpoint' },
);

export const WebhookDelivery = Type.Object(
  {
    id: Type.String({ description: 'del_...' }),
    eventId: Str,
    eventType: Str,
    sequence: Int,
    attempt: Int,
    status: Type.String({ description: 'pending, succeeded or failed' }),
    responseStatus: Nullable(Int),
    error: NStr,
    durationMs: Nullable(Type.Number()),
    createdAt: Str,
    nextAttemptAt: NStr,
  },
  { $id: 'WebhookDelivery' },
);

export const WebhookRegistered = Type.Object({
  endpoint: Type.Ref('WebhookEndpoint'),
  secret: Type.String({ description: 'whsec_...: shown once' }),
});
export const WebhookEndpointList = Type.Object({ items: Type.Array(Type.Ref('WebhookEndpoint')), nextCursor: Cursor });
export const WebhookDeliveryList = Type.Object({ items: Type.Array(Type.Ref('WebhookDelivery')), nextCursor: Cursor });
export const DeliveryQueued = Type.Object({ deliveryId: Str, eventId: Str });
export const RedeliveredCount = Type.Object({ count: Int });
export const SecretRotated = Type.Object({ secret: Str, overlapUntil: Str });

// ---- connections ------------------------------------------------------------------------------

const Readiness = Type.Object(
  {
    ready: Bool,
    missing: Type.Array(Type.String({ description: 'activation, certificate, bank_certificate, channel, ...' })),
    channelError: Nullable(
      Type.Object({ code: Str, message: Str, at: Str }, { description: 'a permanent channel error met last' }),
    ),
    activation: Type.Optional(AnyObject),
    certificate: Type.Optional(Nullable(AnyObject)),
    bankCertificate: Type.Optional(Nullable(AnyObject)),
    sandboxActivation: Type.Optional(AnyObject),
    ebics: Type.Optional(AnyObject),
    lastTestPayment: Nullable(AnyObject),
  },
  open,
);

export const Connection = Type.Object(
  {
    id: Type.String({ description: 'conn_...' }),
    platformId: Str,
    companyId: Str,
    bankKey: Str,
    bankName: Str,
    channel: NStr,
    environment: Type.String({ description: 'test or production' }),
    status: Str,
    deliveryMode: Type.String({ description: 'converted-only or host-to-host' }),
    createdAt: Str,
    activatedAt: NStr,
    signingCertSubject: NStr,
    signingCertExpiry: NStr,
    settings: Nullable(AnyObject),
    readiness: Readiness,
  },
  { $id: 'Connection', description: 'A bank connection with its readiness' },
);
export const ConnectionList = Type.Object({ items: Type.Array(Type.Ref('Connection')) });

// ---- journal ----------------------------------------------------------------------------------

const documentFields = {
  id: Type.String({ description: 'doc_...' }),
  journalNo: Type.String({ description: 'OUT-<n> or IN-<n>' }),
  platformId: Str,
  companyId: Str,
  bankKey: NStr,
  bankName: NStr,
  environment: Str,
  direction: Type.String({ description: 'inbound or outbound' }),
  type: Str,
  sourceFormat: NStr,
  summary: NStr,
  status: Str,
  messageId: NStr,
  importSource: NStr,
  transactionCount: Int,
  totals: Type.Array(Money),
  paymentType: NStr,
  idempotencyKey: NStr,
  deliveryMode: NStr,
  delivery: Nullable(
    Type.Object(
      {
        status: Str,
        reason: Type.Optional(Type.String({ description: 'why the last attempt failed' })),
        code: Type.Optional(Type.String({ description: "the channel's error code" })),
        retryable: Type.Optional(Bool),
        attempts: Type.Optional(Int),
      },
      open,
    ),
  ),
  accountIban: NStr,
  accountCurrency: NStr,
  collected: Bool,
  collectedAt: NStr,
  createdAt: Str,
  expiresAt: NStr,
};

export const JournalDocument = Type.Object(documentFields, { ...open, $id: 'JournalDocument' });
export const DocumentWithPayload = Type.Object(
  { ...documentFields, payload: Type.Unknown({ description: 'the decrypted canonical or normalised payload' }) },
  open,
);
export const SubmittedDocument = Type.Object(
  { ...documentFields, xml: Type.String({ description: 'the generated pain.001' }), warnings: Type.Optional(Issues) },
  open,
);
const IngestBlock = Type.Object(
  {
    statementCount: Int,
    ingested: Int,
    deduped: Int,
    quarantined: Int,
    partial: Bool,
    statements: Type.Array(AnyObject),
    alerts: Type.Array(AnyObject),
  },
  open,
);
export const IngestedDocument = Type.Object(
  { ...documentFields, deduped: Bool, ingest: IngestBlock, statusReport: Type.Optional(Type.Unknown()) },
  open,
);

export const DocumentPage = Type.Object({
  items: Type.Array(Type.Ref('JournalDocument')),
  nextCursor: Cursor,
  total: Int,
  totalExact: Type.Optional(Bool),
});

export const JournalList = Type.Object(
  {
    total: Int,
    uncollected: Int,
    countsExact: Type.Optional(Bool),
    nextCursor: Cursor,
    items: Type.Array(
      Type.Object(
        {
          journalNo: Str,
          direction: Str,
          type: Str,
          sourceFormat: NStr,
          bankKey: NStr,
          summary: NStr,
          status: Str,
          collected: Bool,
          collectedAt: NStr,
          createdAt: Str,
          expiresAt: NStr,
        },
        open,
      ),
    ),
  },
  open,
);

export const ExportResult = Type.Object({
  exported: Type.Array(
    Type.Object(
      {
        journalNo: Str,
        documentId: Str,
        direction: Str,
        type: Str,
        sourceFormat: NStr,
        bankKey: NStr,
        createdAt: Str,
        wasAlreadyCollected: Bool,
        transactionCount: Int,
      },
      open,
    ),
  ),
  notFound: Strings,
});

const Recon = Type.Object(
  { state: Type.String({ description: 'cleared, rejected or pending' }), evidence: Nullable(AnyObject) },
  open,
);

export const Approval = Type.Object(
  {
    id: Type.String({ description: 'appr_...' }),
    documentId: Str,
    journalNo: Str,
    status: Str,
    policyId: NStr,
    policyName: NStr,
    paymentRef: Str,
    payeeName: NStr,
    currency: NStr,
    maxTransaction: NStr,
    maxTransactionPayee: NStr,
    journalTotal: NStr,
    requiredApprovals: Int,
    requireOneFromEachGroup: Bool,
    orderedApproval: Bool,
    groupCount: Int,
    groups: Type.Array(Type.Object({ name: Str, satisfied: Bool })),
    approvals: Type.Array(Type.Object({ userId: Str, userName: Str, at: Str })),
    rejections: Type.Array(Type.Object({ userId: Str, userName: Str, at: Str, reason: NStr })),
    makerUserId: NStr,
    canApprove: Bool,
    blockReason: NStr,
    twoFactorRequired: Bool,
    closedReason: NStr,
    createdAt: Str,
    decidedAt: NStr,
    expiresAt: NStr,
  },
  { $id: 'Approval' },
);

export const DocumentPayments = Type.Object(
  {
    documentId: Str,
    journalNo: Str,
    messageId: NStr,
    status: Str,
    deliveryMode: NStr,
    bankKey: NStr,
    bankName: NStr,
    createdAt: Str,
    payments: Type.Array(
      Type.Object({ index: Int, payee: NStr, amount: Str, currency: Str, endToEndId: NStr, recon: Recon }, open),
    ),
    approval: Nullable(Type.Ref('Approval')),
    recon: Type.Object(
      {
        state: Str,
        evidence: Nullable(AnyObject),
        lines: Type.Object({ total: Int, cleared: Int, rejected: Int, pending: Int }, open),
      },
      open,
    ),
  },
  open,
);

export const PaymentTypeCounts = Type.Object({
  counts: Type.Record(Type.String(), Type.Number()),
  total: Type.Number(),
  sampled: Bool,
});

export const ReconciliationPage = Type.Object({
  items: Type.Array(
    Type.Object(
      {
        documentId: Str,
        journalNo: Str,
        messageId: NStr,
        bankKey: NStr,
        summary: NStr,
        totals: Type.Array(Money),
        status: Str,
        createdAt: Str,
        state: Str,
        evidence: Nullable(AnyObject),
      },
      open,
    ),
  ),
  nextCursor: Cursor,
});

export const EventPage = Type.Object({
  items: Type.Array(
    Type.Object(
      {
        id: Str,
        platformId: Str,
        companyId: NStr,
        type: Str,
        message: Str,
        actorUserId: NStr,
        metadata: Nullable(AnyObject),
        createdAt: Str,
        expiresAt: NStr,
        prevHash: Str,
        hash: Str,
        seq: Int,
      },
      open,
    ),
  ),
  nextCursor: Cursor,
});

export const Preview = Type.Object(
  {
    xml: Str,
    painVersion: Str,
    preview: Bool,
    warnings: Issues,
    autoSelected: Type.Array(AnyObject),
    autoFilled: Strings,
    unknownFieldsDropped: Strings,
    whitelist: Type.Object({ applicable: Bool, outcome: Str, checks: Type.Array(AnyObject) }, open),
    schemaValidation: Type.Optional(Type.Object({ ran: Strings }, open)),
  },
  open,
);

// ---- conversion and inbound --------------------------------------------------------------------

export const ValidationResult = Type.Object({ valid: Bool, issues: Issues, unknownFieldsDropped: Strings });

export const ConversionJob = Type.Object(
  {
    jobId: Str,
    status: Type.String({ description: 'pending, running, succeeded or dead' }),
    bankKey: Type.Optional(Str),
    createdAt: Type.Optional(Str),
    updatedAt: Type.Optional(Str),
    failure: Type.Optional(AnyObject),
  },
  { ...open, $id: 'ConversionJob' },
);

export const StatementList = Type.Object(
  {
    items: Type.Array(
      Type.Object(
        {
          messageId: NStr,
          sourceFormat: Str,
          accountIban: NStr,
          accountCurrency: NStr,
          fromDate: NStr,
          toDate: NStr,
          balances: Type.Array(AnyObject),
          transactions: Type.Array(AnyObject),
        },
        open,
      ),
    ),
  },
  open,
);

export const PaymentStatusResult = Type.Object(
  {
    messageId: NStr,
    originalMessageId: NStr,
    sourceFormat: Str,
    groupStatus: NStr,
    paymentGroups: Type.Array(AnyObject),
    rejectedTransactions: Type.Array(AnyObject),
    acceptedTransactions: Type.Array(AnyObject),
    documentId: NStr,
    journalNo: NStr,
    status: NStr,
  },
  open,
);

// ---- accounts ---------------------------------------------------------------------------------

const BankAccount = Type.Object(
  {
    id: Str,
    platformId: Str,
    companyId: Str,
    iban: NStr,
    accountOther: Type.Unknown(),
    country: NStr,
    currency: NStr,
    bankKey: NStr,
    bankName: NStr,
    connected: Bool,
    lastReceivedData: NStr,
    latestBalance: Type.Union([Type.String({ description: '*** in lists' }), Type.Null()]),
    latestBalanceCurrency: NStr,
    latestBalanceDate: NStr,
    createdAt: Str,
    updatedAt: Str,
  },
  open,
);
export const AccountList = Type.Object({ items: Type.Array(BankAccount), nextCursor: Cursor, total: Int });
export const AccountStatements = Type.Object(
  { account: BankAccount, statements: Type.Array(AnyObject), gaps: Type.Array(AnyObject) },
  open,
);

// ---- approvals --------------------------------------------------------------------------------

export const ApprovalPolicy = Type.Object(
  {
    id: Type.String({ description: 'apol_...' }),
    platformId: Str,
    companyId: Str,
    name: Str,
    enabled: Bool,
    environment: Str,
    currency: NStr,
    minAmount: Str,
    bankKeys: Nullable(Strings),
    requiredApprovals: Int,
    groups: Type.Array(Type.Object({ name: Str, userIds: Strings })),
    requireOneFromEachGroup: Bool,
    orderedApproval: Bool,
    twoFactorRequired: Bool,
    createdAt: Str,
    updatedAt: Str,
  },
  { $id: 'ApprovalPolicy' },
);
export const ApprovalPolicyList = Type.Object({ items: Type.Array(Type.Ref('ApprovalPolicy')) });
export const ApprovalQueue = Type.Object({ items: Type.Array(Type.Ref('Approval')), nextCursor: Cursor });

// ---- non-JSON answers -------------------------------------------------------------------------

/** An answer without a body (204, a redirect). */
export const NoBody = (description: string) => Type.Null({ description });

/** A response of another media type than JSON (XML files, HTML pages), for the description only. */
export const mediaResponse = (type: string, description: string) => ({
  description,
  content: { [type]: { schema: { type: 'string' } } },
});

/** Components: registered with app.addSchema so every reference resolves. */
export const RESPONSE_COMPONENTS = [
  CanonicalPayment,
  ValidationIssue,
  WebhookEndpoint,
  WebhookDelivery,
  Connection,
  JournalDocument,
  Approval,
  ApprovalPolicy,
  ConversionJob,
];
