import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * A bank simulator's state, kept as one JSON file so that a sandbox's simulated bank remembers its
 * subscribers and files across restarts; in memory only when no file is given (tests).
 */
export type StateStore<State> = { state: State; save(): void; flush(): void };

/**
 * How long a save may wait for others to join it. Writing the whole state on every request made a
 * busy simulator quadratic (the bench's 2,000 EBICS uploads: megabytes stringified per request, on
 * the event loop of the process that also serves the API); a simulator that dies loses at most this
 * much of its memory, which a sandbox bank can afford (docs/adr/0065).
 */
const SAVE_WITHIN_MS = 500;

/** The state saved in `file`, or undefined when there is none (or it cannot be read: a fresh bank). */
export function loadState<State>(file: string | undefined): State | undefined {
  if (!file) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as State;
  } catch {
    return undefined;
  }
}

/** Saves by writing a temporary file and renaming it, so a crash never leaves half a state; saves close together are one write. */
export function stateStore<State>(state: State, file: string | undefined): StateStore<State> {
  let timer: NodeJS.Timeout | undefined;
  const write = () => {
    timer = undefined;
    if (!file) return;
    mkdirSync(path.dirname(file), { recursive: true });
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify(state), { mode: 0o600 });
    renameSync(temp, file);
  };
  return {
    state,
    save() {
      if (!file || timer) return;
      timer = setTimeout(write, SAVE_WITHIN_MS);
      timer.unref();
    },
    /** Writes a pending save now (the simulator is closing). */
    flush() {
      if (!timer) return;
      clearTimeout(timer);
      write();
    },
  };
}
