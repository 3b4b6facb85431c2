import type { Transferable, Worker } from 'node:worker_threads';
import { StrippedGraph, strippedWorker } from './stripped-worker.ts';

/**
 * The port for "run this pure job off the event loop" (docs/adr/0029, 0054): one worker thread per
 * JobThread, started on first use from modules this thread stripped of their types, never keeping the
 * process alive while nothing is asked of it. A request that carries a `seq` is answered once (a
 * value, or the error's message); any other message is one-way. What the thread runs is the caller's
 * (its entry serves its requests with serveJobs, serve-jobs.ts); this file knows only threads,
 * module loading and replies.
 */
export type JobThreadOptions = {
  /** The thread's old generation, in MB: a small one makes it collect instead of growing the process. */
  heapMb: number;
  /** The thread's young generation, in MB. */
  youngMb: number;
  /** Said in the message of every error the thread answers. */
  label: string;
};

type Pending = { resolve(value: unknown): void; reject(error: Error): void };
/** What serveJobs answers to a request with a `seq`. */
export type JobReply = { seq: number; ok: true; value: unknown } | { seq: number; ok: false; message: string };

export class JobThread<Request extends { op: string }, Notice = never> {
  readonly #entry: URL;
  readonly #options: JobThreadOptions;
  #graph: StrippedGraph | undefined;
  #worker: Worker | undefined;
  readonly #pending = new Map<number, Pending>();
  #seq = 0;
  #onNotice: (notice: Notice) => void = () => {};
  #onGone: () => void = () => {};

  constructor(entry: URL, options: JobThreadOptions) {
    this.#entry = entry;
    this.#options = options;
  }

  /**
   * Strips the thread's modules ahead of its first use, a file per turn of the event loop (a server
   * calls this once it listens), so that the first job does not wait 50-85 ms for it.
   */
  warm(): Promise<void> {
    this.#graph ??= new StrippedGraph(this.#entry);
    return this.#graph.warm();
  }

  /** Messages the thread sends of its own (not replies), e.g. progress. */
  onNotice(handler: (notice: Notice) => void): void {
    this.#onNotice = handler;
  }

  /** Called when the thread dies (out of memory, a bug), after every pending request failed. */
  onGone(handler: () => void): void {
    this.#onGone = handler;
  }

  /** Asks the thread and awaits its answer; `transfer` moves buffers to it instead of copying them. */
  call<T>(request: Request & { seq?: never }, transfer?: Transferable[]): Promise<T> {
    const seq = ++this.#seq;
    const w = this.#thread();
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(seq, { resolve: resolve as (v: unknown) => void, reject });
      // While a request is out, the thread keeps the process alive: its answer is awaited.
      w.ref();
      try {
        w.postMessage({ ...request, seq }, transfer);
      } catch (error) {
        this.#pending.delete(seq);
        reject(error as Error);
      }
    }).finally(() => {
      if (this.#pending.size === 0) this.#worker?.unref();
    });
  }

  /** A one-way message (the thread answers nothing), starting the thread when `start`. */
  post(message: Request, transfer?: Transferable[], start = true): void {
    const w = start ? this.#thread() : this.#worker;
    w?.postMessage(message, transfer);
  }

  #thread(): Worker {
    if (this.#worker) return this.#worker;
    // Its modules come stripped from this thread: one type stripper per process, not two (~40 MB).
    this.#graph ??= new StrippedGraph(this.#entry);
    const started = strippedWorker(this.#entry, this.#graph, {
      resourceLimits: { maxOldGenerationSizeMb: this.#options.heapMb, maxYoungGenerationSizeMb: this.#options.youngMb },
    });
    started.unref();
    started.on('message', (reply: JobReply | Notice) => {
      if (typeof reply !== 'object' || reply === null || !('seq' in reply)) {
        this.#onNotice(reply as Notice);
        return;
      }
      const p = this.#pending.get(reply.seq);
      if (!p) return;
      this.#pending.delete(reply.seq);
      if (reply.ok) p.resolve(reply.value);
      else p.reject(new Error(`${this.#options.label}: ${reply.message}`));
    });
    // A thread that dies fails what it held; the next job starts a new one.
    const gone = (error: Error) => {
      if (this.#worker === started) this.#worker = undefined;
      for (const p of this.#pending.values()) p.reject(error);
      this.#pending.clear();
      this.#onGone();
    };
    started.on('error', gone);
    started.on('exit', (code) => gone(new Error(`${this.#options.label} exited with code ${code}`)));
    this.#worker = started;
    return started;
  }
}
