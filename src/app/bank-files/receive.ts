import { transactionWithRetry } from '../../db/conflict-retry.ts';
import type { CompanyScope, Tx } from '../../db/executor.ts';
import { getProfile } from '../../domain/conversion/index.ts';
import { inSpan } from '../../platform/tracing.ts';
import { type AuditEvent, recordEvents } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import { AppError, notFound } from '../errors.ts';
import { type PreparedHandle, prepareInWorker } from './file-worker.ts';
import {
  type IngestInput,
  type IngestResult,
  type JournaledFile,
  journalPreparedFile,
  statusReportInput,
  statusReportResult,
} from './ingest.ts';
import type { IngestWithin } from './ingest-transaction.ts';
import { journalStatusReportBatch } from './payment-status-batch.ts';

/**
 * Where a bank file came from, kept as the inbound document's `importSource`. A new source (an EBICS
 * download) adds its name here and hands its files to receiveBankFiles; nothing else changes.
 */
export type BankFileSource = 'api' | 'channel' | 'demo-bank';

/** One bank file handed to the service (camt.052/053/054, MT940/MT942, pain.002). */
export type IncomingBankFile = {
  /** Its text, or the file already read off the event loop (the ingest route's streamed upload). */
  content: string | PreparedHandle;
  bankKey?: string | undefined;
  environment?: 'test' | 'production' | undefined;
  source: BankFileSource;
};

/** Why a file is refused before anything is journaled: the parser's codes, plus the kind a caller expected. */
export type RefusalCode = 'empty' | 'unrecognised_format' | 'too_large' | 'unparseable_file' | 'not_status_report';

export type ReceiveOptions = {
  /** The caller's transaction: every file joins it and nothing is retried here. */
  within?: IngestWithin;
  /** Only pain.002 is taken (POST /inbound/payment-status); any other readable file is refused. */
  expect?: 'status-report';
  /** How a refused file is answered; POST /journal/ingest's answers by default. */
  refuse?: (code: RefusalCode, message: string) => Error;
  /**
   * Statements are not taken now (each answers `delivery_unrecorded`, nothing journaled): a pickup
   * while a delivery to the bank is under way leaves them at the bank, since a booking in them may be
   * of a payment whose delivery is not recorded yet, which would find no line to prove (docs/adr/0074).
   */
  deferStatements?: boolean;
};

/** What became of one file of a batch: its ingest's answer (and a pain.002's match), or why not. */
export type Received = ({ ok: true } & JournaledFile) | { ok: false; error: unknown };

/** POST /journal/ingest's answers to a file it cannot take. */
export function ingestRefusal(code: RefusalCode, message: string): AppError {
  switch (code) {
    case 'empty':
      return new AppError('empty_body', message);
    case 'unrecognised_format':
      return new AppError('unrecognised_format', message);
    case 'too_large':
      return new AppError('payload_too_large', message);
    default:
      return new AppError('unparseable_file', message);
  }
}

/**
 * The one way a bank file reaches the journal, the bank accounts, the payments' statuses and
 * reconciliation (docs/adr/0054), whatever brought it: the ingest routes, a channel's pickup, a bank
 * simulator's answer. A single file is a batch of one. Each file is read, parsed and sealed off the
 * event loop first (file-worker.ts, docs/adr/0029), so the transaction does only database work.
 *
 * A batch is journaled in one transaction (the caller's `within`, else one of its own): its pain.002
 * files set-wise (one statement per table, docs/adr/0051), then every other file one by one
 * (ingest.ts: each statement block to the statement consumers, statement-consumers.ts). When a file
 * of a batch in a transaction of its own fails, the batch runs again with each file in a savepoint,
 * so that only the failing file is answered `ok: false`. The audit events are recorded last
 * (docs/adr/0012). A batch of one in a transaction of its own is exactly the ingest of that file.
 */
