/**
 * The stateless statement route parses off the event loop as the stored ingest does (issue 41 item
 * 5, docs/adr/0029): three 50 MB camt.053 files (generated here, never committed) are posted at once
 * to the real server process while another process probes /health. Every probe answers 200, the
 * slowest within a bound stretched by the machine's run queue (load average over cores), as in
 * test/journal/large-ingest.test.ts; the server's peak resident memory (VmHWM, the whole process with
 * its file worker) stays bounded; every answer holds every entry, and nothing is stored.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { freePort } from '../../src/platform/free-port.ts';
import { freshDatabase } from '../harness.ts';
import { largeCamt053 } from '../support/large-camt.ts';
import { ROOT, type Running, startServer, stopServer, waitForHealth } from '../support/server-process.ts';

const MB = 1024 * 1024;
let database: Awaited<ReturnType<typeof freshDatabase>>;
let server: Running;
let apiKey: string;
let companyId: string;
/** The server's peak RSS bound (see its assertion). */
const PEAK_BOUND_MB = 600;

before(async () => {
  database = await freshDatabase();
  server = startServer('.tmp/large-statement', await freePort(), {
    DATABASE_URL: database.url,
    MASTER_KEY: randomBytes(32).toString('base64'),
    SANDBOX: 'true',
    ROLE: 'api',
    LOG_LEVEL: 'warn',
  });
  await waitForHealth(server);
  const provisioned = await fetch(`${server.base}/sandbox/provision`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  assert.equal(provisioned.status, 201);
  ({ apiKey, companyId } = (await provisioned.json()) as { apiKey: string; companyId: string });
});
after(async () => {
  await stopServer(server);
  await database.drop();
});

/** Peak resident memory of a process so far (VmHWM), in MB. */
const peakRssMb = (pid: number) =>
  Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

test('three 50 MB statements at once: /health answers throughout, the server stays bounded, every entry answered', {
  timeout: 240_000,
}, async (t) => {
  const { xml, entries } = largeCamt053(50 * MB);
  const body = Buffer.from(xml);
  assert.ok(body.length > 50 * MB && body.length < 64 * MB, `${body.length} bytes`);

  const baseline = peakRssMb(server.child.pid!);
  const prober = spawn(process.execPath, [path.join(ROOT, 'test/support/health-prober.ts'), server.base], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let probeOutput = '';
  prober.stdout.on('data', (chunk: Buffer) => {
    probeOutput += chunk.toString();
  });
  const proberExited = new Promise<number | null>((resolve) => prober.on('exit', resolve));
  await new Promise((r) => setTimeout(r, 100));
  const started = performance.now();
  const answers = await Promise.all(
    [0, 1, 2].map(async () => {
      const res = await fetch(`${server.base}/inbound/statement`, {
        method: 'POST',
        headers: { 'content-type': 'application/xml', 'x-api-key': apiKey },
        body,
      });
      const text = await res.text();
      return { status: res.status, contentType: res.headers.get('content-type'), text };
    }),
  );
  const allMs = performance.now() - started;
  prober.stdin.end();
  assert.equal(await proberExited, 0, 'every /health probe answered 200');
  const probes = probeOutput.trim().split('\n').map(Number);

  for (const answer of answers) {
    assert.equal(answer.status, 200, answer.text.slice(0, 500));
    assert.equal(answer.contentType, 'application/json; charset=utf-8');
    const { items } = JSON.parse(answer.text) as { items: Array<{ transactions: unknown[] }> };
    assert.equal(items.length, 1);
    assert.equal(items[0]!.transactions.length, entries);
  }
  const slowest = Math.max(...probes);
  const stretch = Math.max(1, loadavg()[0]! / availableParallelism());
  const peak = peakRssMb(server.child.pid!);
  t.diagnostic(
    `3 x 50 MB /inbound/statement: ${Math.round(allMs)} ms, ${probes.length} /health probes, slowest ${Math.round(slowest)} ms, server peak RSS ${Math.round(peak)} MB (${Math.round(baseline)} MB before), answers ${answers.map((a) => Math.round(a.text.length / MB)).join(', ')} MB`,
  );
  assert.ok(probes.length >= 10, `only ${probes.length} probes`);
  // A bound against the event loop being held for a parse (1.3-1.5 s per statement, 4.1 s for three
  // before this route used the file worker), not the speed target: the 100 ms is a figure
  // to measure on a quiet machine (npm run bench, docs/benchmarks.md), not a timed assertion.
  assert.ok(slowest < 500 * stretch, `a /health probe took ${Math.round(slowest)} ms (load ${loadavg()[0]})`);
  // A memory bound (the whole server process), not a timing one. Three parses on the event loop
  // peaked at 1,055-1,064 MB; parsed in the worker but with each body gathered and joined on the
  // event loop (the three 50 MB bodies waiting there at once), 574-681 MB. Since the raw body streams
  // into the worker (docs/adr/0064) the bodies wait in their sockets: 560 MB is what was measured
  // (481-507 MB at load 4-6, docs/benchmarks.md) plus room for the collector's timing. 2026-12-03: the
  // same run peaks at 539-562 MB on this build and 545 MB on 3a0f084 (257-260 MB before the bodies), so
  // 560 was inside the spread; 600 keeps the bound far below the 1,055 MB of parsing on the event loop.
  assert.ok(peak < PEAK_BOUND_MB, `server peak RSS ${Math.round(peak)} MB, ${Math.round(baseline)} MB before`);

  const stored = await fetch(`${server.base}/journal/documents?companyId=${companyId}&direction=inbound`, {
    headers: { 'x-api-key': apiKey },
  });
  assert.equal(stored.status, 200);
  assert.equal(((await stored.json()) as { items: unknown[] }).items.length, 0, 'nothing is stored');
});
