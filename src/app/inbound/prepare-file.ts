import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { parseBankFile } from '../../domain/inbound/index.ts';
import type {
  FileAlert,
  IntegrityWarning,
  NormalisedStatement,
  NormalisedStatusReport,
  ParseError,
  StatementTransaction,
} from '../../domain/inbound/types.ts';
import { type EvidenceSource, entryOf, evidenceSourceOf } from '../../domain/recon/statement-entries.ts';
import { namedEndToEndIds, returnedEndToEndIds } from '../../domain/recon/statement-match.ts';
import type { ReconEntry } from '../../domain/recon/types.ts';
import { sealCompressed } from '../../platform/encryption.ts';

/** A statement block ready to journal: its header, counts, key and sealed payload; no transactions. */
export type PreparedBlock =
  | {
      index: number;
      ok: true;
      account: string | null;
      warnings: IntegrityWarning[];
      /** The normalised statement without its transactions (`transactions: []`). */
      header: NormalisedStatement;
      transactionCount: number;
      /**
       * Identifies the statement across files: SHA-256 over its JSON without the transactions (and
       * without the file's message id and copy/duplicate mark) and the SHA-256 of the transactions'
       * JSON (made as they stream).
       */
      statementKey: string;
      /** That JSON, gzipped and sealed. */
      payloadSealed: string;
      hasEntries: boolean;
      returned: string[];
      /** The end-to-end ids the entries carry, looked up first (namedEndToEndIds); null: every open line. */
      named: string[] | null;
    }
  | { index: number; ok: false; account: string | null; message: string };

export type PreparedFile =
  | { ok: false; error: ParseError }
  | {
      ok: true;
      kind: 'statement';
      digest: string;
      fileSealed: string;
      format: string;
      sourceFormat: string;
      blocks: PreparedBlock[];
      alerts: FileAlert[];
    }
  | { ok: true; kind: 'status-report'; sourceFormat: string; report: NormalisedStatusReport; content: string };

/** What stays behind per block for matching: the booked entries and what their evidence quotes. */
export type KeptEntries = { entries: ReconEntry[]; sources: EvidenceSource[] }[];

/**
 * A statement's transactions as JSON, made while the parser streams them: hashed and gzipped in
 * 1 MB runs (each run its own gzip member; members concatenate to one stream), so neither the
 * transactions nor their JSON are ever held whole.
 */
class TransactionsJson {
  readonly hash = createHash('sha256');
  readonly members: Buffer[] = [];
  count = 0;
  private run: string[] = [];
  private size = 0;

  add(transaction: StatementTransaction): void {
    const part = this.count++ === 0 ? JSON.stringify(transaction) : `,${JSON.stringify(transaction)}`;
    this.hash.update(part, 'utf8');
    this.run.push(part);
    this.size += part.length;
    if (this.size >= 1 << 20) this.flush();
  }

  flush(): void {
    if (this.run.length === 0) return;
    this.members.push(gzipSync(this.run.join(''), { level: 1 }));
    this.run = [];
    this.size = 0;
  }
}

/** Gzips a text in 1 MB runs (one member each; they concatenate), never encoding it whole. */
function gzipInRuns(text: string): Buffer {
  const members: Buffer[] = [];
  for (let at = 0; at < text.length; ) {
    let end = Math.min(text.length, at + (1 << 20));
    // Never between the halves of a surrogate pair: each half alone would encode as U+FFFD.
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    members.push(gzipSync(text.slice(at, end), { level: 1 }));
    at = end;
  }
  return Buffer.concat(members);
}

/**
 * Parses a bank file and makes everything the journal stores of it, without holding the statements
 * whole: transactions stream out of the parser one by one into their JSON (for the statement key
 * and the sealed payload, gzipped) and their matcher entries. CPU-bound, so it runs in the ingest's
 * file worker (file-worker.ts): a 50 MB statement never blocks the event loop.
 */
