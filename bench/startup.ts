/**
 * `npm run bench:startup`: how long `npm start` takes on an empty DATA_DIR until /health answers
 * (initdb of the embedded PostgreSQL, migrations, pg-boss schema), and a restart on the same folder.
 * The foundation issue asks for a first start under 10 s. Measured here, not asserted in tests: a
 * loaded CI machine would make a timed test flaky. Three fresh folders; the median is printed.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../src/platform/free-port.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

/** Starts the server on `dataDir`; answers the milliseconds until /health gave 200, and the child. */
async function timeToHealth(dataDir: string): Promise<{ ms: number; child: ChildProcess }> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn' };
  for (const name of ['DATABASE_URL', 'MASTER_KEY', 'ROLE']) delete env[name];
  const startedAt = performance.now();
  const child = spawn(process.execPath, [path.join(ROOT, 'src/main/server.ts')], { cwd: ROOT, env, stdio: 'inherit' });
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(1000) });
      if (res.status === 200) return { ms: performance.now() - startedAt, child };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const first: number[] = [];
const again: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'payops-startup-'));
  try {
    const fresh = await timeToHealth(dataDir);
    first.push(fresh.ms);
    await stop(fresh.child);
    const restart = await timeToHealth(dataDir);
    again.push(restart.ms);
    await stop(restart.child);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
const row = (xs: number[]) => `${Math.round(median(xs))} | ${xs.map((x) => Math.round(x)).join(', ')}`;
process.stdout.write(
  `| start | median ms | runs ms |\n|---|---|---|\n| first start, empty DATA_DIR (target < 10,000) | ${row(first)} |\n| restart, same DATA_DIR | ${row(again)} |\n`,
);