export async function receiveBankFiles(
  ctx: AppContext,
  scope: CompanyScope,
  files: IncomingBankFile[],
  options: ReceiveOptions = {},
): Promise<Received[]> {
  const refuse = options.refuse ?? ingestRefusal;
  const prepared = await prepareAll(ctx, files, refuse, options.expect, options.deferStatements === true);
  try {
    const received = await inSpan('journal.ingest', () => journalBatch(ctx, scope, prepared, options.within));
    for (const [i, r] of received.entries()) if (r.ok) countIngest(ctx, r.result, files[i]!.source);
    return received;
  } finally {
    for (const p of prepared) if (p.ok && p.owned) p.handle.release();
  }
}

/** One file, as a batch of one: its answer, or the error that refused or failed it. */
export async function receiveBankFile(
  ctx: AppContext,
  scope: CompanyScope,
  file: IncomingBankFile,
  options: ReceiveOptions = {},
): Promise<JournaledFile> {
  const [received] = await receiveBankFiles(ctx, scope, [file], options);
  if (!received!.ok) throw received!.error;
  return { result: received!.result, ...(received!.statusReport ? { statusReport: received!.statusReport } : {}) };
}

type Prepared =
  | { ok: true; input: IngestInput; handle: PreparedHandle; owned: boolean }
  | { ok: false; error: unknown };

/** Each file checked, then parsed and sealed in the file worker (all of the batch at once). */
function prepareAll(
  ctx: AppContext,
  files: IncomingBankFile[],
  refuse: NonNullable<ReceiveOptions['refuse']>,
  expect: ReceiveOptions['expect'],
  deferStatements: boolean,
): Promise<Prepared[]> {
  return Promise.all(
    files.map(async (file): Promise<Prepared> => {
      const input: IngestInput = {
        bankKey: file.bankKey ?? null,
        environment: file.environment ?? null,
        importSource: file.source,
        holdWhileDelivering: file.source !== 'api',
      };
      const owned = typeof file.content === 'string';
      let handle: PreparedHandle | undefined;
      try {
        if (file.bankKey !== undefined && !getProfile(file.bankKey)) throw notFound('bank');
        if (typeof file.content === 'string' && file.content.trim() === '') throw refuse('empty', 'the file is empty');
        handle =
          typeof file.content === 'string'
            ? await prepareInWorker(file.content, ctx.encryptor.sealingKey)
            : file.content;
        const parsed = handle.file;
        if (!parsed.ok) throw refuse(parsed.error.code as RefusalCode, parsed.error.message);
        if (expect === 'status-report' && parsed.kind !== 'status-report') {
          throw refuse('not_status_report', 'content is not a pain.002 payment status report');
        }
        if (deferStatements && parsed.kind === 'statement') {
          throw new AppError(
            'delivery_unrecorded',
            'a delivery to the bank is under way: its statements are taken once it is recorded',
          );
        }
        return { ok: true, input, handle, owned };
      } catch (error) {
        if (owned) handle?.release();
        return { ok: false, error };
      }
    }),
  );
}

/** A file of a batch failed where a savepoint would have isolated it: the batch runs again, isolated. */
class FileFailed extends Error {}

/**
 * How a batch's transaction takes a failing file: `caller`, the error goes to the caller whose
 * transaction it is; `together`, FileFailed (the batch runs again isolated); `isolated`, each file in a
 * savepoint of its own, its failure its answer.
 */
type Mode = 'caller' | 'together' | 'isolated';

function journalBatch(
  ctx: AppContext,
  scope: CompanyScope,
  prepared: Prepared[],
  within: IngestWithin | undefined,
): Promise<Received[]> {
  const readable = prepared.filter((p) => p.ok).length;
  if (within) return journalTogether(ctx, scope, prepared, within, 'caller');
  if (readable <= 1) return journalEach(ctx, scope, prepared);
  const run = (mode: Mode) =>
    transactionWithRetry(ctx.db, 'ingest of a batch of bank files', async (tx) => {
      const audit: AuditEvent[] = [];
      const received = await journalTogether(ctx, scope, prepared, { tx, audit }, mode);
      await recordEvents(ctx, tx, audit);
      return received;
    });
  return run('together').catch((err: unknown) => {
    if (!(err instanceof FileFailed)) throw err;
    // Said at warn: a batch that always fails together still answers, but at the cost of a file at a time.
    ctx.logger.warn({ err: err.cause, files: readable }, 'bank files of a batch journaled again file by file');
    return run('isolated');
  });
}

