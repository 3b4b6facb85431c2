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
import { IncomingPages } from '../../domain/receivables/incoming.ts';
import { type EvidenceSource, entryOf, evidenceSourceOf } from '../../domain/recon/statement-entries.ts';
import { NamedEndToEndIds, type ReturnLookups, returnLookupsOf } from '../../domain/recon/statement-match.ts';
import type { ReconEntry } from '../../domain/recon/types.ts';
import { type EntryDetails, entryDetailsOf, worthListing } from '../../domain/recon/unmatched-entries.ts';
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
      /** What the block's returns name: lines already cleared or returned are read by these. */
      returned: ReturnLookups;
      /** The end-to-end ids the entries carry, looked up first (NamedEndToEndIds); null: every open line. */
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

/**
 * What stays behind per block for matching: the booked debits and returns (the only entries a rule
 * can match or an unmatched record lists, `worthListing`), what their evidence quotes, and what an
 * unmatched entry's record quotes (docs/adr/0047). A plain credit is neither: keeping it cost a
 * collection account's statement most of the worker's memory (docs/adr/0029).
 */
export type KeptEntries = { entries: ReconEntry[]; sources: EvidenceSource[]; details: (EntryDetails | null)[] }[];

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

/**
 * Keeps the matcher's entries as copies made in batches. The parser's strings are substrings of the
 * file's text, which V8 keeps as views of the whole text: a few fields of each kept entry would
 * hold tens of megabytes of text until the ingest ends. A structured clone's strings are new.
 */
class KeptCopies {
  /** Per block: whether any entry was booked, and the end-to-end ids of all of them (credits too). */
  readonly booked: boolean[] = [];
  readonly named: NamedEndToEndIds[] = [];
  private block = -1;
  private entries: ReconEntry[] = [];
  private sources: EvidenceSource[] = [];
  private details: (EntryDetails | null)[] = [];

  private readonly kept: KeptEntries;

  constructor(kept: KeptEntries) {
    this.kept = kept;
  }

  add(block: number, entry: ReconEntry, source: EvidenceSource, details: EntryDetails | null): void {
    this.booked[block] = true;
    this.named[block] ??= new NamedEndToEndIds();
    this.named[block].add(entry);
    if (!worthListing(entry)) return;
    if (block !== this.block) this.flush();
    this.block = block;
    this.entries.push(entry);
    this.sources.push(source);
    // Copied with the entry: the counterparty name and remittance are substrings of the text too.
    this.details.push(details);
    if (this.entries.length >= 1024) this.flush();
  }

  flush(): void {
    if (this.entries.length === 0) return;
    const copy = structuredClone({ entries: this.entries, sources: this.sources, details: this.details });
    this.kept[this.block] ??= { entries: [], sources: [], details: [] };
    const k = this.kept[this.block] as KeptEntries[number];
    k.entries.push(...copy.entries);
    k.sources.push(...copy.sources);
    k.details.push(...copy.details);
    this.entries = [];
    this.sources = [];
    this.details = [];
  }
}

/**
 * A received file's digest (SHA-256 of its UTF-8) and its gzipped copy, made before the parse when
 * its bytes are at hand (a request body, ingest-body.ts) so that they need not be kept.
 */
export type ReceivedFile = { digest: string; gzipped: Buffer };

/** Gzips bytes in 1 MB runs (one member each; they concatenate), as gzipInRuns does a text. */
export function receivedFileOf(bytes: Uint8Array): ReceivedFile {
  const members: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += 1 << 20) {
    members.push(gzipSync(bytes.subarray(at, at + (1 << 20)), { level: 1 }));
  }
  return { digest: digestOf(bytes), gzipped: Buffer.concat(members) };
}

/**
 * A received file's digest from its UTF-8 bytes and its gzipped copy from its text, which is those
 * bytes decoded (the copy unzips to the same bytes): the caller frees the bytes in between, so that
 * a body's bytes, its text and the copy (50, 50 and 9 MB for a 50 MB file) are never held at once.
 */
export function receivedFileOfText(digest: string, text: string): ReceivedFile {
  return { digest, gzipped: gzipInRuns(text) };
}

/** SHA-256 of a file's UTF-8 bytes, hex: its digest. */
export const digestOf = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/**
 * Gzips a text in 1 MB runs (one member each; they concatenate), never encoding it whole: each run is
 * encoded into one scratch buffer, not a new one, which the worker would keep (as many megabytes as
 * the text, outside its heap) until a collection it may not run soon.
 */
