import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * A bank simulator's state, kept as one JSON file so that a sandbox's simulated bank remembers its
 * subscribers and files across restarts; in memory only when no file is given (tests).
 */
export type StateStore<State> = { state: State; save(): void };

/** The state saved in `file`, or undefined when there is none (or it cannot be read: a fresh bank). */
export function loadState<State>(file: string | undefined): State | undefined {
  if (!file) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as State;
  } catch {
    return undefined;
  }
}

/** Saves by writing a temporary file and renaming it, so a crash never leaves half a state. */
export function stateStore<State>(state: State, file: string | undefined): StateStore<State> {
  return {
    state,
    save() {
      if (!file) return;
      mkdirSync(path.dirname(file), { recursive: true });
      const temp = `${file}.${process.pid}.tmp`;
      writeFileSync(temp, JSON.stringify(state), { mode: 0o600 });
      renameSync(temp, file);
    },
  };
}