export function prepareFile(content: string, sealingKey: Buffer): { file: PreparedFile; kept: KeptEntries } {
  const bodies: TransactionsJson[] = [];
  const kept: KeptEntries = [];
  const parsed = parseBankFile(content, {
    onTransaction: (tx: StatementTransaction, block: number) => {
      bodies[block] ??= new TransactionsJson();
      bodies[block].add(tx);
      const entry = entryOf(tx);
      if (entry === undefined) return;
      kept[block] ??= { entries: [], sources: [] };
      const k = kept[block];
      k.entries.push(entry);
      k.sources.push(evidenceSourceOf(tx));
    },
  });
  if (!parsed.ok) return { file: { ok: false, error: parsed.error }, kept: [] };
  if (parsed.kind === 'status-report') {
    return {
      file: { ok: true, kind: 'status-report', sourceFormat: parsed.sourceFormat, report: parsed.report, content },
      kept: [],
    };
  }
  const blocks: PreparedBlock[] = [];
  for (const b of parsed.blocks) {
    if (!b.ok) {
      blocks.push({ index: b.index, ok: false, account: b.account, message: b.message });
      continue;
    }
    const body = bodies[b.index] ?? new TransactionsJson();
    body.flush();
    // JSON.stringify(statement) with the transactions where the empty list stands: the key is the
    // only `"transactions":[]` (a string value cannot hold an unescaped quote).
    const header = JSON.stringify(b.statement);
    const at = header.indexOf('"transactions":[]') + '"transactions":['.length;
    const prefix = header.slice(0, at);
    const suffix = header.slice(at);
    const gzipped = Buffer.concat([gzipSync(prefix), ...body.members, gzipSync(suffix)]);
    // The key leaves out what the file around the statement says (the camt group header's message id,
    // the copy/duplicate mark of a statement sent again): the same statement in two files, one key.
    const keyed = JSON.stringify({ ...b.statement, messageId: null, copyDuplicate: null });
    const keyAt = keyed.indexOf('"transactions":[]') + '"transactions":['.length;
    const statementKey = createHash('sha256')
      .update(`${keyed.slice(0, keyAt)}\u0000${body.hash.digest('hex')}\u0000${keyed.slice(keyAt)}`, 'utf8')
      .digest('hex');
    const payloadSealed = sealCompressed(sealingKey, gzipped);
    const entries = kept[b.index]?.entries ?? [];
    blocks.push({
      index: b.index,
      ok: true,
      account: b.account,
      warnings: b.warnings,
      header: b.statement,
      transactionCount: body.count,
      statementKey,
      payloadSealed,
      hasEntries: entries.length > 0,
      returned: returnedEndToEndIds(entries),
      named: namedEndToEndIds(entries),
    });
  }
  return {
    file: {
      ok: true,
      kind: 'statement',
      digest: createHash('sha256').update(content, 'utf8').digest('hex'),
      fileSealed: sealCompressed(sealingKey, gzipInRuns(content)),
      format: parsed.format,
      sourceFormat: parsed.sourceFormat,
      blocks,
      alerts: parsed.alerts,
    },
    kept,
  };
}

/** The fields of a POST /journal/ingest body besides the file; checked as the route's schema would. */
export type IngestFields = {
  companyId: string;
  platformId?: string;
  bankKey?: string;
  environment?: 'test' | 'production';
};

type Issue = { path: string; message: string };

/**
 * Reads a POST /journal/ingest JSON body (in the file worker: a 50 MB body is never parsed on the
 * event loop). Answers the fields and the file, or the error the route answers.
 */
export function readIngestBody(
  bytes: Uint8Array,
):
  | { ok: true; fields: IngestFields; content: string }
  | { ok: false; status: number; code: string; message: string; details?: { issues: Issue[] } } {
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  } catch {
    return { ok: false, status: 400, code: 'invalid_json', message: 'the body is not valid JSON' };
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    const issues = [{ path: 'body', message: 'must be object' }];
    return {
      ok: false,
      status: 400,
      code: 'validation_failed',
      message: 'the request does not match the schema',
      details: { issues },
    };
  }
  const b = body as Record<string, unknown>;
  const issues: Issue[] = [];
  const text = (name: string, required: boolean, max?: number) => {
    const v = b[name];
    if (v === undefined) {
      if (required) issues.push({ path: 'body', message: `must have required property '${name}'` });
    } else if (typeof v !== 'string') issues.push({ path: `body.${name}`, message: 'must be string' });
    else if (max !== undefined && v.length > max) {
      issues.push({ path: `body.${name}`, message: `must NOT have more than ${max} characters` });
    }
  };
  text('companyId', true, 64);
  text('content', true);
  text('platformId', false, 64);
  text('bankKey', false, 64);
  if (b.environment !== undefined && b.environment !== 'test' && b.environment !== 'production') {
    issues.push({ path: 'body.environment', message: 'must be test or production' });
  }
  if (issues.length > 0) {
    return {
      ok: false,
      status: 400,
      code: 'validation_failed',
      message: 'the request does not match the schema',
      details: { issues },
    };
  }
  const fields: IngestFields = { companyId: b.companyId as string };
  if (typeof b.platformId === 'string') fields.platformId = b.platformId;
  if (typeof b.bankKey === 'string') fields.bankKey = b.bankKey;
  if (b.environment === 'test' || b.environment === 'production') fields.environment = b.environment;
  return { ok: true, fields, content: b.content as string };
}
