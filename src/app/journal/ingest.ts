import type { CompanyScope, Tx } from '../../db/executor.ts';
import {
  findInboundByAccountStatement,
  findInboundByDigest,
  findInboundByStatementKey,
  insertDocument,
  type JournalDocumentRow,
  lockInboundContent,
  mergeDocumentDetails,
  nextJournalNo,
} from '../../db/repositories/journal-documents.ts';
import { getProfile } from '../../domain/conversion/index.ts';
import type { NormalisedStatement } from '../../domain/inbound/index.ts';
import { inSpan } from '../../platform/tracing.ts';
import { accountKeyOf, recordStatement, signedAmount } from '../accounts/record-statement.ts';
import type { AuditEvent } from '../audit/record.ts';
import { retentionUntil } from '../audit/retention-policy.ts';
import type { AppContext } from '../context.ts';
import { AppError, notFound } from '../errors.ts';
import { companyScope } from '../identity/company-scope.ts';
import type { Principal } from '../identity/principal.ts';
import { type PreparedHandle, prepareInWorker, readUploadInWorker } from '../inbound/file-worker.ts';
import type { PreparedBlock, PreparedFile } from '../inbound/prepare-file.ts';
import { reconcileStatement, type StatementEntries } from '../recon/reconcile-statement.ts';
import { type LeftoverSource, recordUnmatchedEntries } from '../recon/record-unmatched.ts';
import { type DocumentView, documentView } from './document-view.ts';
import { type IngestWithin, inIngestTransaction } from './ingest-transaction.ts';
import { journalStatusReport, type StatusReportInput } from './payment-status.ts';
import { type BatchReportOutcome, journalStatusReportBatch } from './payment-status-batch.ts';

type StatementFile = Extract<PreparedFile, { kind: 'statement' }>;

export type IngestStatement = {
  index: number;
  kind: 'ingested' | 'deduped' | 'quarantined';
  documentId: string | null;
  journalNo: string | null;
  account: string | null;
  message: string | null;
};

export type IngestAlert = {
  kind: string;
  message: string;
  reason: string;
  account: string | null;
  unclosedBlockCount: number;
  survivingStatementCount: number;
};

export type IngestBlock = {
  statementCount: number;
  ingested: number;
  deduped: number;
  quarantined: number;
  partial: boolean;
  statements: IngestStatement[];
  alerts: IngestAlert[];
};

export type IngestResult = {
  status: 200 | 201 | 207;
  body: DocumentView & { deduped: boolean; ingest: IngestBlock; statusReport?: unknown };
};

export type IngestInput = {
  companyId: string;
  content: string;
  platformId?: string | undefined;
  bankKey?: string | undefined;
  environment?: 'test' | 'production' | undefined;
  importSource?: string;
};

function parseFailure(code: string, message: string): AppError {
  switch (code) {
    case 'empty':
      return new AppError(400, 'empty_body', message);
    case 'unrecognised_format':
      return new AppError(422, 'unrecognised_format', message);
    case 'too_large':
      return new AppError(413, 'payload_too_large', message);
    default:
      return new AppError(422, 'unparseable_file', message);
  }
}

function ingestBlockOf(statements: IngestStatement[], alerts: IngestAlert[]): IngestBlock {
  const countOf = (kind: IngestStatement['kind']) => statements.filter((s) => s.kind === kind).length;
  const quarantined = countOf('quarantined');
  return {
    statementCount: statements.length,
    ingested: countOf('ingested'),
    deduped: countOf('deduped'),
    quarantined,
    partial: quarantined > 0 || alerts.some((a) => a.kind === 'incomplete_file'),
    statements,
    alerts,
  };
}

/** 201 every block ingested; 207 blocks ended differently or the file says it is incomplete; 200 all deduped. */
function statusOf(block: IngestBlock): 200 | 201 | 207 {
  if (block.deduped === block.statementCount) return 200;
  if (block.ingested === block.statementCount && !block.partial) return 201;
  return 207;
}

function statementSummary(format: string, s: NormalisedStatement, transactionCount: number): string {
  const account = s.accountIban ?? s.accountOther ?? 'unknown account';
  const period = s.fromDate || s.toDate ? ` ${s.fromDate ?? '?'}..${s.toDate ?? '?'}` : '';
  const closing = s.closingBalance ? `, closing ${signedAmount(s.closingBalance)} ${s.closingBalance.currency}` : '';
  return `${format} ${account} ${s.accountCurrency ?? ''}${period}: ${transactionCount} entries${closing}`.replace(
    /\s+/g,
    ' ',
  );
}

