/**
 * The bank files' job thread (file-worker.ts starts it through the platform's JobThread): parses and
 * seals bank files, and keeps each statement's booked entries until the ingest asks for its matches
 * and then releases the file. Pure work only: the thread, its module loading and its replies are the
 * platform's (src/platform/off-loop).
 */

import type { IncomingPages } from '../../domain/receivables/incoming.ts';
import { matchStatement } from '../../domain/recon/statement-match.ts';
import type { ReconLine } from '../../domain/recon/types.ts';
import {
  type LeftoverIndex,
  leftoverIndex,
  leftoverRecord,
  unmatchedPage,
} from '../../domain/recon/unmatched-entries.ts';
import { collectAll } from '../../platform/collect.ts';
import { notify, serveJobs } from '../../platform/off-loop/serve-jobs.ts';
import { IngestBodyReader } from './ingest-body.ts';
import {
  digestOf,
  type KeptEntries,
  prepareFile,
  type ReceivedFile,
  receivedFileOf,
  receivedFileOfText,
} from './prepare-file.ts';
import { RawBody } from './raw-body.ts';

export type WorkerRequest =
  | {
      op: 'prepare';
      file: number;
      /** The file's text, or its bytes as received (the stateless route: decoded here as parseBankFile does). */
      content?: string | Uint8Array;
      key: Uint8Array;
      /**
       * The stateless route (docs/adr/0064): the file is a raw upload, nothing is journaled, so no digest
       * or sealed copy of the whole file is made.
       */
      stateless?: true;
    }
  | {
      op: 'upload';
      file: number;
      size: number | undefined;
      /** A raw body (the stateless route) rather than the ingest route's JSON. */
      raw?: true;
    }
  | { op: 'chunk'; file: number; bytes: Uint8Array<ArrayBuffer> }
  | { op: 'read-json'; file: number }
  | {
      op: 'match';
      file: number;
      block: number;
      lines: ReconLine[];
      context: { source: string; documentId: string };
    }
  | {
      /** The block's entries that matched no line (every one when `afterMatch` is false), docs/adr/0047. */
      op: 'leftovers';
      file: number;
      block: number;
      afterMatch: boolean;
      account: string;
      matchedKeys: boolean;
      /** Where this page of the unmatched records starts (0: the first, with the matched keys). */
      from: number;
      limit: number;
    }
  | {
      /** One page of the block's credits as incoming payments' records (docs/adr/0069). */
      op: 'incoming';
      file: number;
      block: number;
      page: number;
    }
  | { op: 'release'; file: number };

/** How many bytes of an upload this thread has read since it last said so (file-worker.ts, startUpload). */
export type WorkerAck = { read: number; bytes: number };

/** An upload's progress is told every this many bytes read. */
const ACK_EVERY = 1024 * 1024;
const unacked = new Map<number, number>();

const kept = new Map<number, KeptEntries>();
const incomingOf = new Map<number, IncomingPages>();
/**
 * Per file and block, the entries the last match left unmatched (with the ambiguity that stopped
 * them): the last match is the one that counts (the named lines first, then every open line when an
 * entry was left, reconcileStatement).
 */
const unmatchedOf = new Map<number, Map<number, Map<number, string | null>>>();
/** Per file and block, the records being handed out page by page (the ingest inserts each page). */
const leftoverOf = new Map<number, Map<number, { index: LeftoverIndex; notes: Map<number, string | null> | null }>>();
/**
 * Files read from a request body, waiting for `prepare` once the caller's access is checked, with
 * their digest and compressed copy when those were made from the body's bytes.
 */
const texts = new Map<number, { text: string; received: ReceivedFile | undefined }>();
/** Request bodies arriving chunk by chunk (file-worker.ts, startUpload), read as they come. */
const uploads = new Map<number, IngestBodyReader>();
/** Raw bodies arriving chunk by chunk (the stateless statement route). */
const rawUploads = new Map<number, RawBody>();

/** Files larger than this are collected right after they are prepared (below). */
const COLLECT_AFTER = 8 * 1024 * 1024;
/**
 * A full collection of this thread's heap (collectAll). Once a large file is prepared its text (tens
 * of megabytes) is garbage, but this thread then idles while the ingest writes the rows, and an idle
 * heap is not collected: the process would carry the text through its busiest moment.
 */
const collect = collectAll;

type Req<Op extends WorkerRequest['op']> = Extract<WorkerRequest, { op: Op }>;

function release(request: Req<'release'>): void {
  kept.delete(request.file);
  incomingOf.delete(request.file);
  unmatchedOf.delete(request.file);
  leftoverOf.delete(request.file);
  texts.delete(request.file);
  uploads.delete(request.file);
  rawUploads.delete(request.file);
  unacked.delete(request.file);
}

function chunk(request: Req<'chunk'>): void {
  (uploads.get(request.file) ?? rawUploads.get(request.file))?.push(request.bytes);
  const read = (unacked.get(request.file) ?? 0) + request.bytes.byteLength;
  // The chunk was transferred here and is read: free it now, not at the next collection (a 50 MB
  // body is 800 of them, and this idle thread would otherwise hold them all until then).
  request.bytes.buffer.transfer(0);
  if (read >= ACK_EVERY) {
    unacked.delete(request.file);
    notify({ read: request.file, bytes: read } satisfies WorkerAck);
  } else unacked.set(request.file, read);
}

