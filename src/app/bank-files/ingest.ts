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
import type { NormalisedStatement } from '../../domain/inbound/index.ts';
import { signedBalance } from '../../domain/money/signed-balance.ts';
import { accountKeyOf } from '../accounts/record-statement.ts';
import type { AuditEvent } from '../audit/record.ts';
import { retentionUntil } from '../audit/retention-policy.ts';
import type { AppContext } from '../context.ts';
import { type DocumentView, documentView } from '../journal/document-view.ts';
import type { PreparedHandle } from './file-worker.ts';
import { type IngestWithin, inIngestTransaction } from './ingest-transaction.ts';
import { type JournaledStatusReport, journalStatusReport, type StatusReportInput } from './payment-status.ts';
import type { PreparedBlock, PreparedFile } from './prepare-file.ts';
import { consumeStatement, type JournaledStatement } from './statement-consumers.ts';

type StatementFile = Extract<PreparedFile, { kind: 'statement' }>;
type ReportFile = Extract<PreparedFile, { kind: 'status-report' }>;

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

/** Where a journaled file came from and what it is about (the bank-files entry point fills it in, receive.ts). */
export type IngestInput = {
  bankKey: string | null;
  environment: 'test' | 'production' | null;
  importSource: string;
  /** A bank's own pickup (not a client's upload): see StatusReportInput.holdWhileDelivering. */
  holdWhileDelivering: boolean;
};

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
  const closing = s.closingBalance ? `, closing ${signedBalance(s.closingBalance)} ${s.closingBalance.currency}` : '';
  return `${format} ${account} ${s.accountCurrency ?? ''}${period}: ${transactionCount} entries${closing}`.replace(
    /\s+/g,
    ' ',
  );
}

/**
 * Journals one bank file read and parsed off the event loop (file-worker.ts): every statement block
 * becomes one inbound journal document (IN-<n>) handed to the statement consumers
 * (statement-consumers.ts); a pain.002 is journaled and matched (payment-status.ts). All of a file in
 * one transaction (the caller's when `within`), serialised per content digest, so the same content
 * twice (even at once) is journaled once: the repeat answers 200 deduped with the first document
 * unchanged and nothing re-run. Only the bank-files entry point calls it (receive.ts).
 */
export async function journalPreparedFile(
  ctx: AppContext,
  scope: CompanyScope,
  input: IngestInput,
  handle: PreparedHandle,
  within: IngestWithin | undefined,
): Promise<JournaledFile> {
  const parsed = handle.file;
  if (!parsed.ok) throw new Error('journalPreparedFile: the file was not read');
  if (parsed.kind === 'statement') return { result: await ingestStatements(ctx, scope, input, parsed, handle, within) };
  const statusReport = await journalStatusReport(ctx, scope, statusReportInput(input, parsed), within);
  return { result: statusReportResult(statusReport), statusReport };
}

/** What journaling one file gave: the ingest's answer, and for a pain.002 the report and its match. */
export type JournaledFile = { result: IngestResult; statusReport?: JournaledStatusReport };

export function statusReportInput(input: IngestInput, parsed: ReportFile): StatusReportInput {
  return {
    content: parsed.content,
    report: parsed.report,
    sourceFormat: parsed.sourceFormat,
    bankKey: input.bankKey,
    environment: input.environment,
    importSource: input.importSource,
    holdWhileDelivering: input.holdWhileDelivering,
  };
}