/**
 * POST /journal/ingest: every statement block of a bank file becomes one inbound journal document
 * (IN-<n>) and reaches its bank account; a pain.002 is journaled and matched like
 * POST /inbound/payment-status. All of a file in one transaction, serialised per content digest, so
 * the same content twice (even at once) is journaled once: the repeat answers 200 deduped with the
 * first document unchanged and nothing re-run.
 *
 * The route's JSON body arrives in the file worker as an upload (file-worker.ts) and is read and
 * checked there, so the event loop never decodes or parses the file.
 */
export async function ingestUploadedBody(ctx: AppContext, principal: Principal, upload: number): Promise<IngestResult> {
  const body = await readUploadInWorker(upload);
  if (!body.ok) throw new AppError(body.status, body.code, body.message, body.details);
  try {
    const scope = await companyScope(ctx, principal, body.fields.companyId, body.fields.platformId);
    const input: IngestInput = { ...body.fields, content: '' };
    if (input.bankKey !== undefined && !getProfile(input.bankKey)) throw notFound('bank');
    if (body.empty) throw new AppError(400, 'empty_body', 'the file is empty');
    return await inSpan('journal.ingest', async () => {
      const handle = await body.prepare(ctx.encryptor.sealingKey);
      try {
        return countIngest(ctx, await ingestPrepared(ctx, scope, input, handle, undefined));
      } finally {
        handle.release();
      }
    });
  } finally {
    body.discard();
  }
}

/** The same ingest for a caller that already holds the company's scope (bank channels, the demo bank). */
export function ingestForCompany(
  ctx: AppContext,
  scope: CompanyScope,
  input: IngestInput,
  within?: IngestWithin,
): Promise<IngestResult> {
  return inSpan('journal.ingest', async () => countIngest(ctx, await ingestParsed(ctx, scope, input, within)));
}

/**
 * The same for a file already parsed and sealed in the file worker (prepareInWorker): the demo bank
 * prepares a batch's files before its transaction opens, so the transaction does only database work.
 * The caller releases the handle; it may be used again when the transaction runs again.
 */
export function ingestPreparedForCompany(
  ctx: AppContext,
  scope: CompanyScope,
  input: Omit<IngestInput, 'content'>,
  handle: PreparedHandle,
  within?: IngestWithin,
): Promise<IngestResult> {
  if (input.bankKey !== undefined && !getProfile(input.bankKey)) throw notFound('bank');
  return inSpan('journal.ingest', async () =>
    countIngest(ctx, await ingestPrepared(ctx, scope, { ...input, content: '' }, handle, within)),
  );
}

/**
 * Several prepared pain.002 files of one company in the caller's transaction, set-wise
 * (journalStatusReportBatch): each answers `journaled` or `alone` (a file the batch leaves to
 * ingestPreparedForCompany, as is anything that is not a readable status report).
 */
export async function ingestStatusReportsForCompany(
  ctx: AppContext,
  scope: CompanyScope,
  files: { input: Omit<IngestInput, 'content'>; handle: PreparedHandle }[],
  within: IngestWithin,
): Promise<BatchReportOutcome[]> {
  const outcomes: BatchReportOutcome[] = files.map(() => ({ kind: 'alone' }));
  const reports: { at: number; input: StatusReportInput }[] = [];
  for (const [at, { input, handle }] of files.entries()) {
    const parsed = handle.file;
    if (!parsed.ok || parsed.kind !== 'status-report') continue;
    if (input.bankKey !== undefined && !getProfile(input.bankKey)) continue;
    reports.push({
      at,
      input: {
        content: parsed.content,
        report: parsed.report,
        sourceFormat: parsed.sourceFormat,
        bankKey: input.bankKey ?? null,
        environment: input.environment ?? null,
        importSource: input.importSource ?? 'api',
      },
    });
  }
  const journaled = await inSpan('journal.ingest', () =>
    journalStatusReportBatch(
      ctx,
      within.tx,
      scope,
      reports.map((r) => r.input),
      within.audit,
    ),
  );
  for (const [n, { at }] of reports.entries()) {
    const outcome = journaled[n]!;
    outcomes[at] = outcome;
    if (outcome.kind === 'journaled') {
      ctx.metrics.ingestFile('pain.002', outcome.deduped ? { ingested: 0, deduped: 1 } : { ingested: 1, deduped: 0 });
    }
  }
  return outcomes;
}

/** Ingest files by kind and their statement blocks by outcome, for GET /metrics. */
function countIngest(ctx: AppContext, result: IngestResult): IngestResult {
  const { type, ingest } = result.body;
  ctx.metrics.ingestFile(type, { ingested: ingest.ingested, deduped: ingest.deduped, quarantined: ingest.quarantined });
  return result;
}

async function ingestParsed(
  ctx: AppContext,
  scope: CompanyScope,
  input: IngestInput,
  within: IngestWithin | undefined,
): Promise<IngestResult> {
  if (input.bankKey !== undefined && !getProfile(input.bankKey)) throw notFound('bank');
  if (input.content.trim() === '') throw new AppError(400, 'empty_body', 'the file is empty');
  // Parsing and sealing happen in the file worker thread; the event loop stays free (docs/adr/0029).
  const handle = await prepareInWorker(input.content, ctx.encryptor.sealingKey);
  try {
    return await ingestPrepared(ctx, scope, input, handle, within);
  } finally {
    handle.release();
  }
}

