/** The real server process (`node src/main/server.ts`) for tests of start-up and recovery. */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SERVER = path.join(ROOT, 'src/main/server.ts');

/** A bound against hanging (initdb alone takes tens of seconds on a loaded machine), not a speed check. */
export const START_DEADLINE_MS = 120_000;

/** The environment of a fresh install: none of the test run's database settings. */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (
      /^(DATABASE_URL|MASTER_KEYS?|PORT|HOST|ROLE|SANDBOX|PUBLIC_BASE_URL|LOG_LEVEL|DATA_DIR|TEST_.*|NODE_TEST.*)$/.test(
        name,
      )
    )
      continue;
    env[name] = value;
  }
  return { ...env, ...extra };
}

export type Running = { child: ChildProcess; base: string; output: () => string; exited: Promise<number | null> };

/**
 * Starts the service as `command` (by default this test run's Node on src/main/server.ts; the stop
 * test passes the commands the operations guide gives, `npm start` among them). `ownGroup` puts it
 * in a process group of its own, so that a test can kill whatever it left behind at once.
 */
export function startServer(
  dataDir: string,
  port: number,
  extra: Record<string, string> = {},
  options: { command?: readonly string[]; ownGroup?: boolean } = {},
): Running {
  const [program, ...args] = (options.command ?? [process.execPath, SERVER]) as [string, ...string[]];
  const child = spawn(program, args, {
    detached: options.ownGroup === true,
    cwd: ROOT,
    env: cleanEnv({ DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'info', ...extra }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, base: `http://127.0.0.1:${port}`, output: () => output, exited };
}

export async function waitForHealth(running: Running, timeoutMs = START_DEADLINE_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exitCode: number | null | undefined;
  void running.exited.then((code) => {
    exitCode = code;
  });
  while (Date.now() < deadline) {
    if (exitCode !== undefined) throw new Error(`server exited with ${exitCode}:\n${running.output()}`);
    try {
      const res = await fetch(`${running.base}/health`, { signal: AbortSignal.timeout(1000) });
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no /health within ${timeoutMs} ms:\n${running.output()}`);
}

/** Stops the server with a signal (SIGKILL after 20 s); answers its exit code. */
export async function stopServer(running: Running, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  if (running.child.exitCode !== null || running.child.signalCode !== null) return running.child.exitCode;
  running.child.kill(signal);
  const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 20_000).unref());
  const code = await Promise.race([running.exited, timeout]);
  if (code === 'timeout') {
    running.child.kill('SIGKILL');
    throw new Error(`no exit within 20 s after ${signal}:\n${running.output()}`);
  }
  return code;
}

/** Processes (pid and command line) whose command line names `text`, other than this one. */
export function processesNaming(text: string): { pid: number; cmdline: string }[] {
  const found: { pid: number; cmdline: string }[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (cmdline.includes(text) && Number(pid) !== process.pid) found.push({ pid: Number(pid), cmdline });
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}

export async function eventually(check: () => boolean, timeoutMs: number, what: string, everyMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
