/**
 * The ingest's file worker thread (file-worker.ts starts it): parses and seals bank files, and keeps
 * each statement's booked entries until the ingest asks for its matches and then releases the file.
 */
import { parentPort } from 'node:worker_threads';
import { matchStatement } from '../../domain/recon/statement-match.ts';
import type { ReconLine } from '../../domain/recon/types.ts';
import {
  type LeftoverIndex,
  leftoverIndex,
  leftoverRecord,
  unmatchedPage,
} from '../../domain/recon/unmatched-entries.ts';
import { collectAll } from '../../platform/collect.ts';
import { IngestBodyReader } from './ingest-body.ts';
import { type KeptEntries, prepareFile, type ReceivedFile, receivedFileOf } from './prepare-file.ts';

export type WorkerRequest =
  | { op: 'prepare'; seq: number; file: number; content?: string; key: Uint8Array }
  | { op: 'upload'; file: number; size: number | undefined }
  | { op: 'chunk'; file: number; bytes: Uint8Array<ArrayBuffer> }
  | { op: 'read-json'; seq: number; file: number }
  | {
      op: 'match';
      seq: number;
      file: number;
      block: number;
      lines: ReconLine[];
      context: { source: string; documentId: string };
    }
  | {
      /** The block's entries that matched no line (every one when `afterMatch` is false), docs/adr/0047. */
      op: 'leftovers';
      seq: number;
      file: number;
      block: number;
      afterMatch: boolean;
      account: string;
      matchedKeys: boolean;
      /** Where this page of the unmatched records starts (0: the first, with the matched keys). */
      from: number;
      limit: number;
    }
  | { op: 'release'; file: number };

export type WorkerReply = { seq: number; ok: true; value: unknown } | { seq: number; ok: false; message: string };
/** How many bytes of an upload this thread has read since it last said so (file-worker.ts, startUpload). */
export type WorkerAck = { read: number; bytes: number };

/** An upload's progress is told every this many bytes read. */
const ACK_EVERY = 1024 * 1024;
const unacked = new Map<number, number>();

const kept = new Map<number, KeptEntries>();
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
const port = parentPort;

/** Files larger than this are collected right after they are prepared (below). */
const COLLECT_AFTER = 8 * 1024 * 1024;
/**
 * A full collection of this thread's heap (collectAll). Once a large file is prepared its text (tens
 * of megabytes) is garbage, but this thread then idles while the ingest writes the rows, and an idle
 * heap is not collected: the process would carry the text through its busiest moment.
 */
const collect = collectAll;

port?.on('message', async (request: WorkerRequest) => {
  if (request.op === 'release') {
    kept.delete(request.file);
    unmatchedOf.delete(request.file);
    leftoverOf.delete(request.file);
    texts.delete(request.file);
    uploads.delete(request.file);
    unacked.delete(request.file);
    return;
  }
  if (request.op === 'upload') {
    uploads.set(request.file, new IngestBodyReader(request.size));
    return;
  }
  if (request.op === 'chunk') {
    uploads.get(request.file)?.push(request.bytes);
    const read = (unacked.get(request.file) ?? 0) + request.bytes.byteLength;
    // The chunk was transferred here and is read: free it now, not at the next collection (a 50 MB
    // body is 800 of them, and this idle thread would otherwise hold them all until then).
    request.bytes.buffer.transfer(0);
    if (read >= ACK_EVERY) {
      unacked.delete(request.file);
      port.postMessage({ read: request.file, bytes: read } satisfies WorkerAck);
    } else unacked.set(request.file, read);
    return;
  }
  let reply: WorkerReply;
  let large = false;
  try {
    if (request.op === 'read-json') {
      const reader = uploads.get(request.file) ?? new IngestBodyReader();
      uploads.delete(request.file);
      unacked.delete(request.file);
      const read = reader.end();
      if (read.ok) {
        const { text, bytes } = read.file;
        texts.set(request.file, { text, received: bytes && receivedFileOf(bytes) });
        read.file.release();
      }
      reply = {
        seq: request.seq,
        ok: true,
        value: read.ok ? { ok: true, fields: read.fields, empty: read.file.text.trim() === '' } : read,
      };
    } else if (request.op === 'prepare') {
      const read = texts.get(request.file);
      texts.delete(request.file);
      // Held by `source` alone, so that prepareFile can drop it (and collect) once it is parsed.
      const source = { text: request.content ?? read?.text ?? '' };
      if (read) read.text = '';
      large = source.text.length > COLLECT_AFTER;
      const prepared = prepareFile(source, Buffer.from(request.key), read?.received, large ? collect : undefined);
      if (prepared.file.ok && prepared.file.kind === 'statement') kept.set(request.file, prepared.kept);
      reply = { seq: request.seq, ok: true, value: prepared.file };
    } else if (request.op === 'match') {
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
      reply = { seq: request.seq, ok: true, value: outcome };
    } else {
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
      reply = {
        seq: request.seq,
        ok: true,
        value: {
          unmatched: unmatchedPage(page.map((at) => leftoverRecord(entries!, all.notes, at))),
          matchedKeys: request.from === 0 ? all.index.matchedKeys : [],
          next,
        },
      };
    }
  } catch (error) {
    reply = { seq: request.seq, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
  // Once this handler has returned: until then its own variables still hold the text.
  if (large) setImmediate(collect);
});
