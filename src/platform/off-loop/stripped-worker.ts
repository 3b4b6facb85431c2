import { readFileSync } from 'node:fs';
import { stripTypeScriptTypes } from 'node:module';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * A worker thread whose TypeScript modules were stripped of their types by this thread, which has
 * the stripper loaded already. A thread that loads a .ts module itself loads its own copy of Node's
 * type stripper (a WebAssembly module whose memory grows with each file and never shrinks): that
 * was 42 of the file worker's 57 MB (docs/adr/0029). This thread walks the worker's static imports
 * (relative `.ts` specifiers), strips each file once (types become spaces: lines and columns in
 * stack traces stay right) and hands the sources over; the worker's load hook serves them by URL.
 * A module the walk missed (a dynamic import) is loaded and stripped by the worker as before:
 * correct, only heavier.
 */
export function strippedWorker(entry: URL, graph: StrippedGraph, options: WorkerOptions): Worker {
  return new Worker(BOOT, { ...options, eval: true, workerData: { entry: entry.href, sources: graph.sources() } });
}

/** Runs in the worker (CommonJS, no types: it must not load the stripper itself). */
const BOOT = `
const { registerHooks } = require('node:module');
const { workerData } = require('node:worker_threads');
const sources = new Map(workerData.sources);
registerHooks({
  load(url, context, nextLoad) {
    const source = sources.get(url);
    if (source === undefined) return nextLoad(url, context);
    sources.delete(url);
    return { format: 'module', source, shortCircuit: true };
  },
});
import(workerData.entry);
`;

/** `import ... from './x.ts'`, `export ... from '../y.ts'`, `import './z.ts'` (type-only imports are gone once stripped). */
const RELATIVE_IMPORT = /\b(?:import|export)\s*(?:[\w*{}\s,$]*?\sfrom\s*)?['"](\.{1,2}\/[^'"\n]+\.ts)['"]/g;

/**
 * The entry's static graph of relative .ts modules, stripped, by URL. Stripping the file worker's 40
 * modules takes 50-85 ms, too long for the event loop in one go once requests are being served
 * (/health answers within 100 ms during an ingest): `warm` strips them a file per turn of the event
 * loop ahead of need; `sources` strips whatever is still left at once.
 */
export class StrippedGraph {
  private readonly stripped = new Map<string, string>();
  private readonly queue: string[];

  constructor(entry: URL) {
    this.queue = [entry.href];
  }

  async warm(): Promise<void> {
    while (this.next()) await new Promise((resolve) => setImmediate(resolve));
  }

  sources(): [string, string][] {
    while (this.next()) {}
    return [...this.stripped];
  }

  /** Strips one more module; false when none is left. */
  private next(): boolean {
    let url = this.queue.pop();
    while (url !== undefined && this.stripped.has(url)) url = this.queue.pop();
    if (url === undefined) return false;
    let code: string;
    try {
      code = withoutExperimentalWarning(() =>
        stripTypeScriptTypes(readFileSync(new URL(url), 'utf8'), { mode: 'strip' }),
      );
    } catch {
      return true; // a specifier in a comment or a string that names no file: the worker never loads it
    }
    this.stripped.set(url, code);
    for (const m of code.matchAll(RELATIVE_IMPORT)) this.queue.push(new URL(m[1]!, url).href);
    return true;
  }
}

/**
 * `stripTypeScriptTypes` is marked experimental and warns once on stderr, although it is the same
 * stripper that loads every module of this service; the warning would only confuse an operator.
 */
function withoutExperimentalWarning<T>(run: () => T): T {
  const emit = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const type = typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: string } | undefined)?.type;
    if (type === 'ExperimentalWarning' && String(warning).includes('stripTypeScriptTypes')) return;
    (emit as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return run();
  } finally {
    process.emitWarning = emit;
  }
}
