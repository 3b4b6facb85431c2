import { NO_RETURNS, type StatementMatchOutcome } from '../../domain/recon/statement-match.ts';
import type { ReconLine } from '../../domain/recon/types.ts';
import type { StatementLeftovers } from '../../domain/recon/unmatched-entries.ts';
import { collectYoung } from '../../platform/collect.ts';
import { JobThread } from '../../platform/off-loop/job-thread.ts';
import type { IncomingSource } from '../receivables/record-incoming.ts';
import type { StatementEntries } from '../recon/reconcile-statement.ts';
import type { LeftoverSource } from '../recon/record-unmatched.ts';
import type { WorkerAck, WorkerRequest } from './file-worker-thread.ts';
import type { IngestFields } from './ingest-body.ts';
import type { PreparedFile } from './prepare-file.ts';

/**
 * Bank files are parsed off the event loop: one worker thread per process (started on first use,
 * never keeping the process alive) parses each ingested file with the streaming parser, seals its
 * payloads and keeps its booked entries; the ingest's transaction then only sends the candidate
 * lines there and gets the matches back. A 50 MB statement costs the event loop a copy of its text
 * and of the sealed values, not the seconds of parsing and sealing (docs/adr/0029).
 */
export type PreparedHandle = {
  file: PreparedFile;
  /**
   * The booked entries of one statement block, matched in the worker; and what the match left over
   * (asked for after reconciling, docs/adr/0047). A new handle per transaction attempt.
   */
  entriesOf(block: number): StatementEntries & LeftoverSource & IncomingSource;
  /** Drops what the worker keeps of the file; idempotent. */
  release(): void;
};

const WORKER_HEAP_MB = 320;
/**
 * The worker's young generation: V8's default grew to 64 MB during a large file, all of it resident;
 * what survives a parse is the matcher's entries, so a small one costs little (docs/adr/0029).
 */
const WORKER_YOUNG_MB = 8;

/** Sealed values (payloads and file) past which an ingest collects its young garbage as it writes. */
const LARGE_SEALED = 2 * 1024 * 1024;
/** Unmatched records between two of those collections (10 pages, record-unmatched.ts). */
const COLLECT_EVERY_RECORDS = 5000;

const WORKER_ENTRY = new URL('./file-worker-thread.ts', import.meta.url);
const thread = new JobThread<WorkerRequest, WorkerAck>(WORKER_ENTRY, {
  // A small old generation makes the worker collect its garbage (a file's text, decoded and parsed,
  // is several copies of it for a moment) instead of growing the process; 64 MiB bodies fit.
  heapMb: WORKER_HEAP_MB,
  youngMb: WORKER_YOUNG_MB,
  label: 'file worker',
});
thread.onNotice((ack) => inFlight.get(ack.read)?.acked(ack.bytes));
// Paused uploads go on (into nothing) when the worker dies: their requests end, and the read finds no body.
thread.onGone(() => {
  for (const upload of inFlight.values()) upload.acked(Number.POSITIVE_INFINITY);
});
let fileIds = 0;

/**
 * Strips the file worker's modules ahead of its first use (a server calls this once it listens), so
 * that the first ingest does not wait 50-85 ms for it.
 */
export function warmFileWorker(): Promise<void> {
  return thread.warm();
}

async function prepareFileId(
  file: number,
  content: string | Uint8Array | undefined,
  sealingKey: Buffer,
  stateless = false,
): Promise<PreparedHandle> {
  // A body's own buffer moves to the worker rather than being copied (it is not used here after).
  const transfer =
    content instanceof Uint8Array && content.byteOffset === 0 && content.byteLength === content.buffer.byteLength
      ? [content.buffer as ArrayBuffer]
      : undefined;
  const prepared = await thread.call<PreparedFile>(
    {
      op: 'prepare',
      file,
      key: sealingKey,
      ...(content === undefined ? {} : { content }),
      ...(stateless ? { stateless: true } : {}),
    },
    transfer,
  );
  let released = false;
  const large =
    prepared.ok &&
    prepared.kind === 'statement' &&
    prepared.blocks.reduce((n, b) => n + (b.ok ? b.payloadSealed.length : 0), prepared.fileSealed.length) >
      LARGE_SEALED;
  return {
    file: prepared,
    entriesOf(block) {
      const b =
        prepared.ok && prepared.kind === 'statement' ? prepared.blocks.find((x) => x.index === block) : undefined;
      const ok = b?.ok === true ? b : undefined;
      // Whether this attempt matched: without a match (no candidate line) every entry is left over.
      let afterMatch = false;
      return {
        hasEntries: ok?.hasEntries ?? false,
        returned: ok?.returned ?? NO_RETURNS,
        named: ok?.named ?? null,
        match: (lines: ReconLine[], context: { source: string; documentId: string }) => {
          afterMatch = true;
          return thread.call<StatementMatchOutcome>({ op: 'match', file, block, lines, context });
        },
        incoming: (page) => {
          // As for the leftovers below: each page's JSON and its insert leave young garbage behind that
          // nothing else here would collect during a large statement's writes.
          if (large && page % 10 === 0) collectYoung();
          return thread.call<{ json: string; count: number; next: number | null }>({
            op: 'incoming',
            file,
            block,
            page,
          });
        },
        leftovers: (request) => {
          if (!ok?.hasEntries)
            return Promise.resolve({ unmatched: { json: '[]', count: 0 }, matchedKeys: [], next: null });
          // The document's insert (its sealed values) and each page's leave pg buffers behind that die
          // young, but this thread allocates little else meanwhile, so nothing collects them: a
          // scavenge frees them (a few ms), before the first page and then every few pages.
          if (large && request.from % COLLECT_EVERY_RECORDS === 0) collectYoung();
          return thread.call<StatementLeftovers & { next: number | null }>({
            op: 'leftovers',
            file,
            block,
            afterMatch,
            ...request,
          });
        },
      };
    },
    release() {
      if (released) return;
      released = true;
      thread.post({ op: 'release', file }, undefined, false);
    },
  };
}

