/**
 * The real server process (`npm start`) on an embedded PostgreSQL: it starts on an empty DATA_DIR,
 * answers /health and /ready, shuts down cleanly on SIGTERM and SIGINT leaving no PostgreSQL process
 * behind, keeps its data across restarts, and refuses a bad configuration naming the variable.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../src/platform/free-port.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SERVER = path.join(ROOT, 'src/main/server.ts');

let dataDir: string;
before(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'payops-lifecycle-'));
});
after(() => rmSync(dataDir, { recursive: true, force: true }));

/** The environment of a fresh install: none of the test run's database settings. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (
      /^(DATABASE_URL|MASTER_KEY|PORT|HOST|ROLE|SANDBOX|PUBLIC_BASE_URL|LOG_LEVEL|DATA_DIR|TEST_.*|NODE_TEST.*)$/.test(
        name,
      )
    )
      continue;
    env[name] = value;
  }
  return { ...env, ...extra };
}

type Running = { child: ChildProcess; base: string; output: () => string; exited: Promise<number | null> };

function start(port: number, extra: Record<string, string> = {}): Running {
  const child = spawn(process.execPath, [SERVER], {
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

/**
 * How long a start may take before a test gives up: a bound against hanging, not a speed check (that
 * is `npm run bench:startup`). initdb alone takes tens of seconds on a loaded two-core machine.
 */
const START_DEADLINE_MS = 120_000;

async function waitForHealth(running: Running, timeoutMs: number): Promise<void> {
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

/** Stops the server with a signal; answers its exit code and how long it took. */
async function stop(running: Running, signal: NodeJS.Signals): Promise<{ code: number | null; ms: number }> {
  const startedAt = Date.now();
  running.child.kill(signal);
  const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 20_000).unref());
  const code = await Promise.race([running.exited, timeout]);
  if (code === 'timeout') {
    running.child.kill('SIGKILL');
    throw new Error(`no exit within 20 s after ${signal}:\n${running.output()}`);
  }
  return { code, ms: Date.now() - startedAt };
}

/** Processes whose command line names DATA_DIR (the postmaster runs with -D <DATA_DIR>/pg). */
function processesUsing(dir: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (cmdline.includes(dir) && Number(pid) !== process.pid) found.push(`${pid}: ${cmdline}`);
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}

async function json(res: Response): Promise<Record<string, unknown>> {
  return (await res.json()) as Record<string, unknown>;
}

test('starts on an empty DATA_DIR, serves, and stops on SIGTERM leaving no PostgreSQL; data persists', async (t) => {
  type Sandbox = {
    apiKey: string;
    platformId: string;
    companyId: string;
    dashboardLogin: { email: string; password: string };
  };
  let sandbox: Sandbox;

  // Run 1: first start on an empty folder.
  {
    const running = start(await freePort());
    const startedAt = Date.now();
    try {
      // 30 s is a hang guard, not the speed target: time is measured in benchmarks, not asserted
      // in tests, where a loaded CI machine would make it flaky. The figure is reported.
      await waitForHealth(running, START_DEADLINE_MS);
      t.diagnostic(`first start on an empty DATA_DIR: ${Date.now() - startedAt} ms`);
      const ready = await fetch(`${running.base}/ready`);
      assert.equal(ready.status, 200);
      // ROLE=all by default: the workers of this process are reported as well.
      assert.deepEqual(await json(ready), { ready: true, workers: { running: true, stalled: [] } });
      assert.ok(processesUsing(dataDir).length > 0, 'the embedded PostgreSQL runs with its data in DATA_DIR');

      const provisioned = await fetch(`${running.base}/api/sandbox/provision`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      assert.equal(provisioned.status, 201);
      assert.match(String(provisioned.headers.get('x-request-id')), /^req_/);
      assert.equal(provisioned.headers.get('service-version'), '2026-06-01');
      sandbox = (await provisioned.json()) as Sandbox;
    } finally {
      if (running.child.exitCode === null) {
        const stopped = await stop(running, 'SIGTERM');
        assert.equal(stopped.code, 0, running.output());
      }
    }
    assert.deepEqual(processesUsing(dataDir), [], 'no PostgreSQL process is left behind');
    assert.doesNotMatch(running.output(), /"level":50/, 'no error logged');
  }

  // Run 2: the same folder; what run 1 created is still there. Stopped with SIGINT this time.
  {
    const running = start(await freePort());
    try {
      await waitForHealth(running, START_DEADLINE_MS);
      assert.deepEqual(await json(await fetch(`${running.base}/ready`)), {
        ready: true,
        workers: { running: true, stalled: [] },
      });
      const login = await fetch(`${running.base}/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: sandbox.dashboardLogin.email, password: sandbox.dashboardLogin.password }),
      });
      assert.equal(login.status, 200);
      const invited = await fetch(`${running.base}/users`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': sandbox.apiKey },
        body: JSON.stringify({
          platformId: sandbox.platformId,
          companyId: sandbox.companyId,
          email: 'after-restart@example.com',
          name: 'After Restart',
          roles: ['viewer'],
        }),
      });
      assert.equal(invited.status, 201);
    } finally {
      if (running.child.exitCode === null) {
        const stopped = await stop(running, 'SIGINT');
        assert.equal(stopped.code, 0, running.output());
      }
    }
    assert.deepEqual(processesUsing(dataDir), [], 'no PostgreSQL process is left behind');
  }
});

test('a SIGTERM during start-up, once PostgreSQL runs, still shuts down cleanly', async () => {
  const early = mkdtempSync(path.join(tmpdir(), 'payops-lifecycle-early-'));
  let leftRunning: Running | undefined;
  try {
    const running = start(await freePort(), { DATA_DIR: early });
    leftRunning = running;
    const deadline = Date.now() + START_DEADLINE_MS;
    while (!running.output().includes('embedded PostgreSQL started') && Date.now() < deadline) {
      if (running.child.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.ok(running.output().includes('embedded PostgreSQL started'), running.output());
    assert.ok(!running.output().includes('service ready'), 'the signal comes before the service is ready');
    const stopped = await stop(running, 'SIGTERM');
    assert.equal(stopped.code, 0, running.output());
    assert.deepEqual(processesUsing(early), [], 'no PostgreSQL process is left behind');
  } finally {
    // A failed assertion above must not leave the service running: it would keep this file alive.
    if (leftRunning && leftRunning.child.exitCode === null) await stop(leftRunning, 'SIGTERM');
    rmSync(early, { recursive: true, force: true });
  }
});

test('a bad configuration exits non-zero with a message naming the variable', async () => {
  for (const [name, value] of [
    ['PORT', 'abc'],
    ['ROLE', 'everything'],
  ] as const) {
    const running = start(await freePort(), { [name]: value });
    const code = await running.exited;
    assert.notEqual(code, 0);
    assert.match(running.output(), new RegExp(`\\b${name}\\b`), running.output());
    assert.doesNotMatch(running.output(), /\n\s+at /, 'a message, not a stack trace');
  }
  assert.deepEqual(processesUsing(dataDir), []);
});