/** Every file in a transaction of its own (a batch of one, the usual route call). */
async function journalEach(ctx: AppContext, scope: CompanyScope, prepared: Prepared[]): Promise<Received[]> {
  const received: Received[] = [];
  for (const p of prepared) {
    if (!p.ok) {
      received.push(p);
      continue;
    }
    try {
      received.push({ ok: true, ...(await journalPreparedFile(ctx, scope, p.input, p.handle, undefined)) });
    } catch (error) {
      received.push({ ok: false, error });
    }
  }
  return received;
}

/** The batch in one transaction: the pain.002 files set-wise, then each file the set left, one by one. */
async function journalTogether(
  ctx: AppContext,
  scope: CompanyScope,
  prepared: Prepared[],
  within: IngestWithin,
  mode: Mode,
): Promise<Received[]> {
  const isolated = mode === 'isolated';
  const received: (Received | undefined)[] = prepared.map((p) => (p.ok ? undefined : p));
  if (!isolated) {
    try {
      await journalReportsSetWise(ctx, scope, prepared, within, received);
    } catch (error) {
      if (mode === 'together') throw new FileFailed('the set-wise reports of a batch failed', { cause: error });
      throw error;
    }
  }
  for (const [at, p] of prepared.entries()) {
    if (received[at] !== undefined || !p.ok) continue;
    const events: AuditEvent[] = [];
    const inStep = <T>(work: (q: Tx) => Promise<T>): Promise<T> =>
      isolated ? within.tx.transaction(work) : work(within.tx);
    try {
      const file = await inStep((tx) => journalPreparedFile(ctx, scope, p.input, p.handle, { tx, audit: events }));
      within.audit.push(...events);
      received[at] = { ok: true, ...file };
    } catch (error) {
      if (mode === 'caller') throw error;
      if (mode === 'together') throw new FileFailed('a bank file of a batch failed', { cause: error });
      ctx.logger.warn({ err: error }, 'a bank file of a batch was not journaled');
      received[at] = { ok: false, error };
    }
  }
  return received as Received[];
}

/**
 * The batch's pain.002 files in one pass (journalStatusReportBatch); what it leaves `alone` (no
 * outbound document by original message id, two reports for one document) stays for the file-by-file pass.
 */
async function journalReportsSetWise(
  ctx: AppContext,
  scope: CompanyScope,
  prepared: Prepared[],
  within: IngestWithin,
  received: (Received | undefined)[],
): Promise<void> {
  const reports: { at: number; input: ReturnType<typeof statusReportInput> }[] = [];
  for (const [at, p] of prepared.entries()) {
    if (p.ok && p.handle.file.ok && p.handle.file.kind === 'status-report') {
      reports.push({ at, input: statusReportInput(p.input, p.handle.file) });
    }
  }
  if (reports.length < 2) return;
  const outcomes = await journalStatusReportBatch(
    ctx,
    within.tx,
    scope,
    reports.map((r) => r.input),
    within.audit,
  );
  for (const [n, { at, input }] of reports.entries()) {
    const outcome = outcomes[n]!;
    if (outcome.kind !== 'journaled') continue;
    const statusReport = { ...outcome, report: input.report };
    received[at] = { ok: true, result: statusReportResult(statusReport), statusReport };
  }
}

/** Ingest files by kind and their statement blocks by outcome, for GET /metrics. */
function countIngest(ctx: AppContext, result: IngestResult, source: BankFileSource): void {
  const { type, ingest } = result.body;
  const blocks = { ingested: ingest.ingested, deduped: ingest.deduped, quarantined: ingest.quarantined };
  ctx.metrics.ingestFile(type, blocks, source);
}