function gzipInRuns(text: string): Buffer {
  const members: Buffer[] = [];
  // UTF-8 takes at most 3 bytes per UTF-16 code unit (a surrogate pair's 4 are 2 units' worth).
  const scratch = new Uint8Array(3 << 20);
  const encoder = new TextEncoder();
  for (let at = 0; at < text.length; ) {
    let end = Math.min(text.length, at + (1 << 20));
    // Never between the halves of a surrogate pair: each half alone would encode as U+FFFD.
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    const { written } = encoder.encodeInto(text.slice(at, end), scratch);
    members.push(gzipSync(scratch.subarray(0, written), { level: 1 }));
    at = end;
  }
  scratch.buffer.transfer(0);
  return Buffer.concat(members);
}

/**
 * Parses a bank file and makes everything the journal stores of it, without holding the statements
 * whole: transactions stream out of the parser one by one into their JSON (for the statement key
 * and the sealed payload, gzipped) and their matcher entries. CPU-bound, so it runs in the ingest's
 * file worker (file-worker.ts): a 50 MB statement never blocks the event loop.
 */
export function prepareFile(
  source: { text: string | Uint8Array },
  sealingKey: Buffer,
  received?: ReceivedFile,
  textDropped?: () => void,
): { file: PreparedFile; kept: KeptEntries; incoming: IncomingPages } {
  const bodies: TransactionsJson[] = [];
  const kept: KeptEntries = [];
  const unkept = new KeptCopies(kept);
  // The credits, as incoming payments' records (docs/adr/0069).
  const incoming = new IncomingPages();
  // Each transaction's position in its block (an unmatched entry's entryIndex, as incoming.add counts).
  const positions: number[] = [];
  let parsed = parseBankFile(source.text, {
    onTransaction: (tx: StatementTransaction, block: number) => {
      const position = positions[block] ?? 0;
      positions[block] = position + 1;
      bodies[block] ??= new TransactionsJson();
      bodies[block].add(tx);
      const entry = entryOf(tx);
      incoming.add(block, tx, entry);
      if (entry === undefined) return;
      unkept.add(block, entry, evidenceSourceOf(tx), entryDetailsOf(tx, entry, position));
    },
  });
  unkept.flush();
  incoming.flush();
  incoming.done();
  if (!parsed.ok) return { file: { ok: false, error: parsed.error }, kept: [], incoming };
  if (parsed.kind === 'status-report') {
    return {
      file: {
        ok: true,
        kind: 'status-report',
        sourceFormat: parsed.sourceFormat,
        report: parsed.report,
        content: typeof source.text === 'string' ? source.text : new TextDecoder().decode(source.text),
      },
      kept: [],
      incoming,
    };
  }
  if (received) {
    // The text is not needed any more (its digest and copy came from its bytes): it is dropped before
    // the sealing, where the worker would hold the most, with what the parse made of it (its strings
    // are views of the text; the clone's are not).
    parsed = structuredClone(parsed);
    source.text = '';
    textDropped?.();
  }
  // Bytes came with their digest and copy (file-worker-thread.ts): the text's are made only for a text.
  const text = typeof source.text === 'string' ? source.text : '';
  const blocks: PreparedBlock[] = [];
  for (const b of parsed.blocks) {
    if (!b.ok) {
      blocks.push({ index: b.index, ok: false, account: b.account, message: b.message });
      continue;
    }
    blocks.push(preparedBlock(b, bodies[b.index] ?? new TransactionsJson(), sealingKey, kept, unkept));
  }
  return {
    file: {
      ok: true,
      kind: 'statement',
      digest: received?.digest ?? createHash('sha256').update(text, 'utf8').digest('hex'),
      fileSealed: sealCompressed(sealingKey, received?.gzipped ?? gzipInRuns(text)),
      format: parsed.format,
      sourceFormat: parsed.sourceFormat,
      blocks,
      alerts: parsed.alerts,
    },
    kept,
    incoming,
  };
}

type ParsedStatements = Extract<ReturnType<typeof parseBankFile>, { ok: true; kind: 'statement' }>;
type ParsedBlock = Extract<ParsedStatements['blocks'][number], { ok: true }>;

/** One readable statement block: its header, statement key and sealed payload, and what matching needs. */
function preparedBlock(
  b: ParsedBlock,
  body: TransactionsJson,
  sealingKey: Buffer,
  kept: KeptEntries,
  unkept: KeptCopies,
): PreparedBlock {
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
  return {
    index: b.index,
    ok: true,
    account: b.account,
    warnings: b.warnings,
    header: b.statement,
    transactionCount: body.count,
    statementKey,
    payloadSealed,
    hasEntries: unkept.booked[b.index] === true,
    returned: returnLookupsOf(entries),
    named: unkept.named[b.index]?.list() ?? null,
  };
}
