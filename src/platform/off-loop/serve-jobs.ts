import { parentPort } from 'node:worker_threads';
import type { JobReply } from './job-thread.ts';

/**
 * The thread side of JobThread (job-thread.ts): each message is handed to `run`; a request with a
 * `seq` is answered with what `run` returned, or with the message of what it threw. Work to do once
 * the reply is posted (a collection of the garbage a large job left) is scheduled by `run` with
 * setImmediate: the reply is posted before it runs.
 */
export function serveJobs<Request extends { op: string }>(run: (request: Request) => unknown): void {
  const port = parentPort;
  port?.on('message', (request: Request & { seq?: number }) => {
    const seq = request.seq;
    if (seq === undefined) {
      run(request);
      return;
    }
    let reply: JobReply;
    try {
      reply = { seq, ok: true, value: run(request) };
    } catch (error) {
      reply = { seq, ok: false, message: error instanceof Error ? error.message : String(error) };
    }
    port.postMessage(reply);
  });
}

/** A message the thread sends of its own accord (JobThread.onNotice). */
export function notify(notice: unknown): void {
  parentPort?.postMessage(notice);
}
