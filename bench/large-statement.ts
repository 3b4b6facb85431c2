/**
 * `node bench/large-statement.ts`: issue 41 item 5's figure. Three ~50 MB camt.053 files (generated,
 * never committed) posted at once to `POST /inbound/statement` of the real server process while
 * another process probes /health every 20 ms; prints the slowest probe, its p99 and median, and the
 * server's peak RSS (VmHWM, the whole process with its file worker). The target, /health under 100 ms,
 * is measured here on a quiet machine, not asserted (test/inbound/large-statement.test.ts asserts
 * generous bounds). BENCH_SERVER_ROOT runs another checkout's server (e.g. main's, for a comparison).
 * Timings: wrap in `flock /tmp/bench.lock` on a shared machine.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { freePort } from '../src/platform/free-port.ts';
import { largeCamt053 } from '../test/support/large-camt.ts';
import { ROOT, startServer, stopServer, waitForHealth } from '../test/support/server-process.ts';

const MB = 1024 * 1024;
const serverRoot = process.env.BENCH_SERVER_ROOT ?? ROOT;
const peakRssMb = (pid: number) =>
  Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

// Its own embedded PostgreSQL in a fresh folder (initdb first), as `npm start` on an empty DATA_DIR.
const dataDir = mkdtempSync(path.join(ROOT, '.tmp/bench-large-statement-'));
const server = startServer(
  dataDir,
  await freePort(),
  {
    MASTER_KEY: randomBytes(32).toString('base64'),
    SANDBOX: 'true',
    ROLE: 'api',
    LOG_LEVEL: 'warn',
  },
  { command: [process.execPath, path.join(serverRoot, 'src/main/server.ts')] },
);
try {
  await waitForHealth(server);
  const provisioned = await fetch(`${server.base}/sandbox/provision`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  const { apiKey } = (await provisioned.json()) as { apiKey: string };
  const { xml, entries } = largeCamt053(50 * MB);
  const body = Buffer.from(xml);
  const before = peakRssMb(server.child.pid!);
  const prober = spawn(process.execPath, [path.join(ROOT, 'test/support/health-prober.ts'), server.base], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let output = '';
  prober.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise((resolve) => prober.on('exit', resolve));
  await new Promise((r) => setTimeout(r, 200));
  const started = performance.now();
  const sizes = await Promise.all(
    [0, 1, 2].map(async () => {
      const res = await fetch(`${server.base}/inbound/statement`, {
        method: 'POST',
        headers: { 'content-type': 'application/xml', 'x-api-key': apiKey },
        body,
      });
      if (res.status !== 200) throw new Error(`answered ${res.status}`);
      return (await res.arrayBuffer()).byteLength;
    }),
  );
  const ms = performance.now() - started;
  prober.stdin.end();
  await exited;
  const probes = output
    .trim()
    .split('\n')
    .map(Number)
    .sort((a, b) => a - b);
  const at = (q: number) => probes[Math.min(probes.length - 1, Math.floor(q * probes.length))]!;
  console.log(
    JSON.stringify({
      server: serverRoot,
      body_mb: Math.round(body.length / MB),
      entries,
      all_ms: Math.round(ms),
      probes: probes.length,
      health_slowest_ms: Math.round(probes.at(-1)!),
      health_p99_ms: Math.round(at(0.99)),
      health_median_ms: Math.round(at(0.5)),
      peak_rss_mb: Math.round(peakRssMb(server.child.pid!)),
      rss_before_mb: Math.round(before),
      answer_mb: sizes.map((s) => Math.round(s / MB)),
      load: loadavg()[0]!.toFixed(1),
    }),
  );
} finally {
  await stopServer(server);
  rmSync(dataDir, { recursive: true, force: true });
}
