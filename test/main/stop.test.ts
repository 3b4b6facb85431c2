/**
 * A stop that stops (issue 41): SIGTERM or SIGINT sent to exactly the process the operations guide
 * tells operators to run, `npm start` (its systemd unit's main process) and the direct
 * `node_modules/.bin/node src/main/server.ts` (its container's PID 1), drains the service: a request in
 * flight completes, the process exits 0, and the port is free at once for the next start. Before,
 * npm ran the service through `sh -c`, which did not pass the signal on: npm exited 143 at once and
 * the service, re-parented, kept serving without draining, so the next start found the port in use.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { freePort } from '../../src/platform/free-port.ts';
import { freshDatabase } from '../harness.ts';
import { largeCamt053 } from '../support/large-camt.ts';
import { ROOT, type Running, startServer, stopServer, waitForHealth } from '../support/server-process.ts';

let database: Awaited<ReturnType<typeof freshDatabase>>;
let apiKey: string | undefined;
const masterKey = randomBytes(32).toString('base64');
const running: Running[] = [];

before(async () => {
  database = await freshDatabase();
});
after(async () => {
  // The whole group: before the fix, the service outlived npm, re-parented.
  for (const r of running) {
    try {
      process.kill(-r.child.pid!, 'SIGKILL');
    } catch {}
  }
  await database.drop();
});

/** The guide's production commands (docs/operations.md, "Production start" and its examples). */
const COMMANDS: { name: string; command: string[] }[] = [
  { name: 'npm start', command: ['npm', 'start'] },
  {
    name: 'node_modules/.bin/node src/main/server.ts',
    command: [path.join(ROOT, 'node_modules/.bin/node'), 'src/main/server.ts'],
  },
];

function start(command: string[], port: number): Running {
  const r = startServer(
    '.tmp/stop',
    port,
    { DATABASE_URL: database.url, MASTER_KEY: masterKey, SANDBOX: 'true', ROLE: 'api', LOG_LEVEL: 'info' },
    { command, ownGroup: true },
  );
  running.push(r);
  return r;
}

async function keyFor(base: string): Promise<string> {
  if (apiKey) return apiKey;
  const provisioned = await fetch(`${base}/sandbox/provision`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  assert.equal(provisioned.status, 201);
  apiKey = ((await provisioned.json()) as { apiKey: string }).apiKey;
  return apiKey;
}

/**
 * A POST /inbound/statement whose headers and first half are sent now and whose second half is sent
 * when `finish` is called: a request the server holds in flight for as long as the test wants.
 */
function slowStatement(base: string, key: string) {
  const body = Buffer.from(largeCamt053(64 * 1024).xml);
  const url = new URL(`${base}/inbound/statement`);
  let req: ReturnType<typeof request> | undefined;
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/xml', 'content-length': body.length, 'x-api-key': key },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.write(body.subarray(0, body.length / 2));
  });
  return { answer, finish: () => req?.end(body.subarray(body.length / 2)) };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const CASES = [
  { ...COMMANDS[0]!, signal: 'SIGTERM' as const },
  { ...COMMANDS[0]!, signal: 'SIGINT' as const },
  { ...COMMANDS[1]!, signal: 'SIGTERM' as const },
];

for (const { name, command, signal } of CASES) {
  test(`${signal} to \`${name}\`: the request in flight completes, exit 0, the port is free for the next start`, async (t) => {
    const port = await freePort();
    const first = start(command, port);
    await waitForHealth(first);
    const key = await keyFor(first.base);

    const inFlight = slowStatement(first.base, key);
    // The request's headers reach the server and it starts reading the body before the signal.
    await sleep(500);
    first.child.kill(signal);
    // Draining: the service waits for the request while its client takes its time.
    await sleep(500);
    inFlight.finish();
    const answered = await inFlight.answer;
    assert.equal(answered.status, 200, answered.body.slice(0, 300));
    assert.equal((JSON.parse(answered.body) as { items: unknown[] }).items.length, 1);

    const code = await Promise.race([first.exited, sleep(25_000).then(() => 'no exit within 25 s')]);
    assert.equal(code, 0, first.output());
    assert.match(first.output(), /"msg":"stopped"/, 'the service drained and stopped, not just its launcher');

    // The port is free: the next start on it serves (it failed with "port ... already in use").
    const second = start(command, port);
    await waitForHealth(second);
    assert.equal((await fetch(`${second.base}/health`)).status, 200);
    assert.equal(await stopServer(second, signal), 0, second.output());
    t.diagnostic(`${name}: drained on ${signal}, restarted on port ${port}`);
  });
}
