import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../platform/logger.ts';

/**
 * A PostgreSQL left running on the embedded data folder by a run that died without stopping it
 * (`kill -9`, OOM killer, power cut of the parent only): it holds `postmaster.pid` and its port, and
 * a new start fails on the lock. Before starting, the folder's `postmaster.pid` is read and the
 * process it names is checked to be a postgres of this very folder (its working directory is the
 * data folder, its command is postgres) and not the server of a live service; it is then stopped with
 * a fast shutdown (SIGINT: open transactions roll back, a checkpoint is written, nothing committed is
 * lost) and the start goes on. Anything that cannot be verified is refused with a message saying what
 * to do, never killed.
 */
export class EmbeddedStartError extends Error {}

const STOP_WAIT_MS = 30_000;

type PidFile = { pid: number; dataDir: string; port: number | undefined };

function readPidFile(databaseDir: string): PidFile | undefined {
  let text: string;
  try {
    text = readFileSync(path.join(databaseDir, 'postmaster.pid'), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  // Lines: pid, data directory, start time, port, socket directory, listen address, shmem key, status.
  const lines = text.split('\n');
  const pid = Number(lines[0]);
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  const port = Number(lines[3]);
  return { pid, dataDir: lines[1] ?? '', port: Number.isSafeInteger(port) ? port : undefined };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const proc = (pid: number, file: string) => readFileSync(`/proc/${pid}/${file}`, 'utf8');
const real = (p: string) => {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
};

/** The parent pid of a process (field 4 of /proc/<pid>/stat, after the parenthesised command). */
function parentOf(pid: number): number | undefined {
  try {
    const stat = proc(pid, 'stat');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** Whether `pid` is the postmaster of `databaseDir`: a postgres whose working directory is that folder. */
function isPostmasterOf(pid: number, databaseDir: string, pidFile: PidFile): boolean {
  if (real(pidFile.dataDir) !== real(databaseDir)) return false;
  let argv0: string;
  try {
    argv0 = proc(pid, 'cmdline').split('\0')[0] ?? '';
  } catch {
    return false;
  }
  if (path.basename(argv0) !== 'postgres') return false;
  try {
    // PostgreSQL changes into its data directory at start.
    return realpathSync(`/proc/${pid}/cwd`) === real(databaseDir);
  } catch {
    // Not readable (another user and we are not root): the pid file's folder and the command agree.
    return true;
  }
}

async function waitForExit(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !alive(pid);
}

/** Stops a verified leftover PostgreSQL of `databaseDir`; answers whether there was one. */
export async function stopLeftoverPostgres(databaseDir: string, logger: Logger): Promise<boolean> {
  const pidFile = readPidFile(databaseDir);
  // No lock, or a stale one of a process that is gone: PostgreSQL itself replaces a stale lock file.
  if (!pidFile || !alive(pidFile.pid)) return false;
  const lockFile = path.join(databaseDir, 'postmaster.pid');
  if (process.platform !== 'linux') {
    throw new EmbeddedStartError(
      `${lockFile} names process ${pidFile.pid}, which is still running: stop that PostgreSQL (pg_ctl stop -D ${databaseDir}) and start again`,
    );
  }
  if (!isPostmasterOf(pidFile.pid, databaseDir, pidFile)) {
    throw new EmbeddedStartError(
      `${lockFile} names process ${pidFile.pid}, which is not a PostgreSQL of this folder; if no PostgreSQL uses ${databaseDir}, delete that file and start again`,
    );
  }
  const parent = parentOf(pidFile.pid);
  if (parent !== undefined && parent > 1 && parent !== process.pid && alive(parent)) {
    let owner = '';
    try {
      owner = proc(parent, 'cmdline').replaceAll('\0', ' ').trim();
    } catch {}
    throw new EmbeddedStartError(
      `the embedded PostgreSQL of this DATA_DIR is in use by a running process (pid ${parent}${owner ? `: ${owner.slice(0, 80)}` : ''}); stop it, or give this service another DATA_DIR`,
    );
  }
  logger.warn(
    { pid: pidFile.pid, port: pidFile.port, databaseDir },
    'a PostgreSQL left running by a previous run holds the data folder; stopping it (fast shutdown)',
  );
  process.kill(pidFile.pid, 'SIGINT');
  if (!(await waitForExit(pidFile.pid, STOP_WAIT_MS))) {
    throw new EmbeddedStartError(
      `the PostgreSQL left running on ${databaseDir} (pid ${pidFile.pid}) did not stop within ${STOP_WAIT_MS / 1000} s; stop it (kill -INT ${pidFile.pid}) and start again`,
    );
  }
  logger.info({ pid: pidFile.pid }, 'the leftover PostgreSQL stopped; starting afresh');
  return true;
}
