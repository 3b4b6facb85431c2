/**
 * A restart that always works (issue 26): after `kill -9` of the service, the embedded PostgreSQL
 * follows it down on its own; when it cannot (its watcher killed too), the next `npm start` finds the
 * PostgreSQL left on the data folder, checks it is a postgres of that folder, stops it cleanly and
 * starts, with nothing committed lost. A start that cannot go on says why in one line.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, afterEach, before, test } from 'node:test';
import { freePort } from '../../src/platform/free-port.ts';
import {
  cleanEnv,
  eventually,
  processesNaming,
  ROOT,
  type Running,
  startServer,
  stopServer,
  waitForHealth,
} from '../support/server-process.ts';

let dataDir: string;
const running: Running[] = [];
before(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'payops-crash-'));
});
after(async () => {
  for (const r of running) await stopServer(r, 'SIGKILL').catch(() => {});
  for (const p of processesNaming(dataDir)) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {}
  }
  rmSync(dataDir, { recursive: true, force: true });
});

// A test that failed half-way must not leave its server holding the folder for the next one.
afterEach(async () => {
  for (const r of running) await stopServer(r, 'SIGTERM').catch(() => stopServer(r, 'SIGKILL'));
});

const start = async (extra: Record<string, string> = {}) => {
  const r = startServer(dataDir, await freePort(), extra);
  running.push(r);
  return r;
};
/**
 * The watcher (payops-pg-follow) ends on its own once the service's pipe closes, a few milliseconds
 * after the service exits; sampling /proc once right after the exit races it. So this waits, bounded,
 * and then names whatever is still running.
 */
async function nothingLeftBehind(what: string): Promise<void> {
  await eventually(() => processesNaming(dataDir).length === 0, 10_000, what).catch(() => {
    assert.deepEqual(processesNaming(dataDir), [], what);
  });
}

const postgresOf = (dir: string) => processesNaming(dir).filter((p) => !p.cmdline.includes('payops-pg-follow'));
const postmasterPid = () => Number(readFileSync(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);

type Sandbox = {
  apiKey: string;
  platformId: string;
  companyId: string;
  dashboardLogin: { email: string; password: string };
};
let sandbox: Sandbox;

async function addUser(r: Running, email: string): Promise<void> {
  const res = await fetch(`${r.base}/users`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': sandbox.apiKey },
    body: JSON.stringify({
      platformId: sandbox.platformId,
      companyId: sandbox.companyId,
      email,
      name: 'Before The Crash',
      roles: ['viewer'],
    }),
  });
  assert.equal(res.status, 201, await res.text());
}
async function userEmails(r: Running): Promise<string[]> {
  const login = await fetch(`${r.base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(sandbox.dashboardLogin),
  });
  assert.equal(login.status, 200, await login.clone().text());
  const { sessionToken } = (await login.json()) as { sessionToken: string };
  const res = await fetch(`${r.base}/users?platformId=${sandbox.platformId}&companyId=${sandbox.companyId}`, {
    headers: { 'x-session-token': sessionToken },
  });
  assert.equal(res.status, 200, await res.clone().text());
  return ((await res.json()) as { users: { email: string }[] }).users.map((u) => u.email);
}

test('kill -9 of the service: the embedded PostgreSQL follows it down; the next start keeps every commit', async () => {
  const first = await start();
  await waitForHealth(first);
  const provisioned = await fetch(`${first.base}/sandbox/provision`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  assert.equal(provisioned.status, 201);
  sandbox = (await provisioned.json()) as Sandbox;
  await addUser(first, 'committed-before-kill@example.com');
  const pid = postmasterPid();

  first.child.kill('SIGKILL');
  await first.exited;
  await eventually(() => postgresOf(dataDir).length === 0, 30_000, `PostgreSQL ${pid} stops after its service died`);

  const second = await start();
  await waitForHealth(second);
  assert.ok((await userEmails(second)).includes('committed-before-kill@example.com'));
  assert.equal(await stopServer(second), 0, second.output());
  await nothingLeftBehind('neither PostgreSQL nor its watcher is left behind');
});

test('a PostgreSQL left running (its watcher killed as well) is found, stopped cleanly, and the start succeeds', async () => {
  const first = await start();
  await waitForHealth(first);
  await addUser(first, 'committed-before-orphan@example.com');
  const pid = postmasterPid();
  const watchers = processesNaming(dataDir).filter((p) => p.cmdline.includes('payops-pg-follow'));
  assert.equal(watchers.length, 1, JSON.stringify(processesNaming(dataDir)));
  process.kill(watchers[0]!.pid, 'SIGKILL');
  first.child.kill('SIGKILL');
  await first.exited;
  await new Promise((r) => setTimeout(r, 500));
  assert.ok(
    postgresOf(dataDir).some((p) => p.pid === pid),
    'the orphaned PostgreSQL still runs',
  );

  const startedAt = Date.now();
  const second = await start();
  await waitForHealth(second);
  const recoveredMs = Date.now() - startedAt;
  assert.match(second.output(), /a PostgreSQL left running by a previous run/);
  assert.ok(!postgresOf(dataDir).some((p) => p.pid === pid), 'the orphan is gone; a new postmaster runs');
  assert.ok((await userEmails(second)).includes('committed-before-orphan@example.com'));
  assert.doesNotMatch(second.output(), /"level":50/, 'no error logged');
  process.stdout.write(`# recovery start after an orphaned PostgreSQL: ${recoveredMs} ms\n`);

  // A second service on the same folder while the first runs is refused, and the first is untouched.
  const intruder = await start();
  assert.equal(await intruder.exited, 1);
  assert.match(
    intruder.output(),
    /payops: cannot start: the embedded PostgreSQL of this DATA_DIR is in use by a running process/,
  );
  assert.equal((await fetch(`${second.base}/health`)).status, 200);

  assert.equal(await stopServer(second), 0, second.output());
  await nothingLeftBehind('PostgreSQL and its watcher end with the service');

  // The CLI opens the same folder afterwards (it used to fail with `undefined`).
  const cli = spawnSync(process.execPath, [path.join(ROOT, 'src/main/cli.ts'), 'verify-audit', sandbox.companyId], {
    cwd: ROOT,
    env: cleanEnv({ DATA_DIR: dataDir }),
    encoding: 'utf8',
  });
  assert.equal(cli.status, 0, cli.stderr + cli.stdout);
});

