/**
 * The ingest's file worker thread (file-worker.ts starts it): parses and seals bank files, and keeps
 * each statement's booked entries until the ingest asks for its matches and then releases the file.
 */
import { parentPort } from 'node:worker_threads';
import { matchStatement } from '../../domain/recon/statement-match.ts';
import type { ReconLine } from '../../domain/recon/types.ts';
import { type KeptEntries, prepareFile, readIngestBody } from './prepare-file.ts';

export type WorkerRequest =
  | { op: 'prepare'; seq: number; file: number; content?: string; key: Uint8Array }
  | { op: 'chunk'; file: number; bytes: Uint8Array }
  | { op: 'read-json'; seq: number; file: number }
  | {
      op: 'match';
      seq: number;
      file: number;
      block: number;
      lines: ReconLine[];
      context: { source: string; documentId: string };
    }
  | { op: 'release'; file: number };

export type WorkerReply = { seq: number; ok: true; value: unknown } | { seq: number; ok: false; message: string };

const kept = new Map<number, KeptEntries>();
/** Files read from a request body, waiting for `prepare` once the caller's access is checked. */
const texts = new Map<number, string>();
/** Request bodies arriving chunk by chunk (file-worker.ts, startUpload). */
const uploads = new Map<number, Buffer[]>();
const port = parentPort;

port?.on('message', async (request: WorkerRequest) => {
  if (request.op === 'release') {
    kept.delete(request.file);
    texts.delete(request.file);
    uploads.delete(request.file);
    return;
  }
  if (request.op === 'chunk') {
    const chunks = uploads.get(request.file) ?? [];
    chunks.push(Buffer.from(request.bytes.buffer, request.bytes.byteOffset, request.bytes.byteLength));
    uploads.set(request.file, chunks);
    return;
  }
  let reply: WorkerReply;
  try {
    if (request.op === 'read-json') {
      const chunks = uploads.get(request.file) ?? [];
      uploads.delete(request.file);
      const read = readIngestBody(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
      chunks.length = 0;
      if (read.ok) texts.set(request.file, read.content);
      reply = {
        seq: request.seq,
        ok: true,
        value: read.ok ? { ok: true, fields: read.fields, empty: read.content.trim() === '' } : read,
      };
    } else if (request.op === 'prepare') {
      const content = request.content ?? texts.get(request.file) ?? '';
      texts.delete(request.file);
      const prepared = prepareFile(content, Buffer.from(request.key));
      if (prepared.file.ok && prepared.file.kind === 'statement') kept.set(request.file, prepared.kept);
      reply = { seq: request.seq, ok: true, value: prepared.file };
    } else {
      const entries = kept.get(request.file)?.[request.block];
      reply = {
        seq: request.seq,
        ok: true,
        value: matchStatement(request.lines, entries?.entries ?? [], entries?.sources ?? [], request.context),
      };
    }
  } catch (error) {
    reply = { seq: request.seq, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});