function readJson(request: Req<'read-json'>) {
  const reader = uploads.get(request.file) ?? new IngestBodyReader();
  uploads.delete(request.file);
  unacked.delete(request.file);
  const read = reader.end();
  if (!read.ok) return read;
  const { text, bytes } = read.file;
  // The digest from the bytes, the copy from the text once the bytes are freed: a copy made from the
  // bytes held them, the text and itself at once (50, 50 and 9 MB of a 50 MB file, docs/adr/0069).
  const digest = bytes && digestOf(bytes);
  read.file.release();
  texts.set(request.file, { text, received: digest === undefined ? undefined : receivedFileOfText(digest, text) });
  return { ok: true, fields: read.fields, empty: read.file.text.trim() === '' };
}

/** No digest and no copy of the whole file: the stateless route journals nothing. */
const UNKEPT: ReceivedFile = { digest: '', gzipped: Buffer.alloc(0) };

function prepare(request: Req<'prepare'>) {
  if (request.stateless) {
    const raw = rawUploads.get(request.file);
    rawUploads.delete(request.file);
    unacked.delete(request.file);
    const source = { text: request.content ?? raw?.end() ?? new Uint8Array(0) };
    const large = source.text.length > COLLECT_AFTER;
    const prepared = prepareFile(source, Buffer.from(request.key), UNKEPT, large ? collect : undefined);
    if (large) setImmediate(collect);
    return prepared.file;
  }
  const read = texts.get(request.file);
  texts.delete(request.file);
  // Held by `source` alone, so that prepareFile can drop it (and collect) once it is parsed.
  const source = { text: request.content ?? read?.text ?? '' };
  if (read) read.text = '';
  const large = source.text.length > COLLECT_AFTER;
  // Bytes carry their digest and copy from themselves (a text is decoded from them in the parse).
  const received = typeof source.text === 'string' ? read?.received : receivedFileOf(source.text);
  const prepared = prepareFile(source, Buffer.from(request.key), received, large ? collect : undefined);
  if (prepared.file.ok && prepared.file.kind === 'statement') {
    kept.set(request.file, prepared.kept);
    incomingOf.set(request.file, prepared.incoming);
  }
  // Once the reply is posted: until then this job's own variables still hold the text.
  if (large) setImmediate(collect);
  return prepared.file;
}

function match(request: Req<'match'>) {
  const entries = kept.get(request.file)?.[request.block];
  const { unmatched, ...outcome } = matchStatement(
    request.lines,
    entries?.entries ?? [],
    entries?.sources ?? [],
    request.context,
  );
  const byBlock = unmatchedOf.get(request.file) ?? new Map();
  byBlock.set(request.block, unmatched);
  unmatchedOf.set(request.file, byBlock);
  return outcome;
}

function leftovers(request: Req<'leftovers'>) {
  // Made once, on the first page; handed out in pages so that neither the ingest's thread nor its
  // insert holds a whole statement's records at once (a 50 MB statement of unmatched debits).
  const pages =
    leftoverOf.get(request.file) ??
    new Map<number, { index: LeftoverIndex; notes: Map<number, string | null> | null }>();
  leftoverOf.set(request.file, pages);
  let all = request.from === 0 ? undefined : pages.get(request.block);
  if (all === undefined) {
    const byBlock = unmatchedOf.get(request.file);
    const notes = request.afterMatch ? (byBlock?.get(request.block) ?? new Map<number, string | null>()) : null;
    byBlock?.delete(request.block);
    const entries = kept.get(request.file)?.[request.block];
    all = {
      index: entries
        ? leftoverIndex(entries, notes, { account: request.account, matchedKeys: request.matchedKeys })
        : { unmatched: [], matchedKeys: [] },
      notes,
    };
    pages.set(request.block, all);
  }
  const entries = kept.get(request.file)?.[request.block];
  const end = request.from + request.limit;
  const next = end < all.index.unmatched.length ? end : null;
  if (next === null) pages.delete(request.block);
  const page = entries ? all.index.unmatched.slice(request.from, end) : [];
  return {
    unmatched: unmatchedPage(page.map((at) => leftoverRecord(entries!, all.notes, at))),
    matchedKeys: request.from === 0 ? all.index.matchedKeys : [],
    next,
  };
}

function incoming(request: Req<'incoming'>) {
  const pages = incomingOf.get(request.file);
  const page = pages?.page(request.block, request.page) ?? { json: '[]', count: 0 };
  const count = pages?.pageCount(request.block) ?? 0;
  return { ...page, next: request.page + 1 < count ? request.page + 1 : null };
}

serveJobs<WorkerRequest>((request) => {
  switch (request.op) {
    case 'release':
      return release(request);
    case 'upload':
      if (request.raw) rawUploads.set(request.file, new RawBody(request.size));
      else uploads.set(request.file, new IngestBodyReader(request.size));
      return;
    case 'chunk':
      return chunk(request);
    case 'read-json':
      return readJson(request);
    case 'prepare':
      return prepare(request);
    case 'match':
      return match(request);
    case 'leftovers':
      return leftovers(request);
    case 'incoming':
      return incoming(request);
  }
});
