/**
 * The ingest's file worker thread (file-worker.ts starts it): parses and seals bank files, and keeps
 * each statement's booked entries until the ingest asks for its matches and then releases the file.
 */
import { parentPort } from 'node:worker_threads';
import { matchStatement } from '../../domain/recon/statement-match.ts';
import type { ReconLine } from '../../domain/recon/types.ts';
import { statementLeftovers } from '../../domain/recon/unmatched-entries.ts';
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
  | {
      /** The block's entries that matched no line (every one when `afterMatch` is false), docs/adr/0047. */
      op: 'leftovers';
      seq: number;
      file: number;
      block: number;
      afterMatch: boolean;
      account: string;
      matchedKeys: boolean;
    }
  | { op: 'release'; file: number };

export type WorkerReply = { seq: number; ok: true; value: unknown } | { seq: number; ok: false; message: string };

const kept = new Map<number, KeptEntries>();
/** Per file and block, the entries the last match left unmatched (with the ambiguity that stopped them). */
const unmatchedOf = new Map<number, Map<number, Map<number, string | null>>>();
/** Files read from a request body, waiting for `prepare` once the caller's access is checked. */
const texts = new Map<number, string>();
/** Request bodies arriving chunk by chunk (file-worker.ts, startUpload). */
const uploads = new Map<number, Buffer[]>();
const port = parentPort;

port?.on('message', async (request: WorkerRequest) => {
  if (request.op === 'release') {
    kept.delete(request.file);
    unmatchedOf.delete(request.file);
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
      const entries = kept.get(request.file)?.[request.block];
      const byBlock = unmatchedOf.get(request.file);
      const unmatched = request.afterMatch ? (byBlock?.get(request.block) ?? new Map()) : null;
      byBlock?.delete(request.block);
      reply = {
        seq: request.seq,
        ok: true,
        value: entries
          ? statementLeftovers(entries, unmatched, { account: request.account, matchedKeys: request.matchedKeys })
          : { unmatched: [], matchedKeys: [] },
      };
    }
  } catch (error) {
    reply = { seq: request.seq, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});