test('a start that cannot go on prints one line saying why, and leaves no PostgreSQL behind', async (t) => {
  const oneLine = (r: Running) => {
    const lines = r
      .output()
      .split('\n')
      .filter((l) => l.startsWith('payops: cannot start: '));
    assert.equal(lines.length, 1, r.output());
    assert.doesNotMatch(r.output(), /\n\s+at |undefined/, 'a message, not a stack trace or undefined');
    return lines[0]!;
  };

  await t.test('port in use', async () => {
    const blocker = createServer();
    const port = await freePort();
    await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
    try {
      const r = startServer(dataDir, port);
      running.push(r);
      assert.equal(await r.exited, 1);
      assert.match(oneLine(r), new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use`));
      await nothingLeftBehind('a start refused for the port leaves no PostgreSQL or watcher');
    } finally {
      blocker.close();
    }
  });

  await t.test('database unreachable', async () => {
    const port = await freePort();
    const r = await start({
      DATABASE_URL: `postgres://postgres:secret@127.0.0.1:${port}/payops`,
      MASTER_KEY: Buffer.alloc(32, 7).toString('base64'),
    });
    assert.equal(await r.exited, 1);
    const line = oneLine(r);
    assert.match(line, new RegExp(`cannot reach the database at 127\\.0\\.0\\.1:${port}/payops \\(ECONNREFUSED`));
    assert.doesNotMatch(line, /secret/, 'never the password');
  });

  await t.test('MASTER_KEY missing beside DATABASE_URL', async () => {
    const r = await start({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/x' });
    assert.notEqual(await r.exited, 0);
    assert.match(r.output(), /MASTER_KEY is required when DATABASE_URL is set/);
  });

  await t.test('a data folder of another PostgreSQL version', async () => {
    const versionFile = path.join(dataDir, 'pg', 'PG_VERSION');
    const actual = readFileSync(versionFile, 'utf8');
    writeFileSync(versionFile, '17\n');
    try {
      const r = await start();
      assert.equal(await r.exited, 1);
      assert.match(
        oneLine(r),
        /was made by PostgreSQL 17, and this service runs PostgreSQL 1[89][\d.]*: upgrade the folder with pg_upgrade/,
      );
      assert.deepEqual(postgresOf(dataDir), []);
    } finally {
      writeFileSync(versionFile, actual);
    }
  });
});
