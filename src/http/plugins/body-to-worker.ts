import type { FastifyRequest } from 'fastify';
import { startUpload } from '../../app/bank-files/file-worker.ts';
import { AppError } from '../../app/errors.ts';

type Done = (error: Error | null, body?: unknown) => void;

/**
 * A content-type parser that streams the request body into the file worker chunk by chunk as it
 * arrives, so the event loop never holds or joins a bank file of tens of megabytes (docs/adr/0029).
 * The parsed body is `{upload}`, the worker's handle of the file; a route releases it when it is not
 * used (releaseFile). `raw`: the body is the bank file itself (else an ingest's JSON body).
 */
export function bodyToWorker(limit: number, raw: boolean) {
  return (request: FastifyRequest, payload: NodeJS.ReadableStream, done: Done): void => {
    const tooLarge = () => new AppError('payload_too_large', `the request body is larger than ${limit} bytes`);
    const declared = Number(request.headers['content-length'] ?? Number.NaN);
    if (declared > limit) {
      payload.resume();
      done(tooLarge(), undefined);
      return;
    }
    const upload = startUpload(Number.isSafeInteger(declared) && declared >= 0 ? declared : undefined, raw);
    let size = 0;
    let finished = false;
    const finish = (error: Error | null) => {
      if (finished) return;
      finished = true;
      if (error) upload.abort();
      done(error, error ? undefined : { upload: upload.file });
    };
    payload.on('data', (chunk: Buffer) => {
      if (finished) return;
      size += chunk.length;
      if (size > limit) finish(tooLarge());
      else if (!upload.push(chunk)) {
        // The worker is behind: the body waits in the socket, not in the worker's queue.
        payload.pause();
        upload.drained(() => payload.resume());
      }
    });
    payload.on('end', () => finish(null));
    payload.on('error', (error: Error) => finish(error));
  };
}