/** A journaled pain.002 as the ingest answers it: one block, matched to its outbound document. */
export function statusReportResult(journaled: Omit<JournaledStatusReport, 'report'>): IngestResult {
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

async function ingestStatements(
  ctx: AppContext,
  scope: CompanyScope,
  input: IngestInput,
  file: StatementFile,
  handle: PreparedHandle,
  within: IngestWithin | undefined,
): Promise<IngestResult> {
  const digest = file.digest;
  const environment = input.environment ?? 'production';
  const { bankKey, importSource } = input;
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

type BlockInput = {
  block: PreparedBlock;
  entries: JournaledStatement['entries'];
  file: StatementFile;
  digest: string;
  environment: string;
  bankKey: string | null;
  importSource: string;
  /** The received file, sealed: kept on the first document the file creates. */
  fileSealed: string | null;
};
type BlockOutcome = { statement: IngestStatement; document: JournalDocumentRow; created: boolean };
type OkBlock = Extract<PreparedBlock, { ok: true }>;
type QuarantinedBlock = Extract<PreparedBlock, { ok: false }>;

async function journalBlock(
  ctx: AppContext,
  tx: Tx,
  scope: CompanyScope,
  audit: AuditEvent[],
  input: BlockInput,
): Promise<BlockOutcome> {
  const { block } = input;
  if (!block.ok) return quarantineBlock(ctx, tx, scope, audit, input, block);
  const s = block.header;
  const messageId = s.messageId ?? s.statementId;
  const accountKey = accountKeyOf(s) ?? null;
  // Already journaled, from this file or another: by its account and period when it names an account
  // (another file has another message id), else by message id.
  const same =
    accountKey !== null
      ? await findInboundByAccountStatement(tx, scope, accountKey, s.toDate, block.statementKey)
      : messageId !== null
        ? await findInboundByStatementKey(tx, scope, messageId, block.statementKey)
        : undefined;
  if (!same) return journalStatement(ctx, tx, scope, audit, input, block);
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

/** The columns every inbound document of a statement file shares. */
function blockBase(ctx: AppContext, scope: CompanyScope, input: BlockInput) {
  const now = ctx.clock.now();
  return {
    platformId: scope.platformId,
    companyId: scope.companyId,
    direction: 'inbound',
    type: input.file.format,
    sourceFormat: input.file.sourceFormat,
    bankKey: input.bankKey,
    environment: input.environment,
    importSource: input.importSource,
    contentDigest: input.digest,
    blockIndex: input.block.index,
    fileSealed: input.fileSealed,
    createdAt: now,
    updatedAt: now,
    expiresAt: retentionUntil(now, input.environment),
  };
}

/**
 * A quarantined block is journaled too (status quarantined, no payload): the file it came in stays
 * retrievable and a replay of the file can say what happened to each block.
 */
async function quarantineBlock(
  ctx: AppContext,
  tx: Tx,
  scope: CompanyScope,
  audit: AuditEvent[],
  input: BlockInput,
  block: QuarantinedBlock,
): Promise<BlockOutcome> {
  const { file } = input;
  const journalNo = await nextJournalNo(tx, scope.companyId, 'inbound');
  const document = await insertDocument(tx, {
    ...blockBase(ctx, scope, input),
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

/** A new statement: its document, then every statement consumer in the same transaction. */
async function journalStatement(
  ctx: AppContext,
  tx: Tx,
  scope: CompanyScope,
  audit: AuditEvent[],
  input: BlockInput,
  block: OkBlock,
): Promise<BlockOutcome> {
  const { file } = input;
  const s = block.header;
  const accountKey = accountKeyOf(s) ?? null;
  const journalNo = await nextJournalNo(tx, scope.companyId, 'inbound');
  const id = ctx.ids.next('doc');
  const document = await insertDocument(tx, {
    ...blockBase(ctx, scope, input),
    id,
    journalNo,
    status: 'ingested',
    messageId: s.messageId ?? s.statementId,
    transactionCount: block.transactionCount,
    totals: s.accountCurrency ? [{ currency: s.accountCurrency, amount: s.entrySummary.totalSum }] : [],
    summary: statementSummary(file.format, s, block.transactionCount),
    accountIban: s.accountIban,
    accountCurrency: s.accountCurrency,
    payloadSealed: block.payloadSealed,
    warnings: block.warnings,
    details: { statementKey: block.statementKey, accountKey },
  });
  const facts = await consumeStatement(
    ctx,
    tx,
    scope,
    {
      documentId: id,
      statement: s,
      transactionCount: block.transactionCount,
      accountKey,
      entries: input.entries,
      format: file.format,
      bankKey: input.bankKey,
      environment: input.environment,
    },
    audit,
  );
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
      ...facts,
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