/**
 * Parses and seals a bank file in the worker thread. Bytes (a raw request body) are decoded there;
 * a buffer that owns its memory is moved there and is empty here afterwards.
 */
export function prepareInWorker(content: string | Uint8Array, sealingKey: Buffer): Promise<PreparedHandle> {
  return prepareFileId(++fileIds, content, sealingKey);
}

/**
 * The stateless statement route's file (docs/adr/0064): a raw upload (startUpload with `raw`) or a
 * text, parsed and its statements' JSON sealed under `sealingKey`; no digest or copy of the file is made.
 */
export function prepareStateless(content: number | string, sealingKey: Buffer): Promise<PreparedHandle> {
  if (typeof content === 'number') {
    inFlight.delete(content);
    return prepareFileId(content, undefined, sealingKey, true);
  }
  return prepareFileId(++fileIds, content, sealingKey, true);
}

export type ReadBody =
  | {
      ok: true;
      fields: IngestFields;
      /** Only whitespace: nothing to ingest. */
      empty: boolean;
      /** Parses and seals the file the body carried (once the caller's access is checked). */
      prepare(sealingKey: Buffer): Promise<PreparedHandle>;
      /** Drops the file when it is not prepared after all; idempotent. */
      discard(): void;
    }
  | { ok: false; code: 'invalid_json' | 'validation_failed'; message: string; details?: Record<string, unknown> };

/**
 * A request body streamed into the worker thread chunk by chunk as it arrives (the ingest route's
 * body parser): the event loop never holds, decodes or parses a large body; the worker does.
 */
export type Upload = {
  file: number;
  /** False when the worker is behind: pause the body and go on when `drained` calls back. */
  push(chunk: Buffer): boolean;
  drained(then: () => void): void;
  abort(): void;
};

/**
 * Bytes of an upload posted to the worker and not yet read there. The socket delivers a body faster
 * than the worker reads it (it may still be starting, or the machine busy): without a bound, tens of
 * megabytes of chunks waited in its queue beside the body it was building (docs/adr/0029).
 */
const IN_FLIGHT_MAX = 4 * 1024 * 1024;
const inFlight = new Map<number, { acked(bytes: number): void }>();

/** Drops whatever the worker still holds of a file (an upload a failed request never read). */
export function releaseFile(file: number): void {
  inFlight.delete(file);
  thread.post({ op: 'release', file }, undefined, false);
}

/** `raw`: the body is the file itself (the stateless statement route), not the ingest route's JSON. */
export function startUpload(declaredSize?: number, raw = false): Upload {
  const file = ++fileIds;
  thread.post({ op: 'upload', file, size: declaredSize, ...(raw ? { raw: true } : {}) });
  let posted = 0;
  let waiting: (() => void) | undefined;
  inFlight.set(file, {
    acked(bytes) {
      posted -= bytes;
      if (posted > IN_FLIGHT_MAX || waiting === undefined) return;
      const then = waiting;
      waiting = undefined;
      then();
    },
  });
  return {
    file,
    drained(then) {
      if (posted <= IN_FLIGHT_MAX) then();
      else waiting = then;
    },
    push(chunk) {
      // Moved, not copied: a socket's chunk owns its memory, which then leaves this thread at once
      // instead of waiting here for a collection (up to 64 MB of them did). Any other is copied.
      const owned = chunk.byteOffset === 0 && chunk.byteLength === chunk.buffer.byteLength;
      const bytes =
        owned && chunk.buffer instanceof ArrayBuffer ? (chunk as Uint8Array<ArrayBuffer>) : new Uint8Array(chunk);
      posted += bytes.byteLength;
      thread.post({ op: 'chunk', file, bytes }, [bytes.buffer]);
      return posted <= IN_FLIGHT_MAX;
    },
    abort() {
      inFlight.delete(file);
      thread.post({ op: 'release', file });
    },
  };
}

/** Reads an uploaded POST /journal/ingest JSON body in the worker; the file stays there. */
export async function readUploadInWorker(file: number): Promise<ReadBody> {
  inFlight.delete(file);
  const read = await thread.call<{ ok: true; fields: IngestFields; empty: boolean } | Extract<ReadBody, { ok: false }>>(
    { op: 'read-json', file },
  );
  if (!read.ok) return read;
  let done = false;
  return {
    ...read,
    prepare(sealingKey) {
      done = true;
      return prepareFileId(file, undefined, sealingKey);
    },
    discard() {
      if (done) return;
      done = true;
      thread.post({ op: 'release', file }, undefined, false);
    },
  };
}