async function ingestPrepared(
  ctx: AppContext,
  scope: CompanyScope,
  input: IngestInput,
  handle: PreparedHandle,
  within: IngestWithin | undefined,
): Promise<IngestResult> {
  const parsed = handle.file;
  if (!parsed.ok) throw parseFailure(parsed.error.code, parsed.error.message);
  const importSource = input.importSource ?? 'api';

  if (parsed.kind === 'status-report') {
    const journaled = await journalStatusReport(
      ctx,
      scope,
      {
        content: parsed.content,
        report: parsed.report,
        sourceFormat: parsed.sourceFormat,
        bankKey: input.bankKey ?? null,
        environment: input.environment ?? null,
        importSource,
      },
      within,
    );
    const doc = journaled.reportDocument;
    const ingest = ingestBlockOf(
      [
        {
          index: 0,
          kind: journaled.deduped ? 'deduped' : 'ingested',
          documentId: doc.id,
          journalNo: doc.journalNo,
          account: null,
          message: `matched ${journaled.match.journalNo}: ${journaled.match.previousStatus} -> ${journaled.match.status}`,
        },
      ],
      [],
    );
    return {
      status: journaled.deduped ? 200 : 201,
      body: { ...documentView(doc), deduped: journaled.deduped, ingest, statusReport: journaled.match },
    };
  }

  return ingestStatements(ctx, scope, input, parsed, handle, importSource, within);
}

async function ingestStatements(
  ctx: AppContext,
  scope: CompanyScope,
  input: IngestInput,
  file: StatementFile,
  handle: PreparedHandle,
  importSource: string,
  within: IngestWithin | undefined,
): Promise<IngestResult> {
  const digest = file.digest;
  const environment = input.environment ?? 'production';
  const bankKey = input.bankKey ?? null;
  const alerts: IngestAlert[] = file.alerts.map((a) => ({
    kind: a.kind,
    message: a.message,
    reason: a.reason,
    account: a.account,
    unclosedBlockCount: a.unclosedBlockCount,
    survivingStatementCount: a.survivingStatementCount,
  }));

  // The audit events are recorded last: the chain head is the last lock an ingest takes (docs/adr/0012).
  return inIngestTransaction(ctx, 'ingest of a statement file', within, async (tx, audit) => {
    await lockInboundContent(tx, scope.companyId, digest);
    const existing = await findInboundByDigest(tx, scope, digest);
    if (existing.length > 0) return replay(existing);

    const statements: IngestStatement[] = [];
    let first: JournalDocumentRow | undefined;
    let firstExisting: JournalDocumentRow | undefined;
    for (const block of file.blocks) {
      const outcome = await journalBlock(ctx, tx, scope, audit, {
        block,
        entries: handle.entriesOf(block.index),
        file,
        digest,
        environment,
        bankKey,
        importSource,
        fileSealed: first === undefined ? file.fileSealed : null,
      });
      statements.push(outcome.statement);
      if (outcome.created) first ??= outcome.document;
      else firstExisting ??= outcome.document;
    }
    const ingest = ingestBlockOf(statements, alerts);
    const status = statusOf(ingest);
    const shown = first ?? firstExisting!;
    if (first) {
      // The file's own outcome, kept for replays of the same content.
      await mergeDocumentDetails(tx, scope, first.id, { ingest: { statements, alerts } });
    }
    return { status, body: { ...documentView(shown), deduped: status === 200, ingest } };
  });
}

/** The same content again: the first outcome, every journaled block now `deduped`, nothing re-run. */
function replay(existing: JournalDocumentRow[]): IngestResult {
  const first = existing[0]!;
  const stored = first.details?.ingest as { statements: IngestStatement[]; alerts: IngestAlert[] } | undefined;
  const statements: IngestStatement[] = (stored?.statements ?? []).map((s) =>
    s.kind === 'quarantined' ? s : { ...s, kind: 'deduped' },
  );
  const ingest = ingestBlockOf(statements, stored?.alerts ?? []);
  return { status: 200, body: { ...documentView(first), deduped: true, ingest } };
}

