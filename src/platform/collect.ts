import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Gc = (options?: { type?: 'major' | 'minor'; execution?: 'sync' }) => void;

/**
 * V8's `gc`, for the few places that know a large amount of garbage was just made and that the heap
 * will not collect it soon by itself (docs/adr/0029). `--expose-gc` only makes new contexts get a
 * `gc` function; nothing else of the process changes. A no-op where it is unavailable.
 */
const gc: Gc = (() => {
  try {
    setFlagsFromString('--expose-gc');
    const found: unknown = runInNewContext('gc');
    return typeof found === 'function' ? (found as Gc) : () => {};
  } catch {
    return () => {};
  }
})();

/** A full collection of this thread's heap (tens of milliseconds for a large heap). */
export const collectAll = (): void => gc();

/**
 * A young-generation collection (a scavenge: a few milliseconds, it copies only what is alive). Frees
 * the memory of buffers that died young, which otherwise waits for the young generation to fill.
 */
export const collectYoung = (): void => gc({ type: 'minor' });