async function journalBlock(
  ctx: AppContext,
  tx: Tx,
  scope: CompanyScope,
  audit: AuditEvent[],
  input: {
    block: PreparedBlock;
    entries: StatementEntries & LeftoverSource;
    file: StatementFile;
    digest: string;
    environment: string;
    bankKey: string | null;
    importSource: string;
    /** The received file, sealed: kept on the first document the file creates. */
    fileSealed: string | null;
  },
): Promise<{ statement: IngestStatement; document: JournalDocumentRow; created: boolean }> {
  const { block, file } = input;
  const now = ctx.clock.now();
  const base = {
    platformId: scope.platformId,
    companyId: scope.companyId,
    direction: 'inbound',
    type: file.format,
    sourceFormat: file.sourceFormat,
    bankKey: input.bankKey,
    environment: input.environment,
    importSource: input.importSource,
    contentDigest: input.digest,
    blockIndex: block.index,
    fileSealed: input.fileSealed,
    createdAt: now,
    updatedAt: now,
    expiresAt: retentionUntil(now, input.environment),
  };

  if (!block.ok) {
    // A quarantined block is journaled too (status quarantined, no payload): the file it came in
    // stays retrievable and a replay of the file can say what happened to each block.
    const journalNo = await nextJournalNo(tx, scope.companyId, 'inbound');
    const document = await insertDocument(tx, {
      ...base,
      id: ctx.ids.next('doc'),
      journalNo,
      status: 'quarantined',
      summary: `${file.format} block ${block.index} quarantined${block.account ? ` (${block.account})` : ''}: ${block.message}`,
      details: { quarantined: { account: block.account, message: block.message } },
    });
    audit.push({
      platformId: scope.platformId,
      companyId: scope.companyId,
      type: 'journal.document.quarantined',
      message: `${journalNo} ${file.format} block ${block.index} quarantined`,
      metadata: {
        documentId: document.id,
        journalNo,
        type: file.format,
        contentDigest: input.digest,
        blockIndex: block.index,
      },
      bankKey: input.bankKey,
      environment: input.environment,
    });
    return {
      statement: {
        index: block.index,
        kind: 'quarantined',
        documentId: document.id,
        journalNo,
        account: block.account,
        message: block.message,
      },
      document,
      created: true,
    };
  }

  const s = block.header;
  const statementKey = block.statementKey;
  const messageId = s.messageId ?? s.statementId;
  const accountKey = accountKeyOf(s) ?? null;
  // Already journaled, from this file or another: by its account and period when it names an account
  // (another file has another message id), else by message id.
  const same =
    accountKey !== null
      ? await findInboundByAccountStatement(tx, scope, accountKey, s.toDate, statementKey)
      : messageId !== null
        ? await findInboundByStatementKey(tx, scope, messageId, statementKey)
        : undefined;
  if (same) {
    return {
      statement: {
        index: block.index,
        kind: 'deduped',
        documentId: same.id,
        journalNo: same.journalNo,
        account: block.account,
        message: `statement already journaled as ${same.journalNo}`,
      },
      document: same,
      created: false,
    };
  }

  const journalNo = await nextJournalNo(tx, scope.companyId, 'inbound');
  const id = ctx.ids.next('doc');
  const document = await insertDocument(tx, {
    ...base,
    id,
    journalNo,
    status: 'ingested',
    messageId,
    transactionCount: block.transactionCount,
    totals: s.accountCurrency ? [{ currency: s.accountCurrency, amount: s.entrySummary.totalSum }] : [],
    summary: statementSummary(file.format, s, block.transactionCount),
    accountIban: s.accountIban,
    accountCurrency: s.accountCurrency,
    payloadSealed: block.payloadSealed,
    warnings: block.warnings,
    details: { statementKey, accountKey },
  });
  const account = await recordStatement(
    ctx,
    tx,
    scope,
    {
      documentId: id,
      statement: s,
      transactionCount: block.transactionCount,
      bankKey: input.bankKey,
      environment: input.environment,
    },
    audit,
  );
  // Every booked entry is evidence for an outbound payment line: reconcile in the same transaction.
  const recon = await reconcileStatement(
    ctx,
    tx,
    scope,
    { documentId: id, entries: input.entries, source: file.format, environment: input.environment },
    audit,
  );
  // What matched nothing is listed on the reconciliation page (docs/adr/0047).
  const unmatched = await recordUnmatchedEntries(ctx, tx, scope, {
    documentId: id,
    accountKey,
    entries: input.entries,
  });
  audit.push({
    platformId: scope.platformId,
    companyId: scope.companyId,
    type: 'journal.document.ingested',
    message: `${journalNo} ${file.format} statement journaled`,
    metadata: {
      documentId: id,
      journalNo,
      type: file.format,
      contentDigest: input.digest,
      blockIndex: block.index,
      accountId: account?.accountId ?? null,
      reconciled: recon,
      unmatchedEntries: unmatched,
    },
    bankKey: input.bankKey,
    environment: input.environment,
  });
  return {
    statement: {
      index: block.index,
      kind: 'ingested',
      documentId: id,
      journalNo,
      account: block.account,
      message: block.warnings.length > 0 ? block.warnings.map((w) => w.message).join('; ') : null,
    },
    document,
    created: true,
  };
}
